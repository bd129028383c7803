// The ServiceAccount admission plugin and the in-process serviceaccounts controller.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

async function defaultAccount(ns: string): Promise<any> {
  const res = await server.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
  return res.status === 200 ? res.json : undefined;
}

describe('default service accounts', () => {
  test('every namespace existing at start has one', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const sa = await defaultAccount(ns);
      assert.ok(sa, `${ns} has a default service account`);
      assert.equal(sa.kind, 'ServiceAccount');
    }
  });

  test('a new namespace gets one, and it comes back when deleted', async () => {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'sa-new' } } })).status, 201);
    const first = await eventually(async () => {
      const sa = await defaultAccount('sa-new');
      assert.ok(sa, 'the default account');
      return sa;
    });
    assert.equal((await server.request('DELETE', '/api/v1/namespaces/sa-new/serviceaccounts/default')).status, 200);
    const again = await eventually(async () => {
      const sa = await defaultAccount('sa-new');
      assert.ok(sa, 'the default account made again');
      assert.notEqual(sa.metadata.uid, first.metadata.uid, 'a new default account');
      return sa;
    });
    assert.equal(again.metadata.name, 'default');
  });

  test('namespaces made while the server was down get theirs at start', async () => {
    const dataDir = tempDir();
    const first = await startServer({ storage: 'sqlite', dataDir });
    try {
      await first.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'kept' } } });
      await eventually(async () => assert.equal((await first.request('GET', '/api/v1/namespaces/kept/serviceaccounts/default')).status, 200));
      await first.request('DELETE', '/api/v1/namespaces/kept/serviceaccounts/default');
    } finally {
      await first.stop();
    }
    const second = await startServer({ storage: 'sqlite', dataDir });
    try {
      // start() returns once every existing namespace has its account.
      assert.equal((await second.request('GET', '/api/v1/namespaces/kept/serviceaccounts/default')).status, 200);
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('ServiceAccount admission', () => {
  test('a pod without serviceAccountName runs as "default"', async () => {
    const res = await server.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'sa-pod' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.spec.serviceAccountName, 'default');
    assert.equal(res.json.spec.serviceAccount, 'default', 'v1 shows the deprecated field too');
  });

  test('a pod in a namespace just made is admitted once its account exists', async () => {
    await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'sa-fresh' } } });
    const res = await server.request('POST', '/api/v1/namespaces/sa-fresh/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(res.status, 201, res.text);
  });

  test('a pod naming an account that does not exist is 403', async () => {
    const res = await server.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'sa-missing' }, spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(res.status, 403);
    assert.equal(res.json.message, 'pods "sa-missing" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found');
    await server.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'builder' } } });
    const ok = await server.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'sa-missing' }, spec: { serviceAccount: 'builder', containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.spec.serviceAccountName, 'builder', 'the deprecated field names the account too');
  });
});
