// Request-header authentication end to end (`--requestheader-*`): an authenticating proxy's
// client certificate (of its own CA) lets its headers name the user; a certificate of the
// client CA cannot; the proxy's headers alone, or from a name not allowed, are 401. And the
// kube-system/extension-apiserver-authentication ConfigMap extension servers read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import path from 'node:path';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { eventually } from '../helpers/eventually.ts';
import { ensureClientMaterial } from '../../src/server/tls-material.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let proxy: { clientCaPem: string; adminCertPem: string; adminKeyPem: string };
const flags = (allowedNames: string[]) => ({
  clientCaFile: path.join(proxyDir, 'pki', 'client-ca.crt'), allowedNames,
  usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-'],
});
const proxyDir = tempDir('plinth-front-proxy-');

before(async () => {
  // A CA of its own for the proxy, and its certificate (CN kubernetes-admin).
  proxy = await ensureClientMaterial(proxyDir);
  server = await startServer({ requestHeader: flags(['kubernetes-admin']) });
});
after(async () => {
  await server?.stop();
});

/** A SelfSubjectReview over HTTP/1.1 with a client certificate and headers (a list sends the header once per value). */
function whoami(target: TestServer, cert: { certPem: string; keyPem: string }, headers: Record<string, string | string[]>): Promise<{ status: number; body: any }> {
  const url = new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', target.url);
  const payload = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  return new Promise((resolve, reject) => {
    const req = https.request(url, {
      // A connection of its own: what a certificate proves is decided at the handshake.
      method: 'POST', ca: target.caPem, cert: cert.certPem, key: cert.keyPem, agent: false,
      headers: { 'content-type': 'application/json', ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

test('the proxy\'s certificate lets its headers name the user: uid, every group value, extra keys %-decoded', async () => {
  const res = await whoami(server, { certPem: proxy.adminCertPem, keyPem: proxy.adminKeyPem }, {
    'X-Remote-User': 'alice', 'X-Remote-Uid': 'alice-1', 'X-Remote-Group': ['dev', 'qa'], 'X-Remote-Extra-Scopes%2fTeam': ['blue', 'green'],
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(res.body.status.userInfo, { username: 'alice', uid: 'alice-1', groups: ['dev', 'qa', 'system:authenticated'], extra: { 'scopes/team': ['blue', 'green'] } });
});

test('the client CA\'s certificates cannot use the headers; the proxy\'s without a username header, or from a name not allowed, is 401', async () => {
  const admin = server.adminCertificate!;
  const res = await whoami(server, admin, { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' });
  assert.equal(res.status, 201);
  assert.equal(res.body.status.userInfo.username, 'kubernetes-admin');
  assert.equal((await whoami(server, { certPem: proxy.adminCertPem, keyPem: proxy.adminKeyPem }, {})).status, 401);
  const strict = await startServer({ requestHeader: flags(['front-proxy-client']) });
  try {
    assert.equal((await whoami(strict, { certPem: proxy.adminCertPem, keyPem: proxy.adminKeyPem }, { 'X-Remote-User': 'alice' })).status, 401);
  } finally {
    await strict.stop();
  }
});

test('kube-system/extension-apiserver-authentication tells extension servers the client CA and the proxies\' CA and headers', async () => {
  const res = await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.json.data).sort(), [
    'client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix', 'requestheader-group-headers',
    'requestheader-uid-headers', 'requestheader-username-headers',
  ]);
  assert.equal(res.json.data['requestheader-client-ca-file'], proxy.clientCaPem);
  assert.equal(res.json.data['requestheader-username-headers'], '["X-Remote-User"]');
  assert.equal(res.json.data['requestheader-allowed-names'], '["kubernetes-admin"]');
  assert.match(res.json.data['client-ca-file'], /^-----BEGIN CERTIFICATE-----/);
});

test('--requestheader-client-ca-file may not share a certificate with the client CA unless names are listed', async () => {
  const dataDir = tempDir('plinth-requestheader-overlap-');
  const own = await ensureClientMaterial(dataDir);
  await assert.rejects(startServer({ dataDir, requestHeader: { ...flags([]), clientCaFile: path.join(dataDir, 'pki', 'client-ca.crt') } }), /contain overlapping certificates; --requestheader-allowed-names must be specified/);
  assert.ok(own.clientCaPem.length > 0);
});

test('a changed --requestheader-client-ca-file is trusted from the next handshake on and published', async () => {
  const dir = tempDir('plinth-proxy-ca-');
  const otherDir = tempDir('plinth-other-proxy-');
  const other = await ensureClientMaterial(otherDir);
  const caFile = path.join(dir, 'front-proxy-ca.crt');
  writeFileSync(caFile, proxy.clientCaPem);
  const following = await startServer({ requestHeader: { ...flags(['kubernetes-admin']), clientCaFile: caFile } });
  try {
    const as = (material: { adminCertPem: string; adminKeyPem: string }) => whoami(following, { certPem: material.adminCertPem, keyPem: material.adminKeyPem }, { 'X-Remote-User': 'alice' });
    assert.equal((await as(proxy)).body.status.userInfo.username, 'alice');
    assert.equal((await as(other)).status, 401);
    writeFileSync(`${caFile}.new`, other.clientCaPem);
    renameSync(`${caFile}.new`, caFile);
    await eventually(async () => assert.equal((await as(other)).body.status?.userInfo.username, 'alice'));
    assert.equal((await as(proxy)).status, 401);
    const published = await following.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    await eventually(async () => assert.equal((await following.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).json.data['requestheader-client-ca-file'], other.clientCaPem));
    assert.equal(published.status, 200);
  } finally {
    await following.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  }
});
