// The watch cache against a model: random writes, watchers with and without selectors
// (on the object or its metadata view) that start at random points (now, from a past
// revision, with the current state first) and read at random paces, so that some keep up
// and others fall behind their queue and read on from the history; values decoded on
// arrival, or kept as JSON and decoded when first read as a Store's are. Each watcher must get exactly the events the model derives
// from the writes, in order; with a short history, a watcher may instead end with 410,
// and then only after a prefix of them, naming the revision it had reached.

import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import type { CacheEvent, CacheWatcher, WatchCacheOptions } from '../../src/cache/index.ts';
import { encodeForStorage, isEncodedHere, offerWritten, storedJsonWithResourceVersion, writtenObject } from '../../src/registry/codec.ts';
import { SqliteBackend } from '../../src/storage/index.ts';
import { key, nextResult, PREFIX, startCache, type Fixture } from './fixtures.ts';
import { random } from '../helpers/random.ts';

interface State {
  v: string;
  app: string;
  /** The revision that wrote it. */
  revision: number;
}

/** One write as the model saw it: the key's state before and after (undefined: absent). */
interface Write {
  revision: number;
  key: string;
  name: string;
  before: State | undefined;
  after: State | undefined;
}

interface WatcherPlan {
  label: string;
  prefix: string;
  app: string | undefined;
  /** Events after this revision; with initialEvents, the state at it first. */
  from: number;
  initialEvents: boolean;
  watcher: CacheWatcher;
  received: string[];
  /** Fed by the fan-out at some point, and later not: it fell behind its queue. */
  wasLive: boolean;
  fellBehind: boolean;
  /** A next() waiting for an event, as the watch handler waits; `settled` once its answer is recorded. */
  pending: { settled: boolean } | undefined;
}

/** Whether the cache's fan-out feeds the watcher (else it reads the initial state or the history). */
const liveOf = (watcher: CacheWatcher): boolean => (watcher as unknown as { live: boolean }).live;

const describeEvent = (type: string, name: string, revision: number, state: State) => `${type} ${name} @${revision} v=${state.v} app=${state.app}`;

function seen(event: CacheEvent): string {
  const object = event.object as KubeObject & { data?: { v?: string } };
  return `${event.type} ${object.metadata.name} @${event.revision} v=${object.data?.v} app=${object.metadata.labels?.app}`;
}

/** What a watcher is owed: per write after `from`, ADDED, MODIFIED or DELETED as its selector sees the change. */
function expectedEvents(plan: WatcherPlan, writes: Write[], stateAt: (revision: number) => Map<string, State>): string[] {
  const matches = (s: State | undefined) => s !== undefined && (plan.app === undefined || s.app === plan.app);
  const out: string[] = [];
  if (plan.initialEvents) {
    const state = [...stateAt(plan.from)].filter(([k, s]) => k.startsWith(plan.prefix) && matches(s)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // Each object as it is, at the revision that wrote it.
    for (const [k, s] of state) out.push(describeEvent('ADDED', k.slice(k.lastIndexOf('/') + 1), s.revision, s));
  }
  for (const w of writes) {
    if (w.revision <= plan.from || !w.key.startsWith(plan.prefix)) continue;
    const was = matches(w.before);
    const is = matches(w.after);
    if (!was && is) out.push(describeEvent('ADDED', w.name, w.revision, w.after!));
    else if (was && is) out.push(describeEvent('MODIFIED', w.name, w.revision, w.after!));
    else if (was && !is) out.push(describeEvent('DELETED', w.name, w.revision, w.before!));
  }
  return out;
}

interface Run {
  plans: WatcherPlan[];
  writes: Write[];
  /** How the watchers that did not get all they were owed ended: an error, or 'done'. */
  ended: Map<WatcherPlan, unknown>;
  /** Errors of watches refused when asked for. */
  refused: unknown[];
  stateAt(revision: number): Map<string, State>;
}

/**
 * How values reach the cache: 'decoded', bytes of another writer, decoded on arrival; 'stored',
 * as a Store writes them on SQLite, kept as JSON until read, half of them with the written
 * object offered for the cache to take.
 */
type Mode = 'decoded' | 'stored';

async function startModelCache(t: TestContext, mode: Mode, opts: Partial<WatchCacheOptions>): Promise<Fixture> {
  if (mode === 'decoded') return startCache(t, opts);
  const dir = mkdtempSync(path.join(tmpdir(), 'plinth-cache-model-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return startCache(t, { encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere, writtenObject, ...opts }, new SqliteBackend(path.join(dir, 'db')));
}

async function run(t: TestContext, seed: number, mode: Mode, opts: Partial<WatchCacheOptions>, writesCount: number): Promise<Run> {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const f = await startModelCache(t, mode, opts);
  /** Creates or updates the object as the mode writes it: its revision. */
  const put = async (namespace: string, name: string, v: string, app: string): Promise<number> => {
    if (mode === 'decoded') return f.put(namespace, name, { v }, { app });
    const k = key(namespace, name);
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app } }, data: { v } } as KubeObject;
    const value = encodeForStorage(object);
    if (rand() < 0.5) offerWritten(value, object);
    const existing = await f.backend.get(k);
    return existing === undefined ? f.backend.create(k, value) : f.backend.update(k, value, existing.modRevision);
  };
  const live = new Map<string, State>();
  const writes: Write[] = [];
  const start = f.cache.revision;
  /** The model's state at a revision, replayed from the writes. */
  const stateAt = (revision: number): Map<string, State> => {
    const state = new Map<string, State>();
    for (const w of writes) {
      if (w.revision > revision) break;
      if (w.after === undefined) state.delete(w.key);
      else state.set(w.key, w.after);
    }
    return state;
  };
  const plans: WatcherPlan[] = [];
  const ended = new Map<WatcherPlan, unknown>();
  const refused: unknown[] = [];
  const addWatcher = async () => {
    const last = writes.at(-1)?.revision ?? start;
    await f.cache.waitForRevision(last);
    const prefix = pick([PREFIX, `${PREFIX}ns/`]);
    const app = pick([undefined, 'yes', 'no']);
    const kind = pick(['now', 'past', 'initial'] as const);
    const from = kind === 'past' ? pick([start, ...writes.map((w) => w.revision)]) : last;
    // A selector on labels may say it needs the metadata only (the cache then gives it the metadata view).
    const selects = (o: KubeObject) => o.metadata.labels?.app === app;
    const predicate = app === undefined ? undefined : rand() < 0.5 ? Object.assign(selects, { onMetadata: true as const }) : selects;
    let watcher: CacheWatcher;
    try {
      watcher = f.cache.watch({ prefix, fromRevision: from, predicate, initialEvents: kind === 'initial' });
    } catch (err) {
      // Older than the history: refused at once, as it should be when the history is short.
      refused.push(err);
      return;
    }
    plans.push({ label: `watcher ${plans.length} (${kind} from ${from}, prefix ${prefix}, app ${app ?? 'any'})`, prefix, app, from, initialEvents: kind === 'initial', watcher, received: [], wasLive: false, fellBehind: false, pending: undefined });
  };
  /** A next() that records its answer when it comes: an event, or how the watch ended. */
  const waitForNext = (plan: WatcherPlan) => {
    const pending = { settled: false };
    plan.pending = pending;
    plan.watcher[Symbol.asyncIterator]().next().then(
      (result) => {
        if (result.done === true) ended.set(plan, 'done');
        else plan.received.push(seen(result.value));
        pending.settled = true;
      },
      (err: unknown) => {
        ended.set(plan, err);
        pending.settled = true;
      },
    );
  };
  /** Reads as the watch handler does: wait for the next event, or take what is ready now. */
  const readSome = async (plan: WatcherPlan, max: number) => {
    if (ended.has(plan)) return;
    if (plan.pending !== undefined) {
      if (!plan.pending.settled) return;
      plan.pending = undefined;
    }
    if (rand() < 0.4) waitForNext(plan);
    else for (const event of plan.watcher.takeReady!(max)) plan.received.push(seen(event));
  };
  for (let i = 0; i < 3; i++) await addWatcher();
  for (let i = 0; i < writesCount; i++) {
    const namespace = pick(['ns', 'other']);
    const name = pick(['a', 'b', 'c', 'd']);
    const k = key(namespace, name);
    const before = live.get(k);
    let revision: number;
    let after: State | undefined;
    if (before !== undefined && rand() < 0.25) {
      revision = await f.del(namespace, name);
      live.delete(k);
    } else {
      const v = String(i);
      const app = pick(['yes', 'no']);
      revision = await put(namespace, name, v, app);
      after = { v, app, revision };
      live.set(k, after);
    }
    writes.push({ revision, key: k, name, before, after });
    if (rand() < 0.06) await addWatcher();
    // Let the cache take the write (the backend's watch is asynchronous), then read at each watcher's pace.
    if (rand() < 0.5) await f.cache.waitForRevision(revision);
    for (const plan of plans) {
      if (rand() < 0.3) await readSome(plan, 1 + Math.floor(rand() * 4));
      if (liveOf(plan.watcher)) plan.wasLive = true;
      else if (plan.wasLive) plan.fellBehind = true;
    }
  }
  await f.cache.waitForRevision(writes.at(-1)!.revision);
  // The rest, until each watcher has what it is owed, or it ends.
  for (const plan of plans) {
    const owed = expectedEvents(plan, writes, stateAt).length;
    // A next() still waiting gets the watcher's next event, or stays waiting when none is owed.
    if (plan.pending !== undefined && !plan.pending.settled && plan.received.length < owed) {
      const pending = plan.pending;
      for (let i = 0; i < 200 && !pending.settled; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.ok(pending.settled, `${plan.label}: its waiting next() got nothing`);
    }
    while (plan.received.length < owed && !ended.has(plan)) {
      let result: IteratorResult<CacheEvent, undefined>;
      try {
        result = await nextResult(plan.watcher);
      } catch (err) {
        ended.set(plan, err);
        break;
      }
      if (result.done === true) {
        ended.set(plan, 'done');
        break;
      }
      plan.received.push(seen(result.value));
    }
  }
  return { plans, writes, ended, refused, stateAt };
}

describe('the watch cache against a model', () => {
  test('every watcher gets exactly its events, in order, whether it keeps up or falls behind its queue', async (t) => {
    let fellBehind = 0;
    for (const mode of ['decoded', 'stored'] as const) for (let seed = 1; seed <= 40; seed++) {
      const rand = random(seed * 7919);
      const opts: Partial<WatchCacheOptions> = { watcherQueueLimit: 1 + Math.floor(rand() * 4) };
      // Some runs bound the queue by bytes instead (an event here is ~200 bytes).
      if (rand() < 0.4) Object.assign(opts, { watcherQueueLimit: 1_000, watcherQueueBytes: 300 + Math.floor(rand() * 900) });
      await t.test(`${mode}, seed ${seed}`, async (st) => {
        const { plans, writes, ended, refused, stateAt } = await run(st, seed, mode, opts, 80);
        assert.deepEqual(refused, []);
        for (const plan of plans) {
          if (plan.fellBehind) fellBehind++;
          assert.equal(ended.get(plan), undefined, `${plan.label} ended early (${String(ended.get(plan))})`);
          assert.deepEqual(plan.received, expectedEvents(plan, writes, stateAt), plan.label);
          assert.deepEqual(plan.watcher.takeReady!(10).map(seen), [], `${plan.label}: nothing more`);
          plan.watcher.close();
        }
      });
    }
    assert.ok(fellBehind >= 40, `watchers that fell behind their queue: ${fellBehind}`);
  });

  test('with a short history, a watcher that falls out of it ends with 410 after a prefix of its events, naming the last it had', async (t) => {
    let endedSome = false;
    for (const mode of ['decoded', 'stored'] as const) for (let seed = 1; seed <= 30; seed++) {
      const rand = random(seed * 104729);
      const opts: Partial<WatchCacheOptions> = { watcherQueueLimit: 1 + Math.floor(rand() * 3), maxHistoryEvents: 6 + Math.floor(rand() * 12) };
      await t.test(`${mode}, seed ${seed}`, async (st) => {
        const { plans, writes, ended, refused, stateAt } = await run(st, seed, mode, opts, 60);
        for (const err of refused) assert.ok(isStatusError(err) && err.code === 410, `only a 410 refuses a watch: ${String(err)}`);
        for (const plan of plans) {
          const owed = expectedEvents(plan, writes, stateAt);
          const end = ended.get(plan);
          if (end === undefined) {
            assert.deepEqual(plan.received, owed, plan.label);
            continue;
          }
          endedSome = true;
          assert.ok(isStatusError(end) && end.code === 410, `${plan.label} ended with ${String(end)}`);
          assert.deepEqual(plan.received, owed.slice(0, plan.received.length), `${plan.label}: a prefix of its events`);
          // It names the revision it got through: it had every event owed up to it, and the history holds none of its own.
          const [, named, oldest] = (/^too old resource version: (\d+) \((\d+)\)$/.exec(end.message) ?? []).map(Number);
          const revisionOf = (event: string) => Number(/@(\d+)/.exec(event)![1]);
          const lastHad = plan.received.length > 0 ? revisionOf(plan.received.at(-1)!) : plan.from;
          assert.ok(named !== undefined && named >= Math.max(plan.from, lastHad), `${plan.label}: ${end.message} names no revision it got through (last had ${lastHad})`);
          assert.ok(owed.slice(plan.received.length).every((e) => revisionOf(e) > named!), `${plan.label}: ${end.message}, yet an event at or before it is missing`);
          assert.ok(named! < oldest!, `${plan.label}: ${end.message}`);
          assert.equal((await nextResult(plan.watcher)).done, true, `${plan.label}: done after the 410`);
        }
        for (const plan of plans) plan.watcher.close();
      });
    }
    assert.ok(endedSome, 'some watcher fell out of the history');
  });
});
