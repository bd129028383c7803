// Bootstrap token authentication (`--enable-bootstrap-token-auth`), as kubeadm join uses it:
// `<id>.<secret>` names system:bootstrap:<id> while kube-system's bootstrap-token-<id> Secret
// says so; a wrong secret, an expired or unusable token, a bad extra group, or the flag off,
// names nobody (401).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServeFlags } from '../../src/cli/config.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ enableBootstrapTokenAuth: parseServeFlags(['--enable-bootstrap-token-auth']).enableBootstrapTokenAuth! });
});
after(async () => {
  await server?.stop();
});

const whoami = (target: TestServer, token: string) => target.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
  token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
});

async function bootstrapSecret(id: string, data: Record<string, string>, type = 'bootstrap.kubernetes.io/token') {
  const res = await server.request('POST', '/api/v1/namespaces/kube-system/secrets', {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}` }, type, stringData: data },
  });
  assert.equal(res.status, 201, res.text);
}

const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

test('a bootstrap token names system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
  await bootstrapSecret('abcdef', {
    'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', expiration: future,
    'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
  });
  const res = await whoami(server, 'abcdef.0123456789abcdef');
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.json.status.userInfo, {
    username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
  });
  assert.equal((await whoami(server, 'abcdef.0123456789abcdee')).status, 401);
  // Deleted: it stops at once.
  assert.equal((await server.request('DELETE', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef')).status, 200);
  assert.equal((await whoami(server, 'abcdef.0123456789abcdef')).status, 401);
});

test('expired, not for authentication, of another type, with a bad extra group, or another id: 401', async () => {
  const base = { 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
  await bootstrapSecret('expire', { ...base, 'token-id': 'expire', expiration: '2020-01-01T00:00:00Z' });
  await bootstrapSecret('unused', { ...base, 'token-id': 'unused', 'usage-bootstrap-authentication': 'false' });
  await bootstrapSecret('opaque', { ...base, 'token-id': 'opaque' }, 'Opaque');
  await bootstrapSecret('badgrp', { ...base, 'token-id': 'badgrp', 'auth-extra-groups': 'system:masters' });
  await bootstrapSecret('nameid', { ...base, 'token-id': 'other1' });
  for (const id of ['expire', 'unused', 'opaque', 'badgrp', 'nameid']) assert.equal((await whoami(server, `${id}.0123456789abcdef`)).status, 401, id);
});

test('without --enable-bootstrap-token-auth the tokens name nobody', async () => {
  const off = await startServer();
  try {
    const res = await off.request('POST', '/api/v1/namespaces/kube-system/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-zzzzzz' }, type: 'bootstrap.kubernetes.io/token', stringData: { 'token-id': 'zzzzzz', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' } },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((await whoami(off, 'zzzzzz.0123456789abcdef')).status, 401);
  } finally {
    await off.stop();
  }
});
