// The pod garbage collector: terminating pods no kubelet will finish (their node is gone,
// or they were never scheduled) are force-deleted, so that graceful deletion does not keep
// pods, and the namespaces holding them, forever.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ podGcQuarantineMs: 300 });
});
after(async () => {
  await server.stop();
});

const pod = (name: string, nodeName?: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: 'c', image: 'nginx' }] },
});

async function createPod(ns: string, name: string, nodeName?: string) {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name, nodeName) });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

async function createNode(name: string) {
  const res = await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } });
  assert.equal(res.status, 201, res.text);
}

describe('pod garbage collector', () => {
  test('a terminating pod on a node that does not exist is marked Failed and deleted after the quarantine', async () => {
    const ns = await server.newNamespace('podgc');
    await createPod(ns, 'p', 'no-such-node');
    const del = await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/p`);
    assert.equal(del.status, 200);
    assert.ok(del.json.metadata.deletionTimestamp, 'a bound pod is deleted gracefully');
    await eventually(async () => {
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 404);
    });
  });

  test('a terminating pod on a node that exists stays until its node goes', async () => {
    const ns = await server.newNamespace('podgc');
    const node = `node-${ns}`;
    await createNode(node);
    await createPod(ns, 'p', node);
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/p`)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const kept = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`);
    assert.equal(kept.status, 200, 'a kubelet would finish it: kept');
    assert.equal((await server.request('DELETE', `/api/v1/nodes/${node}`)).status, 200);
    await eventually(async () => {
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 404);
    });
  });

  test('a pod on a node that does not exist, that nobody deletes, is left alone', async () => {
    const ns = await server.newNamespace('podgc');
    await createPod(ns, 'p', 'no-such-node');
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 200);
  });

  test('a namespace holding bound pods goes: the namespace controller deletes them, the pod collector finishes them', async () => {
    const ns = await server.newNamespace('podgc');
    await createPod(ns, 'a', 'no-such-node');
    await createPod(ns, 'b');
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
    await eventually(async () => {
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}`)).status, 404);
    }, { timeoutMs: 10_000 });
  });
});
