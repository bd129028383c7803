// A long-lived token kept in a Secret of type kubernetes.io/service-account-token (what
// kube-controller-manager's token controller writes, signed with the server's key):
// accepted while the Secret holds it, the Secret labelled with the day of use, refused once
// the legacy token cleaner's label marks it invalid or the Secret is gone; with
// --service-account-lookup=false the signature and claims alone decide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

test('a Secret\'s legacy token authenticates as upstream\'s legacy validator allows it', async () => {
  const dataDir = tempDir('plinth-legacy-token-');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = path.join(dataDir, 'sa.key');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const start = (lookup: boolean) => startServer({ dataDir, storage: 'sqlite', serviceAccountSigningKeyFile: keyFile, serviceAccountKeyFiles: [keyFile], serviceAccountLookup: lookup });
  let server: TestServer | undefined;
  try {
    server = await start(true);
    const ns = await server.newNamespace('legacy');
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

    const whoAmI = () => server!.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    const review = await whoAmI();
    assert.equal(review.status, 201, review.text);
    assert.deepEqual(review.json.status.userInfo, { username: `system:serviceaccount:${ns}:robot`, uid: account.json.metadata.uid, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] });
    const labelled = (await server.request('GET', `/api/v1/namespaces/${ns}/secrets/robot-token`)).json;
    assert.equal(labelled.metadata.labels['kubernetes.io/legacy-token-last-used'], new Date().toISOString().slice(0, 10), 'the day of use');

    // The legacy token cleaner's label: refused until it is removed.
    labelled.metadata.labels['kubernetes.io/legacy-token-invalid-since'] = '2026-01-01';
    assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/secrets/robot-token`, { body: labelled })).status, 200);
    assert.equal((await whoAmI()).status, 401);
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/robot-token`)).status, 200);
    assert.equal((await whoAmI()).status, 401, 'its Secret gone');
    await server.stop();

    // Without lookup the Secret does not matter.
    server = await start(false);
    assert.equal((await whoAmI()).status, 201);
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
