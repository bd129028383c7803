import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isStatusError, type KubeObject, type StatusError } from '../../src/api/index.ts';
import type { CacheEvent, CacheWatcher } from '../../src/cache/index.ts';
import { EncryptingBackend, MemoryBackend, SqliteBackend, type KeyValue } from '../../src/storage/index.ts';
import { encodeForStorage, isEncodedHere, offerWritten, offerWrittenView, storedJsonWithResourceVersion, writtenObject, writtenView } from '../../src/registry/codec.ts';
import { metadataViewJson, metadataViewOf } from '../../src/cache/metadata-view.ts';
import type { CachedState } from '../../src/cache/states.ts';
import { spyOnJson } from '../helpers/json-spy.ts';
import { currentRequest, runInRequestContext } from '../../src/api/request-context.ts';
import { assertNothingBefore, brief, configMap, decodeConfigMap, FlakyBackend, json, key, nextEvent, nextEvents, nextResult, PREFIX, startCache, startReading, type Fixture } from './fixtures.ts';

const names = (items: { object: KubeObject }[]): string[] => items.map((i) => `${i.object.metadata.namespace}/${i.object.metadata.name}`);
/** Whether the cache's fan-out feeds the watcher (else it reads the history). */
const liveOf = (watcher: CacheWatcher): boolean => (watcher as unknown as { live: boolean }).live;
const labelIs = (value: string) => (o: KubeObject): boolean => o.metadata.labels?.app === value;

/**
 * A watcher that goes live, then stops reading while ten writes come: its queue holds two,
 * the history keeps the last four, so what it had not read is gone. The writes' revisions.
 */
async function outrunHistory(t: TestContext): Promise<{ f: Fixture; watcher: CacheWatcher; revisions: number[] }> {
  const f = await startCache(t, { watcherQueueLimit: 2, maxHistoryEvents: 4 });
  const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
  startReading(watcher); // go live, then stop reading
  const revisions: number[] = [];
  for (let i = 0; i < 10; i++) revisions.push(await f.put('ns', `o${i}`));
  await f.cache.waitForRevision(await f.backend.currentRevision());
  return { f, watcher, revisions };
}

function assertStatus(err: unknown, code: number, reason: string, message: RegExp): StatusError {
  assert.ok(isStatusError(err), `expected a StatusError, got ${String(err)}`);
  assert.equal(err.code, code);
  assert.equal(err.reason, reason);
  assert.match(err.message, message);
  return err;
}

describe('list and get', () => {
  test('list at the current revision answers every key under the prefix in order', async (t) => {
    const f = await startCache(t);
    await f.put('b', 'two');
    await f.put('a', 'one');
    const last = await f.put('a', 'zero');
    const list = f.cache.list({ prefix: PREFIX });
    assert.ok(list);
    assert.deepEqual(names(list.items), ['a/one', 'a/zero', 'b/two']);
    assert.equal(list.revision, last);
    assert.equal(f.cache.revision, last);
    assert.deepEqual({ more: list.more, remaining: list.remaining }, { more: false, remaining: 0 });
    for (const item of list.items) {
      assert.deepEqual(json(item.json), item.object, 'json is the encoding of object');
      assert.equal(item.object.metadata.resourceVersion, String(item.revision));
      assert.ok(Object.isFrozen(item.object), 'cached objects are frozen');
    }
  });

  test('the objects the cache held before start are loaded by start', async (t) => {
    const backend = new MemoryBackend();
    await backend.create(key('ns', 'early'), configMap('ns', 'early'));
    const f = await startCache(t, {}, backend);
    assert.equal(f.cache.get(key('ns', 'early'))?.object.metadata.name, 'early');
    assert.equal(f.cache.revision, await backend.currentRevision());
  });

  // Keys: a/0..a/4, b/0..b/4 (10 objects), objects with even index labelled app=even.
  const seekCases: Array<{ name: string; prefix?: string; startAfter?: string; limit?: number; even?: boolean; items: string[]; remaining: number }> = [
    { name: 'limit answers the first keys and counts the rest', limit: 3, items: ['a/0', 'a/1', 'a/2'], remaining: 7 },
    { name: 'startAfter continues after a key', startAfter: key('a', '2'), limit: 3, items: ['a/3', 'a/4', 'b/0'], remaining: 4 },
    { name: 'startAfter of a missing key seeks to the next one', startAfter: key('a', '25'), limit: 1, items: ['a/3'], remaining: 6 },
    { name: 'a namespace prefix bounds the list', prefix: `${PREFIX}a/`, limit: 4, items: ['a/0', 'a/1', 'a/2', 'a/3'], remaining: 1 },
    { name: 'the last chunk has nothing remaining', prefix: `${PREFIX}b/`, startAfter: key('b', '2'), limit: 5, items: ['b/3', 'b/4'], remaining: 0 },
    { name: 'a limit reached on the last key leaves nothing remaining', prefix: `${PREFIX}b/`, limit: 5, items: ['b/0', 'b/1', 'b/2', 'b/3', 'b/4'], remaining: 0 },
    { name: 'startAfter before the prefix starts at the prefix', prefix: `${PREFIX}b/`, startAfter: key('a', '9'), limit: 1, items: ['b/0'], remaining: 4 },
    { name: 'startAfter past the prefix answers nothing', prefix: `${PREFIX}a/`, startAfter: key('b', '0'), items: [], remaining: 0 },
    { name: 'the limit counts matching items; remaining counts every key after the last', even: true, limit: 2, items: ['a/0', 'a/2'], remaining: 7 },
    { name: 'a predicate without limit answers every match', even: true, items: ['a/0', 'a/2', 'a/4', 'b/0', 'b/2', 'b/4'], remaining: 0 },
    { name: 'a prefix with no keys answers nothing', prefix: `${PREFIX}c/`, limit: 2, items: [], remaining: 0 },
  ];

  test('list seeks with startAfter, limit, predicate', async (t) => {
    const f = await startCache(t);
    for (const ns of ['b', 'a']) for (let i = 4; i >= 0; i--) await f.put(ns, String(i), {}, { app: i % 2 === 0 ? 'even' : 'odd' });
    for (const c of seekCases) {
      const list = f.cache.list({ prefix: c.prefix ?? PREFIX, startAfter: c.startAfter, limit: c.limit, predicate: c.even === true ? labelIs('even') : undefined });
      assert.ok(list, c.name);
      assert.deepEqual(names(list.items), c.items, c.name);
      assert.equal(list.remaining, c.remaining, `${c.name}: remaining`);
      assert.equal(list.more, c.remaining > 0, `${c.name}: more`);
    }
  });

  test('get answers the current state of a key', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'x', { v: '1' });
    const rev = await f.put('ns', 'x', { v: '2' });
    await f.put('ns', 'gone');
    await f.del('ns', 'gone');
    const cases: Array<[string, string | undefined]> = [
      [key('ns', 'x'), String(rev)],
      [key('ns', 'gone'), undefined],
      [key('ns', 'never'), undefined],
    ];
    for (const [k, rv] of cases) assert.equal(f.cache.get(k)?.object.metadata.resourceVersion, rv, k);
    assert.deepEqual(f.cache.get(key('ns', 'x'))?.object.data, { v: '2' });
  });

  test('list at every past revision in the history equals the backend at that revision, chunked or not', async (t) => {
    const f = await startCache(t);
    const start = f.cache.revision;
    // A deterministic mix of creates, updates and deletes over 12 keys in 3 namespaces.
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 150; i++) {
      const ns = `ns${random(3)}`;
      const name = `o${random(4)}`;
      const exists = (await f.backend.get(key(ns, name))) !== undefined;
      if (exists && random(3) === 0) await f.del(ns, name);
      else await f.put(ns, name, { i: String(i) });
    }
    const end = f.cache.revision;
    for (let revision = start; revision <= end; revision++) {
      for (const prefix of [PREFIX, `${PREFIX}ns1/`]) {
        const expected = await f.backend.list(prefix, { revision });
        const whole = f.cache.list({ prefix, revision });
        assert.ok(whole, `revision ${revision} is available`);
        assert.equal(whole.revision, revision);
        assert.deepEqual(whole.items.map((i) => [i.key, i.revision, i.object.data]), expected.items.map((kv) => [kv.key, kv.modRevision, (json(kv.value) as KubeObject).data]), `${prefix} at ${revision}`);
        // The same in chunks of 2, checking remaining against the backend's.
        let startAfter: string | undefined;
        const chunked: string[] = [];
        for (;;) {
          const chunk = f.cache.list({ prefix, revision, startAfter, limit: 2 });
          assert.ok(chunk);
          const backendChunk = await f.backend.list(prefix, { revision, startAfter, limit: 2 });
          assert.deepEqual(chunk.items.map((i) => i.key), backendChunk.items.map((kv) => kv.key));
          assert.equal(chunk.remaining, backendChunk.remaining, `remaining at ${revision} after ${startAfter}`);
          assert.equal(chunk.more, backendChunk.more);
          chunked.push(...chunk.items.map((i) => i.key));
          if (!chunk.more) break;
          startAfter = chunk.items[chunk.items.length - 1]?.key;
        }
        assert.deepEqual(chunked, expected.items.map((kv) => kv.key));
        // With a predicate, the limit counts matches and remaining counts every key after the last one.
        const even = (o: KubeObject): boolean => Number((o.data as Record<string, string>).i) % 2 === 0;
        const filtered = f.cache.list({ prefix, revision, limit: 2, predicate: even });
        assert.ok(filtered);
        const evenKeys = expected.items.filter((kv) => even(json(kv.value) as KubeObject)).map((kv) => kv.key);
        assert.deepEqual(filtered.items.map((i) => i.key), evenKeys.slice(0, 2));
        const lastIndex = evenKeys.length >= 2 ? expected.items.findIndex((kv) => kv.key === evenKeys[1]) : expected.items.length - 1;
        assert.equal(filtered.remaining, expected.items.length - 1 - lastIndex, `remaining with a predicate at ${revision}`);
      }
    }
  });

  test('the chunks of a list at a past revision stay at that revision while writes continue', async (t) => {
    const f = await startCache(t);
    for (let i = 0; i < 6; i++) await f.put('ns', `o${i}`, { v: '0' });
    const revision = f.cache.revision;
    const chunks: string[][] = [];
    let startAfter: string | undefined;
    for (let round = 0; ; round++) {
      const chunk = f.cache.list({ prefix: PREFIX, revision, startAfter, limit: 2 });
      assert.ok(chunk);
      assert.equal(chunk.revision, revision);
      assert.ok(chunk.items.every((i) => i.object.data && (i.object.data as Record<string, string>).v === '0'), 'objects as they were');
      chunks.push(chunk.items.map((i) => i.object.metadata.name as string));
      if (!chunk.more) break;
      startAfter = chunk.items[chunk.items.length - 1]?.key;
      // Between chunks: update, delete and create around the cursor.
      if (round === 0) {
        await f.put('ns', 'o3', { v: '1' });
        await f.del('ns', 'o4');
        await f.put('ns', 'o2a', { v: '1' });
      } else {
        await f.put('ns', 'o5', { v: '1' });
        await f.del('ns', 'o1');
        await f.put('ns', 'o4', { v: '1' });
      }
    }
    assert.deepEqual(chunks, [['o0', 'o1'], ['o2', 'o3'], ['o4', 'o5']]);
  });

  test('list answers undefined where the cache holds no snapshot', async (t) => {
    let now = 1_000_000;
    const backend = new MemoryBackend();
    await backend.create(key('ns', 'early'), configMap('ns', 'early'));
    const f = await startCache(t, { now: () => now, snapshotTtlMs: 75_000, historyWindowMs: 300_000 }, backend);
    const started = f.cache.revision;
    const first = await f.put('ns', 'a');
    now += 10_000;
    const second = await f.put('ns', 'a', { v: '2' });
    now += 10_000;
    const third = await f.put('ns', 'b');
    const cases: Array<{ name: string; revision: number; advance?: number; available: boolean }> = [
      { name: 'the current revision', revision: third, available: true },
      { name: 'a revision superseded just now', revision: second, available: true },
      { name: 'a revision superseded 10 s ago', revision: first, available: true },
      { name: 'the revision the cache started at', revision: started, available: true },
      { name: 'before the cache started', revision: started - 1, available: false },
      { name: 'a future revision', revision: third + 1, available: false },
      { name: 'superseded 75 s + 1 ms ago', revision: first, advance: 65_001, available: false },
      { name: 'superseded 75 s ago', revision: second, advance: 9_999, available: true },
      { name: 'superseded 75 s + 1 ms ago, later', revision: second, advance: 1, available: false },
      { name: 'the current revision never expires', revision: third, advance: 1_000_000, available: true },
    ];
    for (const c of cases) {
      now += c.advance ?? 0;
      const list = f.cache.list({ prefix: PREFIX, revision: c.revision });
      assert.equal(list !== undefined, c.available, c.name);
    }
  });

  test('a revision bumped by a write to another prefix lists as the current state', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'a');
    const other = await f.backend.create('/registry/secrets/ns/s', configMap('ns', 's'));
    assert.equal(await f.cache.waitUntilFresh(), other);
    const list = f.cache.list({ prefix: PREFIX, revision: other });
    assert.deepEqual(list && names(list.items), ['ns/a']);
    assert.equal(list?.revision, other);
  });
});

describe('revisions', () => {
  test('waitForRevision resolves when the cache reaches the revision', async (t) => {
    const f = await startCache(t);
    const target = f.cache.revision + 2;
    const waiting = f.cache.waitForRevision(target);
    await f.put('ns', 'a');
    await f.put('ns', 'b');
    await waiting;
    assert.equal(f.cache.revision, target);
  });

  test('waitForRevision counts writes to other prefixes as progress', async (t) => {
    const backend = new MemoryBackend();
    const f = await startCache(t, { maxWaitMs: 10_000, progressIntervalMs: 10 }, backend);
    // The write comes after the cache's first look at the backend's revision, so only a later look can see it.
    let looked!: () => void;
    const firstLook = new Promise<void>((resolve) => (looked = resolve));
    const currentRevision = backend.currentRevision.bind(backend);
    backend.currentRevision = async () => {
      const revision = await currentRevision();
      looked();
      return revision;
    };
    const target = f.cache.revision + 1;
    const waiting = f.cache.waitForRevision(target);
    await firstLook;
    await f.backend.create('/registry/secrets/ns/s', configMap('ns', 's'));
    await waiting;
    assert.ok(f.cache.revision >= target);
  });

  test('waitUntilFresh after a write elsewhere resolves at the backend revision', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'a');
    const rev = await f.backend.create('/registry/secrets/ns/s', configMap('ns', 's'));
    assert.equal(await f.cache.waitUntilFresh(), rev);
    assert.equal(f.cache.revision, rev);
  });

  test('a revision never reached fails after maxWaitMs with 504 "Too large resource version"', async (t) => {
    const f = await startCache(t, { maxWaitMs: 50 });
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const current = f.cache.revision;
    let outcome: unknown = 'pending';
    const waiting = f.cache.waitForRevision(current + 10).then(() => 'resolved', (e: unknown) => e);
    void waiting.then((o) => (outcome = o));
    t.mock.timers.tick(49);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(outcome, 'pending', 'still waiting 1 ms before maxWaitMs');
    t.mock.timers.tick(1);
    const err = await waiting;
    const status = assertStatus(err, 504, 'Timeout', /Too large resource version: \d+, current: \d+/);
    assert.equal(status.headers['Retry-After'], '1');
    assert.equal(status.details?.retryAfterSeconds, 1);
    assert.deepEqual(status.details?.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
  });
});

describe('watch', () => {
  test('from a revision: creates, updates and deletes after it, deletes at their own revision', async (t) => {
    const f = await startCache(t);
    const before = await f.put('ns', 'old');
    const created = await f.put('ns', 'a', { v: '1' });
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: before });
    const updated = await f.put('ns', 'a', { v: '2' });
    const deleted = await f.del('ns', 'a');
    const events = await nextEvents(watcher, 3);
    assert.deepEqual(events.map(brief), [`ADDED a@${created}`, `MODIFIED a@${updated}`, `DELETED a@${deleted}`]);
    assert.deepEqual(events.map((e) => e.revision), [created, updated, deleted]);
    assert.deepEqual(events[2]?.object.data, { v: '2' }, 'a DELETED event carries the last state');
    for (const event of events) assert.deepEqual(json(event.json), event.object);
    await assertNothingBefore(watcher, () => f.put('ns', 'barrier'));
  });

  test('a watch sees only keys under its prefix', async (t) => {
    const f = await startCache(t);
    const watcher = f.cache.watch({ prefix: `${PREFIX}b/`, fromRevision: f.cache.revision });
    await f.put('a', 'x');
    await f.put('b', 'y');
    await f.put('bb', 'z');
    assert.equal(brief(await nextEvent(watcher)).split('@')[0], 'ADDED y');
    await assertNothingBefore(watcher, () => f.put('b', 'barrier'));
  });

  test('fromRevision older than the history answers 410 Expired', async (t) => {
    let now = 0;
    const f = await startCache(t, { now: () => now, historyWindowMs: 1000 });
    const first = await f.put('ns', 'a');
    now += 2000;
    const second = await f.put('ns', 'a', { v: '2' });
    const cases: Array<{ from: number; expired: boolean }> = [
      { from: first - 1, expired: true },
      { from: first, expired: false },
      { from: second, expired: false },
    ];
    for (const c of cases) {
      if (!c.expired) {
        f.cache.watch({ prefix: PREFIX, fromRevision: c.from }).close();
        continue;
      }
      assert.throws(() => f.cache.watch({ prefix: PREFIX, fromRevision: c.from }), (err) => {
        assertStatus(err, 410, 'Expired', new RegExp(`^too old resource version: ${c.from} \\(${first}\\)$`));
        return true;
      });
    }
  });

  test('a future fromRevision waits, then streams from it', async (t) => {
    const f = await startCache(t);
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision + 1 });
    const pending = nextEvents(watcher, 1);
    await f.put('ns', 'a');
    const second = await f.put('ns', 'b');
    assert.deepEqual((await pending).map(brief), [`ADDED b@${second}`]);
  });

  test('a future fromRevision never reached ends the watch with 504', async (t) => {
    const f = await startCache(t, { maxWaitMs: 50 });
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision + 5 });
    const err = await nextResult(watcher).then(() => undefined, (e: unknown) => e);
    assertStatus(err, 504, 'Timeout', /Too large resource version/);
    assert.equal((await nextResult(watcher)).done, true);
    assert.equal(f.cache.watcherCount, 0);
  });

  test('initial events: the state as ADDED, the initial-events-end bookmark, then changes', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'b');
    const a = await f.put('ns', 'a');
    await f.put('other', 'c');
    const stateRevision = f.cache.revision;
    const watcher = f.cache.watch({ prefix: `${PREFIX}ns/`, fromRevision: 0, initialEvents: true, bookmarks: true });
    const later = await f.put('ns', 'd');
    const events = await nextEvents(watcher, 4);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK', 'ADDED']);
    assert.deepEqual(events.map((e) => e.object.metadata.name), ['a', 'b', undefined, 'd']);
    assert.equal(events[0]?.revision, a);
    const bookmark = events[2];
    assert.deepEqual(bookmark?.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(stateRevision), annotations: { 'k8s.io/initial-events-end': 'true' } } });
    assert.deepEqual(json(bookmark?.json as Uint8Array), bookmark?.object);
    assert.equal(events[3]?.revision, later);
  });

  test('initial events without bookmarks send no bookmark; with a predicate only matches', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'a', {}, { app: 'x' });
    await f.put('ns', 'b', {}, { app: 'y' });
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: 0, initialEvents: true, predicate: labelIs('x') });
    assert.equal(brief(await nextEvent(watcher)).split('@')[0], 'ADDED a');
    // Neither b (no match) nor a bookmark (not asked for) comes before a later match.
    await assertNothingBefore(watcher, () => f.put('ns', 'c', {}, { app: 'x' }));
  });

  test('periodic bookmarks at the current revision, only to watchers that asked', async (t) => {
    const f = await startCache(t, { bookmarkIntervalMs: 20 });
    const withBookmarks = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision, bookmarks: true });
    const without = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    startReading(without); // go live
    const rev = await f.put('ns', 'a');
    assert.equal((await nextEvent(withBookmarks)).type, 'ADDED');
    const bookmark = await nextEvent(withBookmarks);
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.deepEqual(bookmark.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(rev) } });
    assert.equal((await nextEvent(withBookmarks)).type, 'BOOKMARK');
    assert.equal((await nextEvent(without)).type, 'ADDED');
    // Two bookmarks went out; none of them to this watcher.
    await assertNothingBefore(without, () => f.put('ns', 'b'));
  });

  test('predicates: starting to match is ADDED, stopping is DELETED with the old object at the new revision', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'a', { v: '0' }, { app: 'no' });
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision, predicate: labelIs('yes') });
    const steps: Array<{ name: string; write: () => Promise<number>; expect: string | undefined; data?: Record<string, string> }> = [
      { name: 'starts matching', write: () => f.put('ns', 'a', { v: '1' }, { app: 'yes' }), expect: 'ADDED', data: { v: '1' } },
      { name: 'still matches', write: () => f.put('ns', 'a', { v: '2' }, { app: 'yes' }), expect: 'MODIFIED', data: { v: '2' } },
      { name: 'stops matching', write: () => f.put('ns', 'a', { v: '3' }, { app: 'no' }), expect: 'DELETED', data: { v: '2' } },
      { name: 'still does not match', write: () => f.put('ns', 'a', { v: '4' }, { app: 'no' }), expect: undefined },
      { name: 'created matching', write: () => f.put('ns', 'b', { v: '5' }, { app: 'yes' }), expect: 'ADDED', data: { v: '5' } },
      { name: 'deleted while not matching', write: () => f.del('ns', 'a'), expect: undefined },
      { name: 'deleted while matching', write: () => f.del('ns', 'b'), expect: 'DELETED', data: { v: '5' } },
    ];
    for (const [i, step] of steps.entries()) {
      const revision = await step.write();
      if (step.expect === undefined) {
        // A matching object written next is the next event: the step sent none.
        await assertNothingBefore(watcher, () => f.put('ns', `barrier-${i}`, {}, { app: 'yes' }));
        continue;
      }
      const event = await nextEvent(watcher);
      assert.equal(event.type, step.expect, step.name);
      assert.equal(event.revision, revision, step.name);
      assert.equal(event.object.metadata.resourceVersion, String(revision), `${step.name}: resourceVersion`);
      assert.deepEqual(event.object.data, step.data, `${step.name}: object`);
      assert.deepEqual(json(event.json), event.object, `${step.name}: json`);
    }
  });

  test('predicate transitions replayed from history match the live ones', async (t) => {
    const f = await startCache(t);
    const from = await f.put('ns', 'a', {}, { app: 'no' });
    await f.put('ns', 'a', {}, { app: 'yes' });
    await f.put('ns', 'a', {}, { app: 'no' });
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: from, predicate: labelIs('yes') });
    assert.deepEqual((await nextEvents(watcher, 2)).map((e) => [e.type, e.object.metadata.labels?.app]), [['ADDED', 'yes'], ['DELETED', 'yes']]);
  });

  test('a slow watcher holds no more than its queue, reads the rest from the history, then goes live again', async (t) => {
    const f = await startCache(t, { watcherQueueLimit: 5 });
    const slow = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    const fast = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    startReading(slow); // go live, then stop reading
    const received: string[] = [];
    const reading = (async () => {
      for await (const event of fast) {
        received.push(event.object.metadata.name as string);
        if (received.length === 20) break;
      }
    })();
    // The pending next() takes the first event, the queue holds 5 more; the 7th leaves the fan-out.
    for (let i = 0; i < 20; i++) await f.put('ns', `o${i}`);
    await reading;
    assert.equal(received.length, 20);
    assert.equal(received[19], 'o19');
    assert.equal(liveOf(slow), false, 'no longer fed by the fan-out');
    assert.equal(f.cache.watcherCount, 1, 'still watching');
    const slowNames = (await nextEvents(slow, 20)).map((e) => e.object.metadata.name);
    assert.deepEqual(slowNames, Array.from({ length: 20 }, (_, i) => `o${i}`), 'every event, in order, once');
    // Caught up: the next read finds the history's end and goes live again.
    const next = nextEvent(slow);
    await f.put('ns', 'after');
    assert.equal((await next).object.metadata.name, 'after');
    assert.equal(liveOf(slow), true);
  });

  test('a slow watcher with a selector gets from the history what a fast one got live, transitions included', async (t) => {
    const f = await startCache(t, { watcherQueueLimit: 1 });
    const slow = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision, predicate: labelIs('yes') });
    const fast = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision, predicate: labelIs('yes') });
    startReading(slow); // go live, then stop reading
    const seen: string[][] = [];
    const reading = (async () => {
      for await (const event of fast) {
        seen.push([event.type, event.object.metadata.name as string, event.object.metadata.labels?.app ?? '']);
        if (seen.length === 5) break;
      }
    })();
    for (const [name, app] of [['a', 'yes'], ['b', 'no'], ['a', 'no'], ['b', 'yes'], ['a', 'yes'], ['b', 'no']] as const) await f.put('ns', name, {}, { app });
    await reading;
    assert.equal(liveOf(slow), false);
    const slowSeen = (await nextEvents(slow, 5)).map((e) => [e.type, e.object.metadata.name as string, e.object.metadata.labels?.app ?? '']);
    assert.deepEqual(slowSeen, seen);
    assert.deepEqual(seen.map(([type, name, app]) => `${type} ${name} ${app}`), ['ADDED a yes', 'DELETED a yes', 'ADDED b yes', 'ADDED a yes', 'DELETED b yes']);
  });

  test('a slow watcher whose unread events the history let go of ends with 410', async (t) => {
    const { f, watcher: slow, revisions } = await outrunHistory(t);
    // What was taken or queued before it fell behind comes first: o0, then o1 and o2.
    assert.deepEqual((await nextEvents(slow, 3)).map((e) => e.object.metadata.name), ['o0', 'o1', 'o2']);
    // o3 on were to come from the history, which keeps the last four only: the 410 names o2's revision, the last it had.
    await assert.rejects(nextResult(slow), (err) => isStatusError(err) && err.code === 410 && err.message.startsWith(`too old resource version: ${revisions[2]} (`));
    assert.equal((await nextResult(slow)).done, true);
    assert.equal(f.cache.watcherCount, 0);
  });

  test('close on a watcher ends its iteration and releases it; closing the cache ends them all', async (t) => {
    const f = await startCache(t);
    const one = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    const two = f.cache.watch({ prefix: PREFIX, fromRevision: 0, initialEvents: true });
    const three = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision + 100 });
    assert.equal(f.cache.watcherCount, 3);
    const pending = nextResult(one);
    one.close();
    assert.equal((await pending).done, true);
    assert.equal(f.cache.watcherCount, 2);
    f.cache.close();
    for (const w of [two, three]) assert.equal((await nextResult(w)).done, true);
    assert.equal(f.cache.watcherCount, 0);
    assert.throws(() => f.cache.watch({ prefix: PREFIX, fromRevision: 0 }), (err) => isStatusError(err) && err.code === 503);
  });

  test('breaking out of for await releases the watcher', async (t) => {
    const f = await startCache(t);
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    await f.put('ns', 'a');
    for await (const _ of watcher) break;
    assert.equal(f.cache.watcherCount, 0);
  });

  test('a watcher catching up through history that gets trimmed ends with 410', async (t) => {
    const f = await startCache(t, { maxHistoryEvents: 3 });
    const from = f.cache.revision;
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: from });
    for (let i = 0; i < 5; i++) await f.put('ns', `o${i}`);
    await assert.rejects(nextResult(watcher), (err) => isStatusError(err) && err.code === 410);
  });
});

describe('following the backend', () => {
  test('after a transient watch failure the cache watches again and loses nothing; watchers continue', async (t) => {
    const backend = new FlakyBackend();
    const f = await startCache(t, {}, backend);
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    await f.put('ns', 'a');
    backend.failWatches('Unavailable');
    const b = await f.put('ns', 'b');
    await f.cache.waitUntilFresh();
    assert.deepEqual((await nextEvents(watcher, 2)).map((e) => e.object.metadata.name), ['a', 'b']);
    assert.equal(f.cache.get(key('ns', 'b'))?.revision, b);
    assert.equal(backend.watchCalls, 2);
    assert.ok(f.logs.some((l) => l.includes('watching again')));
  });

  test('after a compacted watch the cache re-lists: watchers end with 410, new reads are correct', async (t) => {
    const backend = new FlakyBackend();
    const f = await startCache(t, {}, backend);
    const a = await f.put('ns', 'a');
    await f.put('ns', 'b');
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    startReading(watcher); // go live
    f.cache.watch({ prefix: PREFIX, fromRevision: a }).close(); // in the history before the re-list
    backend.failWatches('Compacted');
    await f.del('ns', 'a');
    const c = await f.put('ns', 'c');
    await f.cache.waitUntilFresh();
    assert.equal(f.cache.revision, c);
    await assert.rejects(nextResult(watcher), (err) => isStatusError(err) && err.code === 410);
    assert.deepEqual(names(f.cache.list({ prefix: PREFIX })?.items ?? []), ['ns/b', 'ns/c']);
    // History starts again at the re-list: older revisions are gone, newer ones stream.
    assert.throws(() => f.cache.watch({ prefix: PREFIX, fromRevision: a }), (err) => isStatusError(err) && err.code === 410);
    const after = f.cache.watch({ prefix: PREFIX, fromRevision: c });
    const d = await f.put('ns', 'd');
    assert.equal(brief(await nextEvent(after)), `ADDED d@${d}`);
  });

  test('a real overflow of the backend watch, compacted before the cache resumes, ends in a re-list', async (t) => {
    const backend = new MemoryBackend({ watchQueueLimit: 3 });
    const f = await startCache(t, {}, backend);
    // Writes publish synchronously: ten of them overflow the backend queue before
    // the cache reads, and compacting right away removes the history it would resume from.
    const writes = Array.from({ length: 10 }, (_, i) => backend.create(key('ns', `o${i}`), configMap('ns', `o${i}`)));
    void backend.compact(await backend.currentRevision());
    await Promise.all(writes);
    await f.cache.waitUntilFresh();
    assert.equal(f.cache.list({ prefix: PREFIX })?.items.length, 10);
    assert.ok(f.logs.some((l) => l.includes('re-listed')), f.logs.join('\n'));
  });

  test('a value that cannot be decoded makes its key corrupt: gets and lists name its error, watchers that would see it end with it', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'a', { v: '1' });
    const live = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    const from = f.cache.revision;
    const existing = await f.backend.get(key('ns', 'a'));
    await f.backend.update(key('ns', 'a'), new TextEncoder().encode('{not json'), existing?.modRevision as number);
    await f.backend.create(key('ns', 'bad'), new TextEncoder().encode('nope'));
    const ok = await f.put('ns', 'ok');
    await assert.rejects(live[Symbol.asyncIterator]().next(), /JSON/, 'the live watcher ends with the error (its ERROR event)');
    await assert.rejects(f.cache.watch({ prefix: PREFIX, fromRevision: from })[Symbol.asyncIterator]().next(), /JSON/, 'so does one replaying the history past it');
    await assert.rejects(f.cache.watch({ prefix: PREFIX, fromRevision: 0, initialEvents: true })[Symbol.asyncIterator]().next(), /JSON/, 'and one starting from a state that holds it');
    assert.equal(f.cache.get(key('ns', 'a')), undefined);
    assert.match(f.cache.corruptError(key('ns', 'a'))!.message, /JSON/);
    const listed = f.cache.list({ prefix: PREFIX })!;
    assert.deepEqual(names(listed.items), ['ns/ok']);
    assert.equal(listed.corrupt?.length, 2, 'both corrupt keys');
    assert.equal(f.cache.list({ prefix: PREFIX, startAfter: key('ns', 'a') })!.corrupt?.length, 1, 'a continued list names those after its start');
    assert.equal(f.cache.list({ prefix: `${PREFIX}other/` })!.corrupt, undefined);
    assert.equal(f.logs.filter((l) => l.includes('cannot be decoded')).length, 2);
    // Deleting a corrupt key: watchers see DELETED with what the key says; a good value makes it whole again.
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: ok });
    const deleted = await f.del('ns', 'bad');
    const fixed = await f.put('ns', 'a', { v: '2' });
    assert.deepEqual((await nextEvents(watcher, 2)).map(brief), [`DELETED bad@${deleted}`, `ADDED a@${fixed}`]);
    assert.equal(f.cache.corruptError(key('ns', 'a')), undefined);
    assert.equal(f.cache.list({ prefix: PREFIX })!.corrupt, undefined);
  });

  test('a corrupt value already stored when the cache loads is kept as corrupt', async (t) => {
    const backend = new MemoryBackend();
    await backend.create(key('ns', 'bad'), new TextEncoder().encode('nope'));
    await backend.create(key('ns', 'good'), configMap('ns', 'good'));
    const f = await startCache(t, {}, backend);
    assert.deepEqual(names(f.cache.list({ prefix: PREFIX })!.items), ['ns/good']);
    assert.ok(f.cache.corruptError(key('ns', 'bad')) !== undefined);
  });

  test('corrupt values are read again on request: one that reads now (its key service back) takes its place, one still unreadable stays corrupt', async (t) => {
    let readable = false;
    const transformer = {
      toStorage: (data: Uint8Array) => data,
      fromStorage(data: Uint8Array) {
        if (!readable) throw new Error('key service down');
        return data;
      },
    };
    const inner = new MemoryBackend();
    const loaded = await inner.create(key('ns', 'loaded'), configMap('ns', 'loaded'));
    await inner.create(key('ns', 'garbage'), new TextEncoder().encode('nope'));
    // As the registry's codec: a value the backend could not read is an error to decode.
    const decode = (kv: KeyValue) => {
      if (kv.transformError !== undefined) throw new Error(kv.transformError);
      return decodeConfigMap(kv);
    };
    const f = await startCache(t, { decode }, new EncryptingBackend(inner, () => transformer));
    const watched = await f.put('ns', 'watched');
    await f.cache.waitUntilFresh();
    assert.match(f.cache.corruptError(key('ns', 'loaded'))!.message, /key service down/, 'corrupt from the load');
    assert.match(f.cache.corruptError(key('ns', 'watched'))!.message, /key service down/, 'corrupt from its event');
    await f.cache.retryCorrupt();
    assert.equal(f.cache.list({ prefix: PREFIX })!.corrupt?.length, 3, 'still down: all three stay');
    readable = true;
    await f.cache.retryCorrupt();
    assert.equal(f.cache.get(key('ns', 'loaded'))?.revision, loaded, 'readable now, at the revision it was corrupt at');
    assert.equal(f.cache.get(key('ns', 'watched'))?.revision, watched);
    assert.deepEqual(names(f.cache.list({ prefix: PREFIX })!.items), ['ns/loaded', 'ns/watched']);
    assert.match(f.cache.corruptError(key('ns', 'garbage'))!.message, /JSON/, 'a value that does not decode stays corrupt');
    assert.equal(f.cache.list({ prefix: PREFIX })!.corrupt?.length, 1);
    // What the cache follows afterwards is as usual.
    const next = await f.put('ns', 'loaded', { v: '2' });
    await f.cache.waitUntilFresh();
    assert.equal(f.cache.get(key('ns', 'loaded'))?.revision, next);
  });
});

describe('sharing', () => {
  test('one event object is shared by every watcher without a predicate', async (t) => {
    const f = await startCache(t);
    const watchers: CacheWatcher[] = Array.from({ length: 3 }, () => f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision }));
    await f.put('ns', 'a');
    const events = await Promise.all(watchers.map((w) => nextEvent(w)));
    assert.ok(events.every((e) => e === events[0]));
    assert.equal(events[0]?.json, f.cache.get(key('ns', 'a'))?.json, 'the event and the cached object share their bytes');
  });
});

describe('memory of the event history', () => {
  const decoder = new TextDecoder();
  /** The engine's gc(), for asserting that the history no longer holds something. */
  const collectGarbage = (() => {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  })();

  test('an event is one array: its watch-stream line, holding the JSON of the state it makes current', async (t) => {
    const f = await startCache(t);
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    await f.put('ns', 'a', { x: '1' });
    await f.put('ns', 'a', { x: '2' });
    const [added, modified] = await nextEvents(watcher, 2);
    const cached = f.cache.get(key('ns', 'a'));
    assert.ok(added?.frame !== undefined && modified?.frame !== undefined && cached !== undefined);
    assert.equal(modified.json, cached.json, 'the current state and its latest event share one JSON array');
    assert.equal(modified.json.buffer, modified.frame.buffer, 'and the frame written to watchers is that same array');
    assert.equal(decoder.decode(modified.frame), `{"type":"MODIFIED","object":${decoder.decode(cached.json)}}\n`);
    assert.equal(decoder.decode(added.frame), `{"type":"ADDED","object":${decoder.decode(added.json)}}\n`);
    assert.deepEqual(json(added.json), added.object);
  });

  test('a superseded state is kept by its bytes: its decoded object is let go and decoded again when read', async (t) => {
    const f = await startCache(t);
    const before = f.cache.revision;
    const first = await f.put('ns', 'a', { v: '1' }, { app: 'one' });
    // Held only weakly here and by the cache: the fan-out and the test hold it meanwhile.
    const decoded = new WeakRef(f.cache.get(key('ns', 'a'))!.object);
    await f.put('ns', 'a', { v: '2' }, { app: 'two' });
    await f.cache.waitUntilFresh();
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    assert.equal(decoded.deref(), undefined, 'the history does not hold the decoded form of a superseded state');

    // Watches from before it, with and without a predicate, and a list at its revision, still see it.
    const all = f.cache.watch({ prefix: PREFIX, fromRevision: before });
    const [added] = await nextEvents(all, 1);
    assert.equal(added?.type, 'ADDED');
    assert.deepEqual(added?.object.data, { v: '1' });
    assert.equal(added?.object.metadata.resourceVersion, String(first));
    assert.ok(Object.isFrozen(added?.object.metadata), 'decoded again, it is frozen like the rest');
    const filtered = f.cache.watch({ prefix: PREFIX, fromRevision: before, predicate: labelIs('one') });
    assert.deepEqual((await nextEvents(filtered, 2)).map((e) => [e.type, (e.object.data as Record<string, string>).v]), [['ADDED', '1'], ['DELETED', '1']]);
    assert.deepEqual(f.cache.list({ prefix: PREFIX, revision: first })?.items.map((i) => (i.object.data as Record<string, string>).v), ['1']);
  });

  test('a current state holds its decoded object only while someone else does: read again, it is decoded from its JSON', async (t) => {
    const f = await startCache(t);
    const revision = await f.put('ns', 'a', { v: '1' }, { app: 'one' });
    await f.cache.waitUntilFresh();
    let object: KubeObject | undefined = f.cache.get(key('ns', 'a'))!.object;
    assert.equal(f.cache.get(key('ns', 'a'))!.object, object, 'the same object while a reader holds it');
    const decoded = new WeakRef(object);
    object = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    assert.equal(decoded.deref(), undefined, 'the cache does not keep the decoded form of a current state alive');
    const again = f.cache.get(key('ns', 'a'))!.object;
    assert.deepEqual(again.data, { v: '1' });
    assert.deepEqual(again.metadata.labels, { app: 'one' });
    assert.equal(again.metadata.resourceVersion, String(revision));
    assert.ok(Object.isFrozen(again) && Object.isFrozen(again.metadata), 'decoded again, it is frozen');
    assert.deepEqual(f.cache.list({ prefix: PREFIX })?.items.map((i) => i.object.metadata.labels?.app), ['one']);
  });

  test('a deletion\'s selectors are given the view the last state held, not one read again from its JSON', async (t) => {
    const f = await startCache(t);
    const created = await f.put('ns', 'a', { v: '1' }, { app: 'one' });
    await f.cache.waitUntilFresh();
    // The view an informer reads while the object lives, which the state keeps while current.
    const lastView = f.cache.get(key('ns', 'a'))!.metadataView!;
    const given: KubeObject[] = [];
    const predicate = Object.assign((o: KubeObject) => {
      given.push(o);
      return o.metadata.labels?.app === 'one';
    }, { onMetadata: true as const });
    // Waiting for its next event, as an informer does: the deletion reaches it as it arrives.
    const next = nextEvents(f.cache.watch({ prefix: PREFIX, fromRevision: created, predicate }), 1);
    await new Promise((resolve) => setImmediate(resolve));
    await f.del('ns', 'a');
    const [event] = await next;
    const deleted = event!.revision;
    assert.equal(event!.type, 'DELETED');
    assert.ok(given.includes(lastView), 'the selector was given the last state\'s view, not one read again from its JSON');
    const view = event!.metadataView!;
    assert.deepEqual(view, { ...lastView, metadata: { ...lastView.metadata, resourceVersion: String(deleted) } });
    assert.ok(Object.isFrozen(view.metadata));
  });

  test('a deletion makes its JSON when first read: until then it holds no bytes of its own, and its metadata view decodes nothing', async (t) => {
    const f = await startCache(t);
    const marker = `marker-${Date.now()}`;
    const created = await f.put('ns', 'a', { v: marker }, { app: 'one' });
    await f.cache.waitUntilFresh();
    const last = f.cache.get(key('ns', 'a'))!;
    const all = f.cache.watch({ prefix: PREFIX, fromRevision: created });
    const json = spyOnJson(marker, { stringify: true });
    let event: CacheEvent;
    try {
      const deleted = await f.del('ns', 'a');
      await f.cache.waitForRevision(deleted);
      event = (await nextEvents(all, 1))[0]!;
      assert.equal(event.type, 'DELETED');
      assert.equal(event.revision, deleted);
      assert.equal(event.metadataView?.metadata.resourceVersion, String(deleted));
      assert.deepEqual(event.metadataView?.metadata.labels, { app: 'one' });
      assert.ok(Object.isFrozen(event.metadataView?.metadata));
      assert.equal(json.count, 0, 'nothing decoded or encoded before the event was read as an object or JSON');
      assert.equal(event.size, last.json.byteLength, 'counted by the last state\'s bytes');
    } finally {
      json.restore();
    }
    // The window keeps deletions for minutes: their metadata views are not kept with them.
    const view = new WeakRef(event.metadataView!);
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    assert.equal(view.deref(), undefined, 'the event does not keep its metadata view alive');
    assert.equal(event.metadataView?.metadata.resourceVersion, String(event.revision), 'made again when read again');
    assert.deepEqual(event.object.data, { v: marker });
    assert.equal(event.object.metadata.resourceVersion, String(event.revision));
    assert.equal(event.object, event.object, 'made once');
    assert.deepEqual(JSON.parse(decoder.decode(event.frame!)), { type: 'DELETED', object: event.object });
    assert.equal(event.json.buffer, event.frame!.buffer, 'its JSON is a view into its frame');
  });

  test('the history is bounded by bytes: the oldest events go, and a watch from before them gets 410', async (t) => {
    const f = await startCache(t, { maxHistoryBytes: 30_000 });
    const start = f.cache.revision;
    let last = 0;
    for (let i = 0; i < 40; i++) last = await f.put('ns', `o${i % 4}`, { payload: String(i).padEnd(2000, 'x') });
    await f.cache.waitUntilFresh();
    const { events, bytes } = f.cache.historyStats;
    assert.ok(bytes <= 30_000, `history holds ${bytes} bytes`);
    assert.ok(events > 5 && events < 40, `history holds ${events} events`);
    assert.throws(() => f.cache.watch({ prefix: PREFIX, fromRevision: start }), (err) => isStatusError(err) && err.code === 410);
    const recent = f.cache.watch({ prefix: PREFIX, fromRevision: last - 2 });
    assert.deepEqual((await nextEvents(recent, 2)).map((e) => e.revision), [last - 1, last]);
  });

  test('a watcher leaving more than watcherQueueBytes unread falls behind before its count bound', async (t) => {
    const f = await startCache(t, { watcherQueueLimit: 1000, watcherQueueBytes: 10_000 });
    const slow = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    startReading(slow); // go live, then stop reading
    // The pending next() takes the first event; three more (about 9 KB) wait in the queue.
    for (let i = 0; i < 4; i++) await f.put('ns', `o${i}`, { payload: 'x'.repeat(3000) });
    await f.cache.waitUntilFresh();
    assert.equal(liveOf(slow), true);
    assert.ok(slow.queuedBytes > 9000 && slow.queuedBytes <= 10_000, `${slow.queuedBytes} bytes queued`);
    for (let i = 4; i < 8; i++) await f.put('ns', `o${i}`, { payload: 'x'.repeat(3000) });
    await f.cache.waitUntilFresh();
    assert.equal(liveOf(slow), false, 'the fifth event did not fit: it left the fan-out');
    assert.ok(slow.queuedBytes <= 10_000, `${slow.queuedBytes} bytes queued`);
    assert.equal(f.cache.watcherCount, 1);
    assert.deepEqual((await nextEvents(slow, 8)).map((e) => e.object.metadata.name), ['o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7']);
  });
});

describe('decoding when first needed', () => {
  test('a value its Store encoded is kept as JSON until read; other values are decoded on arrival', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plinth-cache-lazy-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    let decoded = 0;
    const f = await startCache(t, {
      decode: (kv) => {
        decoded++;
        return decodeConfigMap(kv);
      },
      encode: storedJsonWithResourceVersion,
      decodesLater: isEncodedHere,
    }, new SqliteBackend(path.join(dir, 'db')));
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision, predicate: labelIs('even') });
    t.after(() => watcher.close());
    const object = (name: string, app: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels: { app } }, data: { k: name } });
    await f.backend.create(key('ns', 'odd'), encodeForStorage(object('odd', 'odd')));
    const revision = await f.backend.create(key('ns', 'even'), encodeForStorage(object('even', 'even')));
    await f.cache.waitForRevision(revision);
    assert.equal(decoded, 0, 'nothing decoded by the decoder on arrival');

    // A watcher's selector reads the object, decoded from the cached JSON.
    const event = await nextEvent(watcher);
    assert.equal(event.object.metadata.name, 'even');
    const cached = f.cache.get(key('ns', 'odd'))!;
    assert.deepEqual(cached.object, { ...object('odd', 'odd'), metadata: { ...object('odd', 'odd').metadata, resourceVersion: String(cached.revision) } });
    assert.ok(Object.isFrozen(cached.object), 'decoded later, still frozen');
    assert.equal(cached.object, f.cache.get(key('ns', 'odd'))!.object, 'a current state keeps what it decoded');
    assert.deepEqual(json(cached.json), cached.object);

    // Bytes the Store did not encode (here, a copy of encoded bytes) go through the decoder at once.
    await f.cache.waitForRevision(await f.backend.update(key('ns', 'odd'), encodeForStorage(object('odd', 'odd2')).slice(), cached.revision));
    assert.equal(decoded, 1);
    assert.equal(f.cache.get(key('ns', 'odd'))!.object.metadata.labels?.app, 'odd2');
  });
});

describe('selecting on metadata', () => {
  test('a predicate on metadata is given the metadata view in lists, initial events and the history; others the object', async (t) => {
    const f = await startCache(t);
    const seen: { onMetadata: boolean; keys: string[] }[] = [];
    const byApp = (app: string, onMetadata: boolean) => {
      const record = { onMetadata, keys: [] as string[] };
      seen.push(record);
      const predicate = (o: KubeObject) => {
        record.keys.push(Object.keys(o).sort().join(','));
        return o.metadata.labels?.app === app;
      };
      return onMetadata ? Object.assign(predicate, { onMetadata: true }) : predicate;
    };
    await f.put('ns', 'a', { k: 'a' }, { app: 'x' });
    await f.put('ns', 'b', { k: 'b' }, { app: 'y' });
    for (const onMetadata of [true, false]) {
      assert.deepEqual(f.cache.list({ prefix: PREFIX, predicate: byApp('x', onMetadata) })!.items.map((i) => i.object.data), [{ k: onMetadata ? 'a' : 'a2' }]);
      const initial = f.cache.watch({ prefix: PREFIX, fromRevision: 0, initialEvents: true, predicate: byApp('y', onMetadata) });
      const from = f.cache.revision;
      const live = f.cache.watch({ prefix: PREFIX, fromRevision: from, predicate: byApp('x', onMetadata) });
      t.after(() => (initial.close(), live.close()));
      assert.deepEqual((await nextEvent(initial)).object.data, { k: 'b' }, 'the event carries the whole object');
      await f.put('ns', 'a', { k: onMetadata ? 'a2' : 'a3' }, { app: 'x' });
      assert.deepEqual((await nextEvent(live)).object.data, { k: onMetadata ? 'a2' : 'a3' });
    }
    for (const { onMetadata, keys } of seen) {
      assert.ok(keys.length > 0);
      for (const k of keys) assert.equal(k, onMetadata ? 'apiVersion,kind,metadata' : 'apiVersion,data,kind,metadata');
    }
  });
});

describe('consistent reads at once', () => {
  test('fresh when it has applied every event of its prefix up to the in-process backend\'s revision', async (t) => {
    const f = await startCache(t);
    await f.put('ns', 'a');
    await f.cache.waitForRevision(await f.backend.currentRevision());
    assert.equal(f.cache.isFreshNow(), true);
    // A write under another prefix moves the revision: with nothing of ours queued, the cache has it at once.
    const elsewhere = await f.backend.create('/registry/secrets/ns/s', new TextEncoder().encode('{}'));
    assert.ok(f.cache.revision < elsewhere);
    assert.equal(f.cache.isFreshNow(), true);
    assert.equal(f.cache.revision, elsewhere);
    // A write of its own is published as it commits, and applied a moment later: not fresh until then.
    const own = f.backend.create(key('ns', 'b'), configMap('ns', 'b'));
    assert.equal(f.cache.isFreshNow(), false, 'its own event is not applied yet');
    await f.cache.waitUntilFresh();
    assert.equal(f.cache.revision, await own);
    assert.equal(f.cache.isFreshNow(), true);
  });

  test('never with a backend that cannot tell its revision at once (etcd)', async (t) => {
    const memory = new MemoryBackend();
    const remote = new Proxy(memory, {
      get(target, property) {
        if (property === 'currentRevisionNow') return undefined;
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const f = await startCache(t, {}, remote);
    await f.cache.waitUntilFresh();
    assert.equal(f.cache.isFreshNow(), false);
  });
});

describe('taking what is ready', () => {
  test('takeReady answers the queued events at once, up to its maximum, and leaves the end and failures to next()', async (t) => {
    const f = await startCache(t, { watcherQueueLimit: 5 });
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    assert.deepEqual(watcher.takeReady!(10), [], 'nothing yet');
    for (let i = 0; i < 4; i++) await f.put('ns', `o${i}`);
    const first = await nextEvent(watcher);
    assert.equal(first.object.metadata.name, 'o0');
    assert.deepEqual(watcher.takeReady!(2).map((e) => e.object.metadata.name), ['o1', 'o2']);
    assert.deepEqual(watcher.takeReady!(10).map((e) => e.object.metadata.name), ['o3']);
    assert.deepEqual(watcher.takeReady!(10), []);

    // Past the queue's bound the rest comes from the history, for takeReady as for next().
    for (let i = 0; i < 7; i++) await f.put('ns', `p${i}`);
    await f.cache.waitForRevision(await f.backend.currentRevision());
    assert.equal(liveOf(watcher), false);
    assert.deepEqual(watcher.takeReady!(10).map((e) => e.object.metadata.name), ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    assert.deepEqual(watcher.takeReady!(10), []);
    assert.equal(liveOf(watcher), true, 'caught up');
  });

  test('a failure takeReady meets in the history is left to next(): the history let go of what it had not read', async (t) => {
    const { watcher, revisions } = await outrunHistory(t);
    assert.equal((await nextEvent(watcher)).object.metadata.name, 'o0');
    assert.deepEqual(watcher.takeReady!(10).map((e) => e.object.metadata.name), ['o1', 'o2'], 'the queue, then the history is found too short');
    assert.deepEqual(watcher.takeReady!(10), [], 'the failure is not taken');
    await assert.rejects(nextResult(watcher), (err) => isStatusError(err) && err.code === 410 && err.message.startsWith(`too old resource version: ${revisions[2]} (`));
    assert.equal((await nextResult(watcher)).done, true);
  });
});

describe('taking the writer\'s object', () => {
  test('a state its Store wrote takes the written object, laid out and normalised as decoding its JSON would give', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plinth-cache-adopt-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const f = await startCache(t, { encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere }, new SqliteBackend(path.join(dir, 'db')));
    // Built as a Store may build one: members in another order, an undefined member, -0, a selfLink.
    const written = {
      data: { a: '1', gone: undefined, list: [1, undefined, -0] },
      metadata: { name: 'w', namespace: 'ns', selfLink: '/x', labels: { l: 'v' } },
      apiVersion: 'v1', kind: 'ConfigMap', weight: -0,
    } as unknown as KubeObject;
    const revision = await f.backend.create(key('ns', 'w'), encodeForStorage(written));
    await f.cache.waitForRevision(revision);
    written.metadata.resourceVersion = String(revision);
    assert.equal(f.cache.adopt(key('ns', 'w'), revision + 1, written), false, 'not the state of another revision');
    assert.equal(f.cache.adopt(key('ns', 'w'), revision, written), true);
    const cached = f.cache.get(key('ns', 'w'))!;
    // The same value, members in the same order, as the JSON decoded.
    assert.equal(JSON.stringify(cached.object), new TextDecoder().decode(cached.json));
    assert.deepEqual(cached.object, json(cached.json));
    assert.ok(Object.isFrozen(cached.object) && Object.isFrozen(cached.object.data) && Object.isFrozen(cached.object.metadata.labels));
    assert.equal(cached.object.data, written.data, 'what is below the top level is shared, not copied');
    assert.ok(Object.is((cached.object.data as { list: number[] }).list[2], 0));
    assert.equal(f.cache.adopt(key('ns', 'w'), revision, written), false, 'a state already decoded keeps what it has');

    // Bytes the Store did not encode are decoded on arrival: nothing to take.
    const copied = await f.backend.update(key('ns', 'w'), encodeForStorage(written).slice(), revision);
    await f.cache.waitForRevision(copied);
    assert.equal(f.cache.adopt(key('ns', 'w'), copied, { ...written, metadata: { ...written.metadata, resourceVersion: String(copied) } }), false);
  });

  test('an object offered before its write is taken when the event arrives: watchers read its view without decoding', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plinth-cache-adopt-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const f = await startCache(t, { encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere, writtenObject }, new SqliteBackend(path.join(dir, 'db')));
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    t.after(() => watcher.close());
    const written = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'offered', namespace: 'ns', labels: { l: 'v' } }, data: { a: '1' } } as KubeObject;
    const value = encodeForStorage(written);
    offerWritten(value, written);
    const spy = spyOnJson('offered');
    t.after(() => spy.restore());
    // The writer has not set the resourceVersion yet when its event arrives.
    const revision = await f.backend.create(key('ns', 'offered'), value);
    const event = await nextEvent(watcher);
    assert.equal(event.metadataView!.metadata.resourceVersion, String(revision));
    assert.equal(event.object.data, written.data, 'what is below the top level is the writer\'s, shared');
    assert.equal(event.object.metadata.resourceVersion, String(revision));
    assert.equal(JSON.stringify(event.object), new TextDecoder().decode(f.cache.get(key('ns', 'offered'))!.json));
    assert.equal(spy.count, 0, 'nothing decoded');
    assert.ok(Object.isFrozen(written.data) && Object.isFrozen(written.metadata.labels));
    assert.equal(Object.isFrozen(written.metadata), false, 'the writer\'s own metadata is not shared: it sets the resourceVersion there');

    // Bytes other than those offered (a copy, as a backend that does not keep the array stores) are decoded.
    const other = { ...written, metadata: { name: 'offered-copy', namespace: 'ns' } } as KubeObject;
    const otherValue = encodeForStorage(other);
    offerWritten(otherValue, other);
    await f.backend.create(key('ns', 'offered-copy'), otherValue.slice());
    const copied = await nextEvent(watcher);
    assert.equal(copied.metadataView!.metadata.name, 'offered-copy');
    assert.equal(spy.count, 1, 'the copy\'s metadata view came from its JSON');
    assert.notEqual(copied.object.data, other.data);
  });

  test('a metadata view offered with bytes encoded elsewhere is the state\'s view on arrival, as its JSON would give it', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plinth-cache-view-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const f = await startCache(t, { encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere, writtenObject, writtenView }, new SqliteBackend(path.join(dir, 'db')));
    const watcher = f.cache.watch({ prefix: PREFIX, fromRevision: f.cache.revision });
    t.after(() => watcher.close());
    // As the apply worker writes: the bytes and the view made where the object was, no object offered.
    const written = {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: 'viewed', namespace: 'ns', labels: { l: 'v' }, selfLink: '/not/stored', resourceVersion: '999',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'owner', uid: 'u-1' }],
        managedFields: [{ manager: 'm', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }],
      },
      data: { a: '1' },
    } as KubeObject;
    const value = encodeForStorage(written);
    offerWrittenView(value, metadataViewJson(written));
    const revision = await f.backend.create(key('ns', 'viewed'), value);
    const event = await nextEvent(watcher);
    const state = f.cache.get(key('ns', 'viewed')) as CachedState;
    const held = state.heldMetadataView;
    assert.ok(held !== undefined, 'the state holds the offered view before anyone reads it');
    assert.deepEqual(held, metadataViewOf(state.json), 'the view its JSON gives');
    assert.equal(held.metadata.resourceVersion, String(revision));
    assert.equal(held.metadata.managedFields, undefined);
    assert.ok(Object.isFrozen(held) && Object.isFrozen(held.metadata.ownerReferences));
    assert.equal(event.metadataView, held);

    // Without a view offered, the state makes its view when first asked, from its JSON.
    const plain = encodeForStorage({ ...written, metadata: { ...written.metadata, name: 'plain' } });
    await f.backend.create(key('ns', 'plain'), plain);
    await nextEvent(watcher);
    const plainState = f.cache.get(key('ns', 'plain')) as CachedState;
    assert.equal(plainState.heldMetadataView, undefined);
    assert.equal(plainState.metadataView.metadata.name, 'plain');
  });

  test('a cache that does not freeze takes nothing: the writer\'s caller could change it', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plinth-cache-adopt-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const f = await startCache(t, { freeze: false, encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere }, new SqliteBackend(path.join(dir, 'db')));
    const written: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w', namespace: 'ns' }, data: { a: '1' } };
    const revision = await f.backend.create(key('ns', 'w'), encodeForStorage(written));
    await f.cache.waitForRevision(revision);
    assert.equal(f.cache.adopt(key('ns', 'w'), revision, { ...written, metadata: { ...written.metadata, resourceVersion: String(revision) } }), false);
    assert.equal(Object.isFrozen(written.data), false);
  });
});

test('a cache that a request starts loads and follows its backend outside that request', async (t) => {
  // What the backend sees of the request: a cache shared by every request must not read as the one that started it.
  const seen: Array<string | undefined> = [];
  class Spying extends MemoryBackend {
    override list(...args: Parameters<MemoryBackend['list']>) {
      seen.push(currentRequest()?.user.name);
      return super.list(...args);
    }
  }
  const backend = new Spying();
  await backend.create(key('ns', 'a'), configMap('ns', 'a'));
  const started = runInRequestContext({ user: { name: 'first-caller', uid: '', groups: [] }, addWarning: () => {} }, () => startCache(t, {}, backend));
  const f = await started;
  assert.deepEqual(seen, [undefined], 'the load is nobody\'s');
  assert.equal(f.cache.size, 1);
});
