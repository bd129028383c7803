// Two Plinth replicas on a three-member etcd cluster, as kube-apiservers run: a write
// through one is seen by a watch on the other; with an etcd member down writes go on;
// a watch goes on through the loss of etcd's leader with no event lost or repeated;
// with one replica stopped the other serves, and the stopped one catches up when it
// starts again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { etcdUnavailable, startEtcdCluster, type EtcdCluster } from '../helpers/etcd.ts';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer, tempDir, type TestServer } from '../helpers/server.ts';
import type { Config } from '../../src/cli/config.ts';

describe('two replicas on a three-member etcd cluster', { skip: etcdUnavailable(), timeout: 180_000 }, () => {
  let cluster: EtcdCluster;
  let a: TestServer | undefined;
  let b: TestServer;
  const aDataDir = tempDir();
  let replicaConfig: Partial<Config>;
  before(async () => {
    cluster = await startEtcdCluster({ size: 3 });
    replicaConfig = { storage: 'etcd', etcdServers: cluster.urls, etcdPrefix: '/ha/registry', enableGarbageCollector: false };
    a = await startServer({ ...replicaConfig, dataDir: aDataDir });
    b = await startServer(replicaConfig);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await cluster?.stop();
    rmSync(aDataDir, { recursive: true, force: true });
  });

  /** Creates a ConfigMap through `server`, again while etcd elects a leader; a retry that finds it made counts as made. */
  async function createSurely(server: TestServer, ns: string, name: string): Promise<void> {
    await eventually(async () => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name }, data: { n: name } } });
      assert.ok(res.status === 201 || (res.status === 409 && res.json?.reason === 'AlreadyExists'), `${res.status} ${res.text}`);
    }, { timeoutMs: 30_000, what: `${name} to be created` });
  }

  test('a write through A is seen by a watch on B, and a get on B', async () => {
    const ns = await a!.newNamespace('ha');
    const watch = await openStream(b, `/api/v1/namespaces/${ns}/configmaps?watch=1`);
    try {
      await createSurely(a!, ns, 'from-a');
      const event = await watch.next(10_000);
      assert.deepEqual([event?.type, event?.object?.metadata?.name], ['ADDED', 'from-a']);
      const got = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps/from-a`);
      assert.equal(got.status, 200, got.text);
    } finally {
      watch.close();
    }
  });

  test('with one etcd member down, writes through both replicas go on', async () => {
    const ns = await a!.newNamespace('ha');
    const down = cluster.members[(await cluster.leader() + 1) % 3]!;
    await down.kill();
    try {
      for (let i = 0; i < 10; i++) {
        for (const [name, server] of [['a', a!], ['b', b]] as const) {
          const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `${name}${i}` } } });
          assert.equal(res.status, 201, res.text);
        }
      }
    } finally {
      await down.restart();
    }
    const list = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(list.json.items.filter((cm: { metadata: { name: string } }) => cm.metadata.name !== 'kube-root-ca.crt').length, 20);
  });

  test('a watch on B goes on while etcd\'s leader is killed: every object once, in order', async () => {
    const ns = await a!.newNamespace('ha');
    const watch = await openStream(b, `/api/v1/namespaces/${ns}/configmaps?watch=1`);
    const names: string[] = [];
    try {
      for (let i = 0; i < 5; i++) await createSurely(a!, ns, `w${names.push(`w${i}`) - 1}`);
      const leader = cluster.members[await cluster.leader()]!;
      await leader.kill();
      for (let i = 5; i < 20; i++) await createSurely(a!, ns, `w${names.push(`w${i}`) - 1}`);
      await leader.restart();
      for (let i = 20; i < 25; i++) await createSurely(a!, ns, `w${names.push(`w${i}`) - 1}`);

      const seen: Array<{ type: string; name: string; rv: number }> = [];
      while (seen.length < names.length) {
        const event = await watch.next(20_000);
        assert.ok(event, 'the watch ended');
        if (event.object?.metadata?.name === 'kube-root-ca.crt') continue;
        seen.push({ type: event.type, name: event.object.metadata.name, rv: Number(event.object.metadata.resourceVersion) });
      }
      assert.deepEqual(seen.map((e) => `${e.type} ${e.name}`), names.map((name) => `ADDED ${name}`));
      assert.ok(seen.every((e, i) => i === 0 || e.rv > seen[i - 1]!.rv), 'resourceVersions increase');
    } finally {
      watch.close();
    }
  });

  test('with A stopped, B serves; A started again catches up with what was written meanwhile', async () => {
    const ns = await b.newNamespace('ha-b');
    await createSurely(b, ns, 'before');
    await a!.stop();
    a = undefined;
    for (let i = 0; i < 5; i++) await createSurely(b, ns, `while-a-was-down-${i}`);
    const got = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps/while-a-was-down-4`);
    assert.equal(got.status, 200, got.text);

    a = await startServer({ ...replicaConfig, dataDir: aDataDir });
    // A list at resourceVersion=0 comes from A's watch cache: it has caught up once it holds them all.
    const caughtUp = await eventually(async () => {
      const list = await a!.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`);
      assert.equal(list.status, 200, list.text);
      const names = list.json.items.map((cm: { metadata: { name: string } }) => cm.metadata.name).filter((n: string) => n !== 'kube-root-ca.crt').sort();
      assert.deepEqual(names, ['before', ...Array.from({ length: 5 }, (_, i) => `while-a-was-down-${i}`)]);
      return list.json;
    }, { what: 'A\'s cache to catch up' });
    // And a write through B after the restart reaches a watch on A (from the list's
    // revision: a new cache holds no history from before its first list, as upstream's).
    const watch = await openStream(a, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${caughtUp.metadata.resourceVersion}`);
    try {
      await createSurely(b, ns, 'after');
      for (;;) {
        const event = await watch.next(10_000);
        assert.ok(event, 'the watch ended');
        if (event.object?.metadata?.name === 'after') break;
      }
    } finally {
      watch.close();
    }
  });
});
