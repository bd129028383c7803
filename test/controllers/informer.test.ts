import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { apiVersionOf, gone, StatusError, type KubeObject } from '../../src/api/index.ts';
import { WatchCache, type CacheEvent, type CacheWatcher } from '../../src/cache/index.ts';
import { Informer, type InformerSource } from '../../src/controllers/runtime/index.ts';
import { builtinResourceTypes } from '../../src/registry/builtin/index.ts';
import { resourcePrefix } from '../../src/registry/keys.ts';
import type { ListPage, ListRequest, WatchRequest } from '../../src/registry/read-path.ts';
import { isEncodedHere, storedJsonWithResourceVersion } from '../../src/registry/codec.ts';
import { Store } from '../../src/registry/store.ts';
import { FlakyBackend } from '../cache/fixtures.ts';
import { FakeClock } from './fake-clock.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/index.ts';

/** What the handlers were told, as "add ns/name@rv", "update ns/name@rv->rv", "delete ns/name@rv". */
class Recorder {
  readonly seen: string[] = [];
  #waiters: { count: number; resolve(): void }[] = [];

  handlers() {
    const id = (o: KubeObject) => `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}@${o.metadata.resourceVersion}`;
    return {
      add: (o: KubeObject) => this.#record(`add ${id(o)}`),
      update: (old: KubeObject, o: KubeObject) => this.#record(`update ${id(old)}->${o.metadata.resourceVersion}`),
      delete: (o: KubeObject) => this.#record(`delete ${id(o)}`),
    };
  }

  /** Resolves once `count` calls were recorded in all. */
  until(count: number): Promise<void> {
    if (this.seen.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #record(line: string): void {
    this.seen.push(line);
    this.#waiters = this.#waiters.filter((w) => (this.seen.length >= w.count ? (w.resolve(), false) : true));
  }
}

/** A ConfigMaps Store on a watch cache on a backend whose watches can be made to fail, as serve() builds them. */
async function configMaps(t: TestContext, opts: { decodeLater?: boolean } = {}) {
  const backend = new FlakyBackend();
  const type = builtinResourceTypes().find((rt) => rt.group === '' && rt.resource === 'configmaps')!;
  const decoder: { store?: Store } = {};
  const cache = new WatchCache({
    backend,
    prefix: resourcePrefix(type),
    decode: (kv) => decoder.store!.decode(kv),
    bookmark: { kind: type.kind, apiVersion: apiVersionOf(type.group, type.version) },
    log: () => {},
    // As serve() builds it: what this process wrote is kept as JSON until its object is asked for.
    ...(opts.decodeLater ? { encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere } : {}),
  });
  const store = new Store(type, backend, new AdmissionChain([]), cache);
  decoder.store = store;
  await cache.start();
  t.after(async () => {
    cache.close();
    await backend.close();
  });
  /** Creates a ConfigMap in "ns"; answers its resourceVersion. */
  const put = async (name: string, data: Record<string, string> = {}) =>
    (await store.create('ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })).metadata.resourceVersion!;
  return { backend, cache, store, put };
}

/** Passes calls on to a Store and records them ("list", "watch RV" once answered), so a test can wait for the n-th. */
class RecordingSource implements InformerSource {
  readonly calls: string[] = [];
  readonly #inner: InformerSource;
  #waiters: { count: number; resolve(): void }[] = [];

  constructor(inner: InformerSource) {
    this.#inner = inner;
  }

  async list(namespace: string, req?: ListRequest): Promise<ListPage> {
    const page = await this.#inner.list(namespace, req);
    this.#called('list');
    return page;
  }

  async watch(namespace: string, req: WatchRequest): Promise<CacheWatcher> {
    const watcher = await this.#inner.watch(namespace, req);
    this.#called(`watch ${req.resourceVersion}`);
    return watcher;
  }

  until(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #called(call: string): void {
    this.calls.push(call);
    this.#waiters = this.#waiters.filter((w) => (this.calls.length >= w.count ? (w.resolve(), false) : true));
  }
}

describe('Informer on a Store and its watch cache', () => {
  test('the first list fills the store and calls add for each object before start resolves', async (t) => {
    const { store, put } = await configMaps(t);
    const a = await put('a', { k: '1' });
    const b = await put('b');
    const recorder = new Recorder();
    const informer = new Informer({ source: store, resource: 'configmaps', log: () => {} });
    informer.addHandlers(recorder.handlers());
    t.after(() => informer.stop());
    await informer.start();
    assert.equal(informer.hasSynced, true);
    assert.deepEqual(recorder.seen, [`add ns/a@${a}`, `add ns/b@${b}`]);
    assert.deepEqual(informer.store.keys().sort(), ['ns/a', 'ns/b']);
    assert.deepEqual(informer.store.get('ns/a')?.data, { k: '1' });
    assert.equal(informer.resourceVersion, b);
  });

  for (const decodeLater of [false, true]) {
    test(`a metadata-only informer holds kind, apiVersion and metadata without managedFields${decodeLater ? ', read from JSON not yet decoded' : ''}`, async (t) => {
      const { store, put } = await configMaps(t, { decodeLater });
      await store.apply('ns', 'a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { app: 'x' } }, data: { k: '1' } }, { fieldManager: 'tool', force: true });
      const recorder = new Recorder();
      const informer = new Informer({ source: store, resource: 'configmaps', log: () => {}, metadataOnly: true });
      informer.addHandlers(recorder.handlers());
      t.after(() => informer.stop());
      await informer.start();
      const b = await put('b', { big: 'x'.repeat(1000) });
      await recorder.until(2);
      const full = await store.find('ns', 'a');
      assert.ok(full!.metadata.managedFields!.length > 0, 'the object has managed fields');
      const { managedFields: _managedFields, ...metadata } = full!.metadata;
      assert.deepEqual(informer.store.get('ns/a'), { kind: 'ConfigMap', apiVersion: 'v1', metadata });
      const added = informer.store.get('ns/b')!;
      assert.deepEqual(Object.keys(added).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(added.metadata.resourceVersion, b);
      assert.equal(added.metadata.managedFields, undefined);
      assert.ok(Object.isFrozen(added.metadata), 'shared with the cache, so frozen like its objects');
      // The cache's objects are whole still.
      assert.deepEqual((await store.find('ns', 'b'))!.data, { big: 'x'.repeat(1000) });
    });
  }

  test('the watch cache keeps the object its Store wrote rather than decoding the stored JSON again', async (t) => {
    // As serve() builds it: SQLite keeps the array the Store encoded, so the cache knows it for the Store's.
    const dir = mkdtempSync(path.join(tmpdir(), 'plinth-informer-'));
    const backend = new SqliteBackend(path.join(dir, 'db'));
    const type = builtinResourceTypes().find((rt) => rt.group === '' && rt.resource === 'configmaps')!;
    const decoder: { store?: Store } = {};
    const cache = new WatchCache({
      backend, prefix: resourcePrefix(type), decode: (kv) => decoder.store!.decode(kv), log: () => {},
      bookmark: { kind: type.kind, apiVersion: apiVersionOf(type.group, type.version) },
      encode: storedJsonWithResourceVersion, decodesLater: isEncodedHere,
    });
    const store = new Store(type, backend, new AdmissionChain([]), cache);
    decoder.store = store;
    t.after(async () => {
      cache.close();
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await cache.start();
    const created = await store.create('ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w' }, data: { k: 'v' } });
    const updated = (await store.update('ns', 'w', { ...created, data: { k: 'v2' } }, {})).object;
    const cached = cache.get('/registry/configmaps/ns/w')!;
    assert.equal(cached.revision, Number(updated.metadata.resourceVersion));
    assert.equal(cached.object.data, updated.data, 'shared with the answer, so not decoded');
    assert.equal(JSON.stringify(cached.object), new TextDecoder().decode(cached.json));
    assert.ok(Object.isFrozen(updated.data), 'and frozen');
  });

  test('adds, updates and deletes reach the handlers and the store', async (t) => {
    const { store, put } = await configMaps(t);
    const a = await put('a');
    const b = await put('b');
    const recorder = new Recorder();
    const informer = new Informer({ source: store, resource: 'configmaps', log: () => {} });
    informer.addHandlers(recorder.handlers());
    t.after(() => informer.stop());
    await informer.start();
    const c = await put('c');
    const { object: updated } = await store.update('ns', 'a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } });
    await store.delete('ns', 'b');
    await recorder.until(5);
    const a2 = updated.metadata.resourceVersion!;
    // A deletion's event carries the revision of the deletion, which is where the informer is now.
    const deletedAt = informer.resourceVersion;
    assert.ok(Number(deletedAt) > Number(a2));
    assert.deepEqual(recorder.seen, [`add ns/a@${a}`, `add ns/b@${b}`, `add ns/c@${c}`, `update ns/a@${a}->${a2}`, `delete ns/b@${deletedAt}`]);
    assert.deepEqual(informer.store.keys().sort(), ['ns/a', 'ns/c']);
    assert.deepEqual(informer.store.get('ns/a')?.data, { k: 'v' });
  });

  test('handlers added after the first list hear of the stored objects as adds', async (t) => {
    const { store, put } = await configMaps(t);
    const a = await put('a');
    const informer = new Informer({ source: store, resource: 'configmaps', log: () => {} });
    t.after(() => informer.stop());
    await informer.start();
    const recorder = new Recorder();
    informer.addHandlers(recorder.handlers());
    assert.deepEqual(recorder.seen, [`add ns/a@${a}`]);
  });

  test('lists again when the watch cache re-initialises (410), then goes on following', async (t) => {
    const { backend, cache, store, put } = await configMaps(t);
    const a = await put('a');
    const recorder = new Recorder();
    const logs: string[] = [];
    const source = new RecordingSource(store);
    const informer = new Informer({ source, resource: 'configmaps', log: (m) => logs.push(m) });
    informer.addHandlers(recorder.handlers());
    t.after(() => informer.stop());
    await informer.start();
    await source.until(2);
    // A compaction under the cache's backend watch: the cache re-lists and ends its watchers with 410.
    backend.failWatches('Compacted');
    await source.until(4);
    assert.deepEqual(source.calls, ['list', `watch ${a}`, 'list', `watch ${a}`]);
    assert.equal(informer.lists, 2);
    assert.match(logs.join('\n'), /informer for configmaps: watch expired: too old resource version: the watch cache was re-initialized/);
    const b = await put('b');
    await recorder.until(3);
    assert.deepEqual(recorder.seen, [`add ns/a@${a}`, `update ns/a@${a}->${a}`, `add ns/b@${b}`]);
    assert.deepEqual(informer.store.keys().sort(), ['ns/a', 'ns/b']);
    assert.equal(cache.watcherCount, 1);
  });

  test('stop ends the watch and a stopped informer does not start again', async (t) => {
    const { cache, store } = await configMaps(t);
    const source = new RecordingSource(store);
    const informer = new Informer({ source, resource: 'configmaps', log: () => {} });
    t.after(() => informer.stop());
    await informer.start();
    await source.until(2);
    assert.equal(cache.watcherCount, 1);
    await informer.stop();
    assert.equal(cache.watcherCount, 0);
    await informer.stop();
    await assert.rejects(informer.start(), /stopped/);
  });
});

/** A watch the test feeds by hand. */
class ScriptedWatcher implements CacheWatcher {
  closed = false;
  readonly queuedBytes = 0;
  readonly ended = new Promise<void>(() => {});
  #queue: (CacheEvent | Error)[] = [];
  #wake: (() => void) | undefined;

  push(type: CacheEvent['type'], object: KubeObject): void {
    this.#queue.push({ type, object, json: new Uint8Array(), revision: Number(object.metadata.resourceVersion) });
    this.#wake?.();
  }

  fail(err: Error): void {
    this.#queue.push(err);
    this.#wake?.();
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }

  /** As the cache's watcher: the events queued now, without waiting (never a failure: iteration throws those). */
  takeReady(max: number): CacheEvent[] {
    const ready: CacheEvent[] = [];
    while (ready.length < max && this.#queue.length > 0 && !(this.#queue[0] instanceof Error)) ready.push(this.#queue.shift() as CacheEvent);
    return ready;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<CacheEvent> {
    for (;;) {
      if (this.closed) return;
      const next = this.#queue.shift();
      if (next instanceof Error) throw next;
      if (next !== undefined) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}

function configMap(name: string, resourceVersion: number, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(resourceVersion) }, data };
}

/**
 * A source whose list answers what the test sets and whose watches the test drives:
 * the only way to make a list or a watch fail at a chosen moment, or to leave a gap
 * of changes the informer never gets as events.
 */
class ScriptedSource implements InformerSource {
  objects: KubeObject[] = [];
  resourceVersion = '1';
  /** Errors the next list calls fail with, in order. */
  listFailures: Error[] = [];
  /** Errors the next watch calls fail with, in order. */
  watchFailures: Error[] = [];
  readonly calls: string[] = [];
  readonly watchers: ScriptedWatcher[] = [];
  #waiters: { count: number; resolve(): void }[] = [];

  async list(_namespace: string, _req?: ListRequest): Promise<ListPage> {
    this.#called('list');
    const failure = this.listFailures.shift();
    if (failure !== undefined) throw failure;
    return { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: this.resourceVersion }, items: this.objects.map((object) => ({ object })) };
  }

  async watch(_namespace: string, req: WatchRequest): Promise<CacheWatcher> {
    this.#called(`watch ${req.resourceVersion}`);
    const failure = this.watchFailures.shift();
    if (failure !== undefined) throw failure;
    const watcher = new ScriptedWatcher();
    this.watchers.push(watcher);
    return watcher;
  }

  /** Resolves once `count` calls were made in all. */
  until(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  get lastWatcher(): ScriptedWatcher {
    return this.watchers[this.watchers.length - 1]!;
  }

  #called(call: string): void {
    this.calls.push(call);
    this.#waiters = this.#waiters.filter((w) => (this.calls.length >= w.count ? (w.resolve(), false) : true));
  }
}

test('events that arrive together reach the handlers in one step, in order, a failing handler not stopping them', async (t) => {
  const source = new ScriptedSource();
  const seen: string[] = [];
  let seenByNextMicrotask: string[] | undefined;
  const informer = new Informer({ source, resource: 'configmaps', clock: new FakeClock(), log: () => {} });
  informer.addHandlers({
    add(object) {
      seen.push(object.metadata.name!);
      if (seenByNextMicrotask === undefined) queueMicrotask(() => (seenByNextMicrotask = [...seen]));
      if (object.metadata.name === 'b') throw new Error('handler bug');
    },
  });
  t.after(() => informer.stop());
  await informer.start();
  await source.until(2);
  const watcher = source.lastWatcher;
  for (const [i, name] of ['a', 'b', 'c', 'd'].entries()) watcher.push('ADDED', configMap(name, 2 + i));
  for (let turn = 0; seen.length < 4 && turn < 1000; turn++) await new Promise((resolve) => setImmediate(resolve));
  // No promise per event: all four were handled before the first handler's microtask ran.
  assert.deepEqual(seenByNextMicrotask, ['a', 'b', 'c', 'd']);
  assert.deepEqual(informer.store.keys().sort(), ['ns/a', 'ns/b', 'ns/c', 'ns/d']);
  assert.equal(informer.resourceVersion, '5');
});

describe('Informer recovering from ended watches', () => {
  test('changes missed while the watch was gone become adds, updates and deletes after the re-list', async (t) => {
    const source = new ScriptedSource();
    source.objects = [configMap('a', 1), configMap('b', 1)];
    const recorder = new Recorder();
    const informer = new Informer({ source, resource: 'configmaps', clock: new FakeClock(), log: () => {} });
    informer.addHandlers(recorder.handlers());
    t.after(() => informer.stop());
    await informer.start();
    await source.until(2);
    // Meanwhile a is deleted, b changed and c made; the watch learns none of it and expires.
    source.objects = [configMap('b', 5, { k: 'v' }), configMap('c', 6)];
    source.resourceVersion = '6';
    source.watchers[0]!.fail(gone('too old resource version: 1 (4)'));
    await source.until(4);
    assert.deepEqual(source.calls, ['list', 'watch 1', 'list', 'watch 6']);
    assert.deepEqual(recorder.seen, ['add ns/a@1', 'add ns/b@1', 'update ns/b@1->5', 'add ns/c@6', 'delete ns/a@1']);
    assert.deepEqual(informer.store.keys().sort(), ['ns/b', 'ns/c']);
  });

  test('a watch refused with 410 lists again', async (t) => {
    const source = new ScriptedSource();
    source.watchFailures = [gone('too old resource version: 1 (3)')];
    const informer = new Informer({ source, resource: 'configmaps', clock: new FakeClock(), log: () => {} });
    t.after(() => informer.stop());
    await informer.start();
    await source.until(4);
    assert.deepEqual(source.calls, ['list', 'watch 1', 'list', 'watch 1']);
  });

  test('a watch that ends otherwise starts again from the last resourceVersion seen, without a list', async (t) => {
    const source = new ScriptedSource();
    const recorder = new Recorder();
    const informer = new Informer({ source, resource: 'configmaps', clock: new FakeClock(), log: () => {} });
    informer.addHandlers(recorder.handlers());
    t.after(() => informer.stop());
    await informer.start();
    await source.until(2);
    source.lastWatcher.push('ADDED', configMap('a', 7));
    source.lastWatcher.push('BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '9' } });
    source.lastWatcher.fail(new Error('watch on /registry/configmaps/ left more than 1000 events unread'));
    await source.until(3);
    source.lastWatcher.push('MODIFIED', configMap('a', 10));
    await recorder.until(2);
    source.lastWatcher.close();
    await source.until(4);
    assert.deepEqual(source.calls, ['list', 'watch 1', 'watch 9', 'watch 10']);
    assert.deepEqual(recorder.seen, ['add ns/a@7', 'update ns/a@7->10']);
  });

  test('while attempts keep failing they back off on the clock; the first retry is at once', async (t) => {
    const clock = new FakeClock();
    const source = new ScriptedSource();
    const unavailable = () => new StatusError(503, 'ServiceUnavailable', 'the watch cache is closed');
    source.listFailures = [unavailable(), unavailable(), unavailable(), unavailable()];
    const logs: string[] = [];
    const informer = new Informer({ source, resource: 'configmaps', clock, retry: { baseMs: 50, maxMs: 120 }, log: (m) => logs.push(m) });
    t.after(() => informer.stop());
    let synced = false;
    const started = informer.start().then(() => (synced = true));
    await source.until(2);
    const delays: number[] = [];
    for (let calls = 3; calls <= 5; calls++) {
      // The informer sets its timer right after the failed call settles.
      await clock.untilPending();
      delays.push(clock.pendingDelays[0]!);
      assert.equal(synced, false);
      clock.advance(delays[delays.length - 1]!);
      await source.until(calls);
    }
    await started;
    assert.deepEqual(delays, [50, 100, 120]);
    assert.deepEqual(source.calls.slice(0, 5), Array(5).fill('list'));
    assert.equal(logs.length, 4);
    assert.match(logs[0]!, /informer for configmaps: list failed: the watch cache is closed; listing again$/);
    assert.match(logs[1]!, /listing again in 50 ms$/);
  });

  test('stop during a wait between attempts cancels the timer and rejects a pending start', async () => {
    const clock = new FakeClock();
    const source = new ScriptedSource();
    source.listFailures = [new Error('down'), new Error('down')];
    const informer = new Informer({ source, resource: 'configmaps', clock, log: () => {} });
    const started = informer.start();
    started.catch(() => {});
    await source.until(2);
    await clock.untilPending();
    await informer.stop();
    assert.equal(clock.pending, 0);
    await assert.rejects(started, /stopped before its first list/);
  });

  test('stop closes the open watch', async () => {
    const source = new ScriptedSource();
    const informer = new Informer({ source, resource: 'configmaps', clock: new FakeClock(), log: () => {} });
    await informer.start();
    await source.until(2);
    await informer.stop();
    assert.equal(source.lastWatcher.closed, true);
    assert.deepEqual(source.calls, ['list', 'watch 1']);
  });
});

test('an informer taking in a long list lets the event loop turn meanwhile', async () => {
  const items = Array.from({ length: 400 }, (_, i) => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: `cm-${i}`, resourceVersion: '7' } } as KubeObject;
    return { object, json: new TextEncoder().encode(JSON.stringify(object)), revision: 7 };
  });
  let watching: (() => void) | undefined;
  const source: InformerSource = {
    list: async () => ({ items, metadata: { resourceVersion: '7' } }) as unknown as ListPage,
    // A watch that stays open without events until the informer closes it.
    watch: async () => ({
      [Symbol.asyncIterator]() {
        return { next: () => new Promise<IteratorResult<CacheEvent>>((resolve) => (watching = () => resolve({ done: true, value: undefined }))) };
      },
      close: () => watching?.(),
    }) as unknown as CacheWatcher,
  };
  const informer = new Informer({ source, resource: 'configmaps', log: () => {} });
  let added = 0;
  // 0.25 ms per object: the list takes 100 ms to take in.
  informer.addHandlers({
    add: () => {
      added++;
      const until = performance.now() + 0.25;
      while (performance.now() < until);
    },
  });
  let turns = 0;
  let synced = false;
  const started = informer.start().then(() => (synced = true));
  while (!synced) await new Promise((resolve) => setImmediate(() => resolve(turns++)));
  await started;
  assert.equal(added, 400);
  assert.equal(informer.store.keys().length, 400);
  assert.ok(turns >= 10, `the event loop turned ${turns} times while 100 ms of handlers ran`);
  await informer.stop();
});
