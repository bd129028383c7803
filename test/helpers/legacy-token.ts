// A legacy service-account token as kube-controller-manager's token controller makes one:
// the account `robot`, a JWT signed with the server's key naming it and its Secret, and that
// Secret (type kubernetes.io/service-account-token) holding the token.
import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { TestServer } from './server.ts';

/** Makes `robot` and its Secret `robot-token` in `ns`; answers the token and the account's uid. */
export async function legacyRobotToken(server: TestServer, privateKey: KeyObject, ns: string): Promise<{ token: string; uid: string }> {
  const account = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } });
  assert.equal(account.status, 201, account.text);
  const token = await new SignJWT({
    iss: 'kubernetes/serviceaccount', sub: `system:serviceaccount:${ns}:robot`,
    'kubernetes.io/serviceaccount/namespace': ns, 'kubernetes.io/serviceaccount/secret.name': 'robot-token',
    'kubernetes.io/serviceaccount/service-account.name': 'robot', 'kubernetes.io/serviceaccount/service-account.uid': account.json.metadata.uid,
  }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
  const secret = await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: {
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
    metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } }, data: { token: Buffer.from(token).toString('base64') },
  } });
  assert.equal(secret.status, 201, secret.text);
  return { token, uid: account.json.metadata.uid };
}
