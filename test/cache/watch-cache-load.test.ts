// The watch cache's loading: lazy start, loads in pages at one revision, retries, and
// what waiting for a load answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../src/api/index.ts';
import { WatchCache, type WatchCacheOptions } from '../../src/cache/index.ts';
import { GatedBackend } from '../helpers/gated-backend.ts';
import { configMap, decodeConfigMap, key, PREFIX } from './fixtures.ts';

function newCache(t: { after(fn: () => unknown): void }, backend: GatedBackend, opts: Partial<WatchCacheOptions> = {}) {
  const logs: string[] = [];
  const cache = new WatchCache({ backend, prefix: PREFIX, decode: decodeConfigMap, bookmark: { kind: 'ConfigMap', apiVersion: 'v1' }, log: (m) => logs.push(m), ...opts });
  t.after(async () => {
    cache.close();
    await backend.close();
  });
  return { cache, logs };
}

test('a cache reads nothing until started, and whenReady() starts it', async (t) => {
  const backend = new GatedBackend();
  await backend.create(key('ns', 'a'), configMap('ns', 'a'));
  const { cache } = newCache(t, backend);
  assert.equal(cache.ready, false);
  assert.equal(backend.listCalls(PREFIX), 0);
  await cache.whenReady();
  assert.equal(cache.ready, true);
  assert.equal(cache.get(key('ns', 'a'))?.object.metadata.name, 'a');
});

test('a load over several pages is one revision: writes made while it reads come after it as events', async (t) => {
  const backend = new GatedBackend();
  for (let i = 0; i < 1200; i++) await backend.create(key('ns', `cm-${String(i).padStart(4, '0')}`), configMap('ns', `cm-${i}`, { v: '0' }));
  // The first page is read, the second waits: the writes land between the pages.
  backend.hold(PREFIX, 1);
  const { cache } = newCache(t, backend);
  const loaded = cache.start();
  while (backend.listCalls(PREFIX) < 2) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cache.ready, false);
  const first = key('ns', 'cm-0000');
  const updated = await backend.update(first, configMap('ns', 'cm-0', { v: '1' }), (await backend.get(first))!.modRevision);
  await backend.delete(key('ns', 'cm-1100'));
  const last = await backend.create(key('ns', 'late'), configMap('ns', 'late'));
  backend.release(PREFIX);
  await loaded;
  await cache.waitForRevision(last);
  assert.equal((cache.get(first)?.object.data as Record<string, string> | undefined)?.v, '1');
  assert.equal(cache.get(first)?.revision, updated);
  assert.equal(cache.get(key('ns', 'cm-1100')), undefined);
  assert.ok(cache.get(key('ns', 'late')));
  const all = cache.list({ prefix: PREFIX });
  assert.equal(all?.items.length, 1200);
  assert.equal(all?.revision, last);
});

test('a page that is slow to decode leaves the event loop turning while the cache fills', async (t) => {
  const backend = new GatedBackend();
  for (let i = 0; i < 400; i++) await backend.create(key('ns', `cm-${String(i).padStart(4, '0')}`), configMap('ns', `cm-${i}`));
  // 0.25 ms of decoding per object: the one page takes 100 ms.
  const slowDecode: typeof decodeConfigMap = (kv) => {
    const until = performance.now() + 0.25;
    while (performance.now() < until);
    return decodeConfigMap(kv);
  };
  const { cache } = newCache(t, backend, { decode: slowDecode });
  let turns = 0;
  let loaded = false;
  const loading = cache.start().then(() => (loaded = true));
  // Each check is one macrotask: a request arriving meanwhile would be read in one of them.
  while (!loaded) await new Promise((resolve) => setImmediate(() => resolve(turns++)));
  await loading;
  assert.equal(cache.list({ prefix: PREFIX })?.items.length, 400);
  // Before, the page was decoded in one turn; now the loop turns every few milliseconds.
  assert.ok(turns >= 10, `the event loop turned ${turns} times while 100 ms of decoding ran`);
});

test('a first load that fails is retried until it succeeds', async (t) => {
  const backend = new GatedBackend();
  await backend.create(key('ns', 'a'), configMap('ns', 'a'));
  backend.failingLists = 1;
  const { cache, logs } = newCache(t, backend);
  await cache.start();
  assert.equal(cache.ready, true);
  assert.ok(cache.get(key('ns', 'a')));
  assert.ok(logs.some((line) => line.includes('loading failed')), logs.join('\n'));
});

test('closing a cache that is still loading rejects whoever waits for it with 503', async (t) => {
  const backend = new GatedBackend();
  backend.hold(PREFIX);
  const { cache } = newCache(t, backend);
  const waiting = cache.whenReady();
  cache.close();
  backend.release(PREFIX);
  await assert.rejects(waiting, (err) => isStatusError(err) && err.code === 503);
  assert.equal(cache.ready, false);
});

test('waiting for a load longer than loadWaitMs answers 429 "storage is (re)initializing", as upstream', async (t) => {
  const backend = new GatedBackend();
  backend.hold(PREFIX);
  const { cache } = newCache(t, backend, { loadWaitMs: 1 });
  await assert.rejects(cache.whenReady(), (err) => isStatusError(err) && err.code === 429 && err.reason === 'TooManyRequests' && err.message === 'storage is (re)initializing');
  backend.release(PREFIX);
  await cache.whenReady();
  assert.equal(cache.ready, true);
});

test('with metadataViewsOnLoad, each metadata view is made while loading, from the object just decoded', async (t) => {
  const v8 = await import('node:v8');
  const vm = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const backend = new GatedBackend();
  for (const name of ['a', 'b']) await backend.create(key('ns', name), configMap('ns', name, {}, { app: 'x' }));
  // The decoded object says where it came from; the cache's JSON (its encoding of the stored bytes) does not.
  const decode: WatchCacheOptions['decode'] = (kv) => {
    const object = decodeConfigMap(kv);
    return { ...object, metadata: { ...object.metadata, labels: { ...object.metadata.labels, from: 'decode' } } };
  };
  const encoder = new TextEncoder();
  const encode: WatchCacheOptions['encode'] = (kv) => {
    const stored = JSON.parse(new TextDecoder().decode(kv.value));
    return encoder.encode(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(kv.modRevision), ...stored.metadata }, data: stored.data }));
  };
  const views = async (metadataViewsOnLoad: boolean) => {
    const { cache } = newCache(t, backend, { decode, encode, metadataViewsOnLoad });
    await cache.whenReady();
    // The decoded objects are held weakly: once collected, a view taken now is read from the JSON.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    return ['a', 'b'].map((name) => cache.get(key('ns', name))!.metadataView.metadata.labels);
  };
  assert.deepEqual(await views(true), [{ app: 'x', from: 'decode' }, { app: 'x', from: 'decode' }]);
  assert.deepEqual(await views(false), [{ app: 'x' }, { app: 'x' }], 'without the option, read from the JSON');
});

test('a cache fills in pages of 100, or of the size its backend asks for', async (t) => {
  for (const [fillPageSize, calls] of [[undefined, 3], [1_000, 1]] as const) {
    const backend = new GatedBackend();
    if (fillPageSize !== undefined) Object.assign(backend, { fillPageSize });
    for (let i = 0; i < 250; i++) await backend.create(key('ns', `cm-${String(i).padStart(3, '0')}`), configMap('ns', `cm-${i}`));
    const limits: Array<number | undefined> = [];
    const list = backend.list.bind(backend);
    backend.list = (prefix, opts) => {
      limits.push(opts?.limit);
      return list(prefix, opts);
    };
    const { cache } = newCache(t, backend);
    await cache.whenReady();
    assert.equal(cache.size, 250);
    assert.deepEqual(limits, Array(calls).fill(fillPageSize ?? 100), `fillPageSize ${fillPageSize}`);
  }
});
