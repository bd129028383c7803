// The etcd backend on a three-member cluster: members killed one after another, the
// leader among them, while a watch runs and writes go on. Calls fail over to the
// members still up; a watch whose stream broke resumes from its last revision, so it
// sees every write exactly once, in order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdBackend } from '../../src/storage/etcd.ts';
import { SharedCompactor } from '../../src/storage/index.ts';
import { isStorageError, type StorageEvent } from '../../src/storage/backend.ts';
import net from 'node:net';
import { freePort } from '../../tools/etcd-cluster.ts';
import { etcdUnavailable, startEtcdCluster, type EtcdCluster } from '../helpers/etcd.ts';
import { eventually } from '../helpers/eventually.ts';

const skip = etcdUnavailable();
let cluster: EtcdCluster | undefined;
let stores = 0;

const value = (text: string) => new TextEncoder().encode(text);

/** Creates the key, trying again while the cluster elects a leader; a retry that finds it made counts as made. */
async function createSurely(backend: EtcdBackend, key: string): Promise<void> {
  await eventually(async () => {
    try {
      await backend.create(key, value(key));
    } catch (err) {
      if (!isStorageError(err, 'KeyExists')) throw err;
    }
  }, { timeoutMs: 20_000, what: `${key} to be created` });
}

describe('etcd cluster', { skip, timeout: 120_000 }, () => {
  before(async () => void (cluster = await startEtcdCluster({ size: 3 })));
  after(() => cluster?.stop());

  test('with one member down, every read and write still succeeds (calls that reached no member go to another)', async () => {
    const backend = new EtcdBackend({ servers: cluster!.urls, namespace: `/c${++stores}` });
    const down = cluster!.members[(await cluster!.leader() + 1) % 3]!;
    try {
      await backend.create('/registry/configmaps/ns/before', value('x'));
      await down.kill();
      for (let i = 0; i < 30; i++) {
        const revision = await backend.create(`/registry/configmaps/ns/k${i}`, value(String(i)));
        assert.equal((await backend.get(`/registry/configmaps/ns/k${i}`))?.modRevision, revision);
      }
      const list = await backend.list('/registry/configmaps/ns/');
      assert.equal(list.items.length, 31);
    } finally {
      await down.restart();
      await backend.close();
    }
  });

  test('a watch goes on through members killed in turn, the leader first: every event once, in order', async () => {
    const backend = new EtcdBackend({ servers: cluster!.urls, namespace: `/c${++stores}` });
    const start = await backend.currentRevision();
    const watch = backend.watch('/registry/configmaps/', start);
    const seen: StorageEvent[] = [];
    const reading = (async () => {
      for await (const event of watch) seen.push(event);
    })();
    try {
      const leader = await cluster!.leader();
      let written = 0;
      // Each member in turn, starting with the leader, is killed while writes go on,
      // then brought back; whichever member the watch's stream was on broke it once.
      for (const index of [leader, (leader + 1) % 3, (leader + 2) % 3]) {
        const member = cluster!.members[index]!;
        for (let i = 0; i < 5; i++) await createSurely(backend, `/registry/configmaps/ns/w${written++}`);
        await member.kill();
        for (let i = 0; i < 10; i++) await createSurely(backend, `/registry/configmaps/ns/w${written++}`);
        await member.restart();
      }
      for (let i = 0; i < 5; i++) await createSurely(backend, `/registry/configmaps/ns/w${written++}`);

      const stored = (await backend.list('/registry/configmaps/ns/')).items;
      assert.equal(stored.length, written);
      const expected = stored.map((kv) => [kv.modRevision, kv.key] as const).sort((a, b) => a[0] - b[0]);
      await eventually(() => assert.equal(seen.length, expected.length), { timeoutMs: 20_000, what: 'every event to arrive' });
      assert.deepEqual(seen.map((event) => [event.revision, event.kv.key]), expected);
      assert.ok(seen.every((event) => event.type === 'put'));
    } finally {
      watch.close();
      await reading.catch(() => {});
      await backend.close();
    }
  });

  test('servers sharing the cluster compact by compact_rev_key: one compaction per round, to the revision seen a round before', async () => {
    const [a, b] = [new EtcdBackend({ servers: cluster!.urls, namespace: `/c${++stores}` }), new EtcdBackend({ servers: cluster!.urls, namespace: `/c${++stores}` })];
    const root = new EtcdBackend({ servers: cluster!.urls });
    const compacted: number[] = [];
    const [onA, onB] = [a, b].map((backend) => new SharedCompactor(backend, { onCompacted: (revision) => compacted.push(revision) })) as [SharedCompactor, SharedCompactor];
    try {
      const early = await a.create('/registry/configmaps/ns/early', value('1'));
      await onA.turn();
      await onB.turn();
      assert.deepEqual(compacted, [], 'the first round only starts the clock');
      const clock = await root.get('compact_rev_key');
      assert.ok(clock !== undefined, 'compact_rev_key exists at the root of the keyspace');
      const seenAtFirstTurn = clock.modRevision;
      await a.update('/registry/configmaps/ns/early', value('2'), early);
      await onB.turn();
      await onA.turn();
      assert.deepEqual(compacted, [seenAtFirstTurn], 'b took the second round, compacting to what was current at the first');
      assert.equal(new TextDecoder().decode((await root.get('compact_rev_key'))!.value), String(seenAtFirstTurn));
      await assert.rejects(a.get('/registry/configmaps/ns/early', { revision: early }), (err) => isStorageError(err, 'Compacted'));
      assert.equal((await a.get('/registry/configmaps/ns/early'))?.modRevision !== early, true);
    } finally {
      onA.close();
      onB.close();
      await Promise.all([a.close(), b.close(), root.close()]);
    }
  });
});

describe('starting an etcd cluster', { skip, timeout: 60_000 }, () => {
  test('a port taken between being found free and being bound: the cluster starts again on others', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as net.AddressInfo).port;
    let handedOut = 0;
    // The first port handed out is one a listener holds, as when another process bound it meanwhile.
    const ports = () => (handedOut++ === 0 ? Promise.resolve(takenPort) : freePort());
    try {
      const started = await startEtcdCluster({ ports });
      try {
        assert.ok(handedOut > 3, 'ports were found again after the failed start');
        assert.ok(!started.urls[0]!.endsWith(`:${takenPort}`));
        const backend = new EtcdBackend({ servers: started.urls, namespace: '/retry' });
        try {
          const revision = await backend.create('/registry/configmaps/ns/a', value('a'));
          assert.equal((await backend.get('/registry/configmaps/ns/a'))?.modRevision, revision);
        } finally {
          await backend.close();
        }
      } finally {
        await started.stop();
      }
    } finally {
      taken.close();
    }
  });
});
