// Plinth as a library (src/index.ts): startServer() in-process, several at once without
// sharing state, reset() putting objects back between tests, close().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { rmSync } from 'node:fs';
import { startServer, type PlinthServer } from '../src/index.ts';
import { eventually } from './helpers/eventually.ts';
import { fileSyncsDuring } from './helpers/file-syncs.ts';
import { tempDir } from './helpers/server.ts';

function request(server: PlinthServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, server.url), { method, ca: server.caCert, headers: { authorization: `Bearer ${server.token}`, 'content-type': contentType } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test('two servers in one process keep their own objects; close frees them', async () => {
  const [a, b] = await Promise.all([startServer(), startServer()]);
  try {
    assert.notEqual(a.url, b.url);
    assert.match(a.kubeconfig, /server: https:\/\/127\.0\.0\.1:\d+/);
    assert.equal((await request(a, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'only-a' } })).status, 201);
    assert.equal((await request(b, 'GET', '/api/v1/namespaces/default/configmaps/only-a')).status, 404);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('the files of a temporary data dir are not synced to disk; those of a data dir given are', async () => {
  const temporary = await fileSyncsDuring(async () => (await startServer()).close());
  assert.equal(temporary, 0);
  const dataDir = tempDir();
  try {
    const given = await fileSyncsDuring(async () => (await startServer({ dataDir })).close());
    // Six keys and six certificates (serving, client and front-proxy CAs and their leaves), the
    // token file (not the kubeconfig: every start writes it again).
    assert.equal(given, 13);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('reset() puts every object back as it was; markClean() moves that point', async () => {
  const server = await startServer();
  try {
    assert.equal((await request(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'kept' }, data: { v: '1' } })).status, 201);
    await server.markClean();
    // A test's changes: a new namespace with objects, a changed object, a deleted one.
    assert.equal((await request(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'scratch' } })).status, 201);
    for (let i = 0; i < 20; i++) assert.equal((await request(server, 'POST', '/api/v1/namespaces/scratch/configmaps', { metadata: { name: `c${i}` } })).status, 201);
    const patched = await request(server, 'PATCH', '/api/v1/namespaces/default/configmaps/kept', { data: { v: '2' } });
    assert.deepEqual([patched.status, patched.json.data], [200, { v: '2' }]);
    const changedService = await request(server, 'PATCH', '/api/v1/namespaces/default/services/kubernetes', { metadata: { labels: { touched: 'yes' } } });
    assert.equal(changedService.status, 200);
    assert.equal((await request(server, 'DELETE', '/api/v1/namespaces/default/configmaps/kept')).status, 200);
    await server.reset();
    await eventually(async () => {
      assert.equal((await request(server, 'GET', '/api/v1/namespaces/scratch')).status, 404);
      assert.deepEqual((await request(server, 'GET', '/api/v1/namespaces/scratch/configmaps')).json.items, []);
      const kept = await request(server, 'GET', '/api/v1/namespaces/default/configmaps/kept');
      assert.equal(kept.status, 200);
      assert.deepEqual(kept.json.data, { v: '1' });
      const service = await request(server, 'GET', '/api/v1/namespaces/default/services/kubernetes');
      assert.equal(service.json.metadata.labels?.touched, undefined, 'changed objects are restored');
    });
  } finally {
    await server.close();
  }
});
