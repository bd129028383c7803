// A server on an etcd member that speaks only TLS and asks for client certificates
// (etcd's --client-cert-auth), through upstream's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile; without a client certificate the same member refuses it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureClientMaterial, ensureServingMaterial } from '../../src/server/tls-material.ts';
import { isStorageError } from '../../src/storage/index.ts';
import { EtcdBackend } from '../../src/storage/etcd.ts';
import { etcdUnavailable, startEtcdCluster, type EtcdCluster } from '../helpers/etcd.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

describe('etcd over TLS with client certificates', { skip: etcdUnavailable() }, () => {
  // The test's own CA signs etcd's serving certificate, a second CA Plinth's client certificate.
  const pkiDir = tempDir('plinth-etcd-pki-');
  const pki = (file: string) => path.join(pkiDir, 'pki', file);
  let etcd: EtcdCluster;
  let server: TestServer;
  before(async () => {
    await ensureServingMaterial(pkiDir);
    await ensureClientMaterial(pkiDir);
    etcd = await startEtcdCluster({ tls: { certFile: pki('apiserver.crt'), keyFile: pki('apiserver.key'), clientCaFile: pki('client-ca.crt') } });
    server = await startServer({
      storage: 'etcd', etcdServers: etcd.urls, etcdPrefix: '/tls/registry',
      etcdCaFile: pki('ca.crt'), etcdCertFile: pki('admin.crt'), etcdKeyFile: pki('admin.key'),
    });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
    rmSync(pkiDir, { recursive: true, force: true });
  });

  test('the member is https; objects written through Plinth are stored and read back', async () => {
    assert.match(etcd.urls[0]!, /^https:\/\//);
    const ns = await server.newNamespace('tls');
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'over-tls' }, data: { a: '1' } } });
    assert.equal(created.status, 201, created.text);
    const got = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/over-tls`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json.data, { a: '1' });
  });

  test('without a client certificate the member refuses the connection', async () => {
    const backend = new EtcdBackend({ servers: etcd.urls, tls: { ca: readFileSync(pki('ca.crt')) } });
    try {
      await assert.rejects(backend.currentRevision(), (err) => isStorageError(err, 'Unavailable'));
    } finally {
      await backend.close();
    }
  });
});
