// Updates start from the watch cache's copy of the object (as upstream's cacher suggests
// its object to GuaranteedUpdate) instead of reading the storage first. The copy may be
// behind the storage: these tests hold the cache's event feed back so that it is, and
// check that nothing the stale copy would decide reaches the client.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { WatchCache } from '../../src/cache/index.ts';
import { objectKey, resourcePrefix } from '../../src/registry/keys.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { Store } from '../../src/registry/store.ts';
import { MemoryBackend, type KeyValue, type StorageEvent, type Watch } from '../../src/storage/index.ts';
import { builtinType } from '../helpers/store.ts';

/** A memory backend that counts gets and can hold its watches' events back. */
class HeldBackend extends MemoryBackend {
  gets = 0;
  #held = false;
  #release: Array<() => void> = [];

  override get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    this.gets++;
    return super.get(key, opts);
  }

  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    for (const resume of this.#release.splice(0)) resume();
  }

  override watch(prefix: string, fromRevision: number): Watch {
    const inner = super.watch(prefix, fromRevision);
    const backend = this;
    return {
      close: () => inner.close(),
      async *[Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
        for await (const event of inner) {
          while (backend.#held) await new Promise<void>((resolve) => backend.#release.push(resolve));
          yield event;
        }
      },
    };
  }
}

const type = builtinType('configmaps');

async function cachedStore(t: TestContext, of: ResourceType = type): Promise<{ store: Store; backend: HeldBackend; cache: WatchCache }> {
  const backend = new HeldBackend();
  const decoder: { store?: Store } = {};
  const cache = new WatchCache({ backend, prefix: resourcePrefix(of), decode: (kv) => decoder.store!.decode(kv), bookmark: { kind: of.kind, apiVersion: 'v1' } });
  const store = new Store(of, backend, new AdmissionChain([]), cache);
  decoder.store = store;
  t.after(async () => {
    backend.release();
    cache.close();
    await backend.close();
  });
  await cache.start();
  return { store, backend, cache };
}

function configMap(data: Record<string, string>, resourceVersion?: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', ...(resourceVersion ? { resourceVersion } : {}) }, data };
}

/** Turns until the cache holds `revision` of the ConfigMap (or of `name` of `of`). */
async function cachedAt(cache: WatchCache, revision: string, of: ResourceType = type, name = 'cm'): Promise<void> {
  const key = objectKey(of, 'ns', name);
  for (let i = 0; i < 500 && String(cache.get(key)?.revision) !== revision; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(String(cache.get(key)?.revision), revision, 'the cache never caught up');
}

/** Writes straight to the storage, past the Store and its cache: another replica's write. */
async function writeBehindCache(backend: MemoryBackend, data: Record<string, string>): Promise<string> {
  const key = objectKey(type, 'ns', 'cm');
  const kv = (await backend.get(key))!;
  const stored = JSON.parse(Buffer.from(kv.value).toString('utf8')) as KubeObject;
  const revision = await backend.update(key, Buffer.from(JSON.stringify({ ...stored, data })), kv.modRevision);
  return String(revision);
}

/**
 * A ConfigMap created with `{a: '1'}` and seen by the cache, then written with `stored`
 * behind the cache's back: the cache's copy is one version behind the storage.
 */
async function staleCopy(t: TestContext, stored: Record<string, string>): Promise<{ store: Store; backend: HeldBackend; created: KubeObject; moved: string }> {
  const { store, backend, cache } = await cachedStore(t);
  const created = await store.create('ns', configMap({ a: '1' }));
  await cachedAt(cache, created.metadata.resourceVersion!);
  backend.hold();
  const moved = await writeBehindCache(backend, stored);
  return { store, backend, created, moved };
}

test('an update the cache can start from reads nothing from the storage', async (t) => {
  const { store, backend, cache } = await cachedStore(t);
  const created = await store.create('ns', configMap({ a: '1' }));
  await cachedAt(cache, created.metadata.resourceVersion!);
  const before = backend.gets;
  const { object } = await store.update('ns', 'cm', configMap({ a: '2' }, created.metadata.resourceVersion));
  assert.deepEqual(object.data, { a: '2' });
  assert.equal(backend.gets, before);
  assert.deepEqual((await store.get('ns', 'cm')).data, { a: '2' });
});

test('what a current copy decides stands after one storage read, without a second attempt', async (t) => {
  const { store, backend, cache } = await cachedStore(t);
  const created = await store.create('ns', configMap({ a: '1' }));
  await cachedAt(cache, created.metadata.resourceVersion!);
  let attempts = 0;
  const before = backend.gets;
  // Nothing to write: answered as stored, the storage read only to see that the copy is current.
  const { object } = await store.guaranteedUpdate('ns', 'cm', undefined, {}, (current) => {
    attempts++;
    return { ...current! };
  });
  assert.equal(object.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(attempts, 1);
  assert.equal(backend.gets - before, 1);
  // A resourceVersion that is not the object's: 409 the same way.
  await assert.rejects(store.update('ns', 'cm', configMap({ a: '2' }, '1')), (err) => isStatusError(err) && err.code === 409);
  assert.equal(backend.gets - before, 2);
});

test('a patch from a stale cached copy is made again on the stored object', async (t) => {
  const { store, backend } = await staleCopy(t, { a: '1', b: 'from elsewhere' });
  const { object } = await store.guaranteedUpdate('ns', 'cm', undefined, {}, (current) => ({ ...current!, data: { ...(current!.data as Record<string, string>), c: 'patched' } }));
  // Made on the stale copy it would have lost b.
  assert.deepEqual(object.data, { a: '1', b: 'from elsewhere', c: 'patched' });
  backend.release();
  assert.deepEqual((await store.get('ns', 'cm')).data, { a: '1', b: 'from elsewhere', c: 'patched' });
});

test('a resourceVersion newer than the cached copy is checked against the storage', async (t) => {
  const { store, created, moved } = await staleCopy(t, { a: 'elsewhere' });
  // The client read the newer object (from the storage): its update is not a conflict.
  const { object } = await store.update('ns', 'cm', configMap({ a: 'client' }, moved));
  assert.deepEqual(object.data, { a: 'client' });
  // Pinned to the version the cache still holds, it is one: 409.
  await assert.rejects(store.update('ns', 'cm', configMap({ a: 'late' }, created.metadata.resourceVersion)), (err) => isStatusError(err) && err.code === 409);
});

test('an update that changes nothing of the cached copy is still written when the storage moved on', async (t) => {
  const { store, backend, moved } = await staleCopy(t, { a: 'elsewhere' });
  // Setting a back to 1 is no change to the cached copy, but a change to what is stored.
  const { object } = await store.update('ns', 'cm', configMap({ a: '1' }));
  assert.deepEqual(object.data, { a: '1' });
  assert.ok(Number(object.metadata.resourceVersion) > Number(moved), 'written after the other write');
  backend.release();
  assert.deepEqual((await store.get('ns', 'cm')).data, { a: '1' });
});

test('a refusal made on a stale copy is decided again on the stored object', async (t) => {
  const { store, backend, cache } = await cachedStore(t);
  const created = await store.create('ns', configMap({ a: '1' }));
  await cachedAt(cache, created.metadata.resourceVersion!);
  backend.hold();
  // Deleted and created again elsewhere: the cache still holds the old uid.
  const key = objectKey(type, 'ns', 'cm');
  const stored = JSON.parse(Buffer.from((await backend.get(key))!.value).toString('utf8')) as KubeObject;
  await backend.delete(key);
  await backend.create(key, Buffer.from(JSON.stringify({ ...stored, metadata: { ...stored.metadata, uid: 'the-new-uid' } })));
  // The client names the new uid: a precondition the stored object meets.
  const { object } = await store.update('ns', 'cm', { ...configMap({ a: '2' }), metadata: { name: 'cm', namespace: 'ns', uid: 'the-new-uid' } });
  assert.equal(object.metadata.uid, 'the-new-uid');
  assert.deepEqual(object.data, { a: '2' });
  // The old uid is refused by the stored object too: 409.
  await assert.rejects(
    store.update('ns', 'cm', { ...configMap({ a: '3' }), metadata: { name: 'cm', namespace: 'ns', uid: created.metadata.uid } }),
    (err) => isStatusError(err) && err.code === 409 && /Precondition failed: UID/.test(err.message),
  );
});

test('node ports allocated by a write the cache has not seen yet still belong to the Service', async (t) => {
  const services = builtinType('services');
  const { store, backend, cache } = await cachedStore(t, services);
  const created = await store.create('ns', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns' }, spec: { ports: [{ port: 80 }] } });
  await cachedAt(cache, created.metadata.resourceVersion!, services, 'web');
  backend.hold();
  // Made a NodePort Service (its port allocated); the cache still holds it as ClusterIP.
  const { object: nodePorted } = await store.update('ns', 'web', { ...created, spec: { ...(created.spec as object), type: 'NodePort' } });
  // Updated as read: its node port is its own, not one someone else holds.
  const { object } = await store.update('ns', 'web', { ...nodePorted, metadata: { ...nodePorted.metadata, labels: { app: 'web' } } });
  assert.deepEqual(object.metadata.labels, { app: 'web' });
  assert.deepEqual((object.spec as { ports: unknown[] }).ports, (nodePorted.spec as { ports: unknown[] }).ports);
});

test('a dry run reads the storage, not the cached copy', async (t) => {
  const { store, moved } = await staleCopy(t, { a: '1', b: 'from elsewhere' });
  const { object } = await store.guaranteedUpdate('ns', 'cm', undefined, { dryRun: true }, (current) => ({ ...current!, data: { ...(current!.data as Record<string, string>), c: 'dry' } }));
  assert.deepEqual(object.data, { a: '1', b: 'from elsewhere', c: 'dry' });
  assert.equal(object.metadata.resourceVersion, moved);
});
