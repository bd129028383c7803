// A long-lived token kept in a Secret of type kubernetes.io/service-account-token (what
// kube-controller-manager's token controller writes, signed with the server's key):
// accepted while the Secret holds it, the Secret labelled with the day of use, refused once
// the legacy token cleaner's label marks it invalid or the Secret is gone; with
// --service-account-lookup=false the signature and claims alone decide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { legacyRobotToken } from '../helpers/legacy-token.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

test('a Secret\'s legacy token authenticates as upstream\'s legacy validator allows it', async () => {
  const dataDir = tempDir('plinth-legacy-token-');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = path.join(dataDir, 'sa.key');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const policy = path.join(dataDir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
  const auditLog = path.join(dataDir, 'audit.log');
  const start = (lookup: boolean) => startServer({
    dataDir, storage: 'sqlite', serviceAccountSigningKeyFile: keyFile, serviceAccountKeyFiles: [keyFile], serviceAccountLookup: lookup, auditPolicyFile: policy, auditLogPath: auditLog,
  });
  let server: TestServer | undefined;
  try {
    server = await start(true);
    const ns = await server.newNamespace('legacy');
    const { token, uid } = await legacyRobotToken(server, privateKey, ns);

    const whoAmI = () => server!.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    const review = await whoAmI();
    assert.equal(review.status, 201, review.text);
    assert.deepEqual(review.json.status.userInfo, { username: `system:serviceaccount:${ns}:robot`, uid, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] });
    assert.equal(review.headers.warning, undefined, 'a Secret made by hand: no warning');
    // The authenticator's notes reach the request's audit event.
    const event = await eventually(() => {
      const found = readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).find((e) => e.auditID === review.headers['audit-id']);
      assert.ok(found !== undefined);
      return found;
    });
    assert.deepEqual(event.annotations, {
      'authentication.k8s.io/legacy-token': `system:serviceaccount:${ns}:robot`, 'authentication.k8s.io/legacy-token-manual-secret': 'robot-token',
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"',
    });
    const scrape = (await server.request('GET', '/metrics')).text;
    assert.deepEqual([sample(scrape, 'serviceaccount_legacy_tokens_total'), sample(scrape, 'serviceaccount_legacy_manual_token_uses_total')], [1, 1], 'upstream\'s counters');
    // The account naming the Secret in its secrets: a token generated for it, which upstream warns of.
    const robot = (await server.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/robot`)).json;
    robot.secrets = [{ name: 'robot-token' }];
    assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/serviceaccounts/robot`, { body: robot })).status, 200);
    assert.equal((await whoAmI()).headers.warning, '299 - "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens."');
    const labelled = (await server.request('GET', `/api/v1/namespaces/${ns}/secrets/robot-token`)).json;
    assert.equal(labelled.metadata.labels['kubernetes.io/legacy-token-last-used'], new Date().toISOString().slice(0, 10), 'the day of use');

    // The legacy token cleaner's label: refused until it is removed.
    labelled.metadata.labels['kubernetes.io/legacy-token-invalid-since'] = '2026-01-01';
    assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/secrets/robot-token`, { body: labelled })).status, 200);
    const invalidated = await whoAmI();
    assert.equal(invalidated.status, 401);
    // Its failed-authentication event says why, as upstream's.
    const refusedEvent = await eventually(() => {
      const found = readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).find((e) => e.auditID === invalidated.headers['audit-id']);
      assert.ok(found !== undefined);
      return found;
    });
    assert.equal(refusedEvent.stage, 'ResponseStarted');
    assert.deepEqual(refusedEvent.annotations, { 'authentication.k8s.io/legacy-token': `system:serviceaccount:${ns}:robot`, 'authentication.k8s.io/legacy-token-invalidated': `robot-token/${ns}` });
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
