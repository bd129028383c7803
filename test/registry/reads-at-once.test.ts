// Reads answered at once from a caught-up watch cache (Store.listNow, getNow): answered
// only when as current as a consistent read, so a check made with them never misses a write
// that finished before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { startServer } from '../helpers/server.ts';
import { builtinType, memoryStore } from '../helpers/store.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { WatchCache } from '../../src/cache/index.ts';
import { resourcePrefix } from '../../src/registry/keys.ts';
import { Store } from '../../src/registry/store.ts';
import { MemoryBackend } from '../../src/storage/memory.ts';

/** `read` until it answers (the cache catches up between turns), at most a few hundred turns. */
async function answered<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail('never answered at once');
}

test('listNow and getNow answer what a consistent read answers, once the cache has caught up', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const quotas = server.registry.lookup('', 'v1', 'resourcequotas')!.store;
  const namespaces = server.registry.lookup('', 'v1', 'namespaces')!.store;
  const namespace = await server.newNamespace('at-once');

  await quotas.list(namespace); // loads the cache
  assert.deepEqual(await answered(() => quotas.listNow(namespace)), []);
  assert.equal((await answered(() => namespaces.getNow('', namespace)))?.metadata.name, namespace);
  assert.equal(await answered(() => namespaces.getNow('', 'no-such-namespace')), null);

  const quota: KubeObject = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace }, spec: { hard: { configmaps: '5' } } };
  await quotas.create(namespace, quota);
  // Whenever it answers after the create, the quota is there: never an answer from before it.
  for (let i = 0; i < 20; i++) {
    const now = quotas.listNow(namespace);
    if (now !== undefined) assert.deepEqual(now.map((q) => q.metadata.name), ['q']);
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual((await answered(() => quotas.listNow(namespace))).map((q) => q.metadata.name), ['q']);
});

test('a Store without a watch cache does not answer at once', () => {
  const { store } = memoryStore(builtinType('configmaps'));
  assert.equal(store.listNow('default'), undefined);
  assert.equal(store.getNow('default', 'x'), undefined);
});

test('listCachedNow answers what a list of consistency any answers, once the cache has loaded', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const namespace = await server.newNamespace('cached-now');
  const ranges = server.registry.lookup('', 'v1', 'limitranges')!.store;
  const range: KubeObject = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'r', namespace }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } };
  await ranges.create(namespace, range);
  const any = async () => (await ranges.list(namespace, { consistency: { kind: 'any' } })).items.map((item) => item.object.metadata.name);
  assert.deepEqual(await any(), ['r']);
  const now = ranges.listCachedNow(namespace);
  assert.deepEqual(now?.map((r) => r.metadata.name), ['r'], 'answered without waiting once the cache has loaded');
  assert.ok(Object.isFrozen(now![0]), 'the cache\'s shared objects');
  assert.deepEqual(ranges.listCachedNow('other-namespace'), []);
});

test('listCachedNow does not answer before the cache has loaded, or without one', async (t) => {
  const backend = new MemoryBackend();
  const type = builtinType('configmaps');
  const decoder: { store?: Store } = {};
  const cache = new WatchCache({ backend, prefix: resourcePrefix(type), decode: (kv) => decoder.store!.decode(kv), bookmark: { kind: type.kind, apiVersion: 'v1' }, log: () => {} });
  const store = new Store(type, backend, new AdmissionChain([]), cache);
  decoder.store = store;
  t.after(async () => {
    cache.close();
    await backend.close();
  });
  await store.create('ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  assert.equal(store.listCachedNow('ns'), undefined, 'not loaded');
  await cache.start();
  assert.deepEqual(store.listCachedNow('ns')?.map((c) => c.metadata.name), ['a']);
  assert.equal(memoryStore(type).store.listCachedNow('ns'), undefined, 'no cache');
});
