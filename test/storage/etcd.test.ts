// The etcd backend runs the shared storage contract against one real etcd member for
// the file; each backend gets its own key namespace, so each test starts "fresh".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { EtcdBackend, progressNotifyReliable } from '../../src/storage/etcd.ts';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../helpers/etcd.ts';
import { storageContract } from './contract.ts';

const skip = etcdUnavailable();
let etcd: TestEtcd | undefined;
let stores = 0;

describe('etcd', { skip }, () => {
  before(async () => void (etcd = await startEtcd()));
  after(() => etcd?.stop());
  test('serverVersion answers the member\'s version, as etcd --version prints it', async () => {
    const backend = new EtcdBackend({ servers: [etcd!.url] });
    try {
      assert.match(await backend.serverVersion(), /^3\.\d+\.\d+/);
    } finally {
      await backend.close();
    }
  });
  test('a create or update whose answer is lost with its connection is tried again and recognised as landed', async () => {
    const proxy = await answerDroppingProxy(new URL(etcd!.url));
    const backend = new EtcdBackend({ servers: [proxy.url], namespace: `/t${++stores}` });
    try {
      await backend.currentRevision();
      proxy.dropNextAnswer();
      const created = await backend.create('/registry/configmaps/ns/a', new TextEncoder().encode('one'));
      assert.equal(proxy.dropped, 1);
      assert.equal((await backend.get('/registry/configmaps/ns/a'))?.modRevision, created);
      proxy.dropNextAnswer();
      const updated = await backend.update('/registry/configmaps/ns/a', new TextEncoder().encode('two'), created);
      assert.equal(proxy.dropped, 2);
      const stored = await backend.get('/registry/configmaps/ns/a');
      assert.equal(stored?.modRevision, updated);
      assert.equal(new TextDecoder().decode(stored?.value), 'two');
      // Someone else's value under the key is still a conflict, retried or not.
      proxy.dropNextAnswer();
      await assert.rejects(backend.create('/registry/configmaps/ns/a', new TextEncoder().encode('three')), { code: 'KeyExists' });
    } finally {
      await backend.close();
      proxy.close();
    }
  });
  storageContract('etcd', async (opts) => new EtcdBackend({ servers: [etcd!.url], namespace: `/t${++stores}`, ...opts }));
});

test('progress notifications are reliable from etcd 3.4.31 and 3.5.13 on', () => {
  const cases: Array<[string, boolean]> = [
    ['3.4.23', false], ['3.4.30', false], ['3.4.31', true], ['3.5.12', false], ['3.5.13', true], ['3.6.0', true], ['3.3.27', false], ['unknown', false],
  ];
  for (const [version, reliable] of cases) assert.equal(progressNotifyReliable(version), reliable, version);
});

/**
 * A TCP proxy in front of an etcd member that, when asked, cuts the connection at the
 * member's next answer instead of passing it on: the call reached etcd, its answer is lost.
 */
async function answerDroppingProxy(target: URL) {
  let dropNext = false;
  let dropped = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!dropNext) return void client.write(chunk);
      dropNext = false;
      dropped++;
      client.destroy();
      upstream.destroy();
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(socket);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    dropNextAnswer: () => void (dropNext = true),
    get dropped() { return dropped; },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
