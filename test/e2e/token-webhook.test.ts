// Webhook token authentication end to end (`--authentication-token-webhook-config-file`):
// a bearer token nothing else knows goes to an HTTPS TokenReview webhook described by a
// kubeconfig (client certificate from files beside it); its answer names the user, audiences
// are checked, answers are cached, and a webhook error refuses the token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseServeFlags } from '../../src/cli/config.ts';
import { ensureClientMaterial, ensureServingMaterial } from '../../src/server/tls-material.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const dir = tempDir('plinth-token-webhook-');
let server: TestServer;
let webhook: https.Server;
const received: { spec: Record<string, unknown>; apiVersion: string; clientCertificate: string | undefined }[] = [];

before(async () => {
  const material = await ensureServingMaterial(dir);
  const client = await ensureClientMaterial(dir);
  webhook = https.createServer({ cert: material.certPem, key: material.keyPem, ca: client.clientCaPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; spec: { token: string; audiences?: string[] } };
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      received.push({ spec: review.spec, apiVersion: review.apiVersion, clientCertificate: String(peer.subject?.CN) });
      const status: Record<string, unknown> = review.spec.token === 'hook-alice'
        ? { authenticated: true, user: { username: 'alice@hook', uid: 'a-1', groups: ['hooked'], extra: { 'example.com/team': ['blue'] } } }
        : review.spec.token === 'hook-elsewhere' ? { authenticated: true, user: { username: 'eve' }, audiences: ['somewhere-else'] }
          : { authenticated: false, error: review.spec.token === 'hook-revoked' ? 'token revoked' : '' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  writeFileSync(path.join(dir, 'ca.crt'), material.caPem);
  writeFileSync(path.join(dir, 'client.crt'), client.adminCertPem);
  writeFileSync(path.join(dir, 'client.key'), client.adminKeyPem);
  const kubeconfig = path.join(dir, 'authn-webhook.kubeconfig');
  // Paths relative to the kubeconfig's directory; no context: the unnamed cluster and user.
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters:', '- cluster:', `    server: https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authenticate`, '    certificate-authority: ca.crt',
    'users:', '- user:', '    client-certificate: client.crt', '    client-key: client.key', '',
  ].join('\n'));
  const { tokenWebhook } = parseServeFlags([`--authentication-token-webhook-config-file=${kubeconfig}`, '--authentication-token-webhook-version=v1']);
  server = await startServer({ tokenWebhook });
});
after(async () => {
  await server?.stop();
  webhook?.close();
});

const whoami = (token: string) => server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
  token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
});

test('a token the webhook authenticates names its user; the review carries the API audiences; answers are cached', async () => {
  const res = await whoami('hook-alice');
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.json.status.userInfo, { username: 'alice@hook', uid: 'a-1', groups: ['hooked', 'system:authenticated'], extra: { 'example.com/team': ['blue'] } });
  assert.deepEqual(received[0], { spec: { token: 'hook-alice', audiences: ['https://kubernetes.default.svc.cluster.local'] }, apiVersion: 'authentication.k8s.io/v1', clientCertificate: 'kubernetes-admin' });
  const asked = received.length;
  assert.equal((await whoami('hook-alice')).status, 201);
  assert.equal(received.length, asked);
  // The server's own tokens never reach the webhook.
  assert.equal((await server.request('GET', '/api/v1/namespaces')).status, 200);
  assert.equal(received.length, asked);
});

test('a token the webhook refuses, or grants for other audiences, is 401', async () => {
  for (const token of ['hook-unknown', 'hook-revoked', 'hook-elsewhere']) assert.equal((await whoami(token)).status, 401, token);
  // A TokenReview tells the webhook's error.
  const review = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'hook-revoked' } } });
  assert.equal(review.json.status.authenticated ?? false, false);
  assert.match(review.json.status.error, /token revoked/);
});
