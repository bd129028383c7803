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
});
