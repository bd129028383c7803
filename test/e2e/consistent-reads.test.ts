// Consistent reads (no resourceVersion) on a backend whose watches cannot prove they are
// current (etcd before reliable progress notifications) go to the backend, as upstream
// sends consistent lists to etcd there: a watch cache lagging behind never answers them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend, type StorageEvent, type Watch } from '../../src/storage/index.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

/** A memory backend whose watch events arrive late, as over a network; it says so. */
class LaggingWatchBackend extends MemoryBackend {
  readonly consistentReadsFromStorage = true;

  override watch(prefix: string, fromRevision: number): Watch {
    const inner = super.watch(prefix, fromRevision);
    return {
      close: () => inner.close(),
      async *[Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
        for await (const event of inner) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          yield event;
        }
      },
    };
  }
}

describe('consistent reads on a backend whose watches lag', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ enableGarbageCollector: false }, { backend: new LaggingWatchBackend() });
  });
  after(async () => {
    await server.stop();
  });

  test('a get and a list right after a write see it, though the watch cache has not heard of it yet', async () => {
    const ns = await server.newNamespace('lag');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (let i = 0; i < 3; i++) {
      assert.equal((await server.request('POST', base, { body: { metadata: { name: `cm-${i}` } } })).status, 201);
      const got = await server.request('GET', `${base}/cm-${i}`);
      assert.equal(got.status, 200, got.text);
      const listed = await server.request('GET', base);
      assert.deepEqual(listed.json.items.map((item: any) => item.metadata.name), Array.from({ length: i + 1 }, (_, j) => `cm-${j}`));
    }
    // A read at any revision (rv=0) may come from the cache, as upstream's.
    const any = await server.request('GET', `${base}?resourceVersion=0`);
    assert.equal(any.status, 200);
  });
});
