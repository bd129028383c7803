// The watch cache on a real etcd: what it counts as reached must have come through its
// watch, which on etcd arrives over the network after the writes it reports.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdBackend } from '../../src/storage/etcd.ts';
import type { Backend, Watch } from '../../src/storage/index.ts';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../helpers/etcd.ts';
import { configMap, key, startCache } from './fixtures.ts';

const skip = etcdUnavailable();
let etcd: TestEtcd | undefined;
let stores = 0;

/**
 * An etcd backend whose first watch starts only after `between` ran: writes made then are
 * history the new watch must replay (as writes made while a cache lists are).
 */
function replaying(backend: EtcdBackend, between: () => Promise<void>): Backend {
  let first = true;
  return new Proxy(backend, {
    get(target, property) {
      if (property === 'watch') {
        return (prefix: string, fromRevision: number): Watch => {
          if (!first) return target.watch(prefix, fromRevision);
          first = false;
          // The watch is asked for at once and opened after the writes, from the same revision.
          let inner: Watch | undefined;
          const opened = between().then(() => (inner = target.watch(prefix, fromRevision))[Symbol.asyncIterator]());
          return {
            get settled() {
              return inner?.settled ?? false;
            },
            [Symbol.asyncIterator]() {
              return this;
            },
            async next() {
              return (await opened).next();
            },
            close() {
              void opened.then(() => inner!.close());
            },
          } as unknown as Watch;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** An etcd backend whose watches hand on each event `ms` after it arrives, as over a slow network. */
function slowWatches(backend: EtcdBackend, ms: number): Backend {
  return new Proxy(backend, {
    get(target, property) {
      if (property === 'watch') {
        return (prefix: string, fromRevision: number): Watch => {
          const inner = target.watch(prefix, fromRevision);
          const events = inner[Symbol.asyncIterator]();
          return {
            get settled() {
              return inner.settled;
            },
            [Symbol.asyncIterator]() {
              return this;
            },
            async next() {
              const result = await events.next();
              await new Promise((resolve) => setTimeout(resolve, ms));
              return result;
            },
            close: () => inner.close(),
          } as unknown as Watch;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('watch cache on etcd', { skip }, () => {
  before(async () => void (etcd = await startEtcd()));
  after(() => etcd?.stop());

  test('a revision is reached only once the watch has replayed the history up to it', async (t) => {
    const backend = new EtcdBackend({ servers: [etcd!.url], namespace: `/wc${++stores}` });
    const count = 300;
    const proxied = replaying(backend, async () => {
      for (let i = 0; i < count; i++) await backend.create(key('ns', `late-${i}`), configMap('ns', `late-${i}`));
      await backend.create('/registry/secrets/ns/elsewhere', new TextEncoder().encode('{}'));
    });
    const f = await startCache(t, {}, proxied);
    const logs = f.logs;
    // Wait for the writes the watch must replay, then for the backend's current revision.
    while (f.cache.size === 0 && (await backend.get(key('ns', `late-${count - 1}`))) === undefined) await new Promise((r) => setTimeout(r, 5));
    const current = await backend.currentRevision();
    await f.cache.waitForRevision(current);
    assert.equal(f.cache.size, count, 'every replayed object is in the cache once its revision counts as reached');
    assert.deepEqual(logs.filter((l) => l.includes('arrived after')), []);
  });

  test("another server's write counts as reached only once its event has arrived", async (t) => {
    const namespace = `/wc${++stores}`;
    const writer = new EtcdBackend({ servers: [etcd!.url], namespace });
    t.after(() => writer.close());
    const f = await startCache(t, {}, slowWatches(new EtcdBackend({ servers: [etcd!.url], namespace }), 300));
    await f.put('ns', 'here');
    await f.cache.waitUntilFresh();
    for (let round = 0; round < 3; round++) {
      // Written by the other server, then a deletion: each reaches this cache 300 ms later.
      await writer.create(key('ns', `other-${round}`), configMap('ns', `other-${round}`));
      await f.cache.waitUntilFresh();
      assert.ok(f.cache.get(key('ns', `other-${round}`)) !== undefined, `other-${round} is in the cache at the revision it counts as reached`);
      await writer.delete(key('ns', `other-${round}`));
      await writer.create('/registry/secrets/ns/elsewhere', new TextEncoder().encode('{}'));
      await writer.delete('/registry/secrets/ns/elsewhere');
      await f.cache.waitUntilFresh();
      assert.equal(f.cache.get(key('ns', `other-${round}`)), undefined, `other-${round} is gone from the cache at the revision it counts as reached`);
    }
    assert.deepEqual(f.logs.filter((l) => l.includes('arrived after')), []);
  });
});
