// Authentication and RBAC together, under the default authorization mode, as a user of
// kube-apiserver meets them with kubectl 1.33: a service account's token refused until a
// Role and RoleBinding grant it one namespace, `auth can-i`, `auth whoami`, `--as`,
// escalation refused, SubjectAccessReviews, client certificates, anonymous requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { kubectlAt } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

let server: TestServer;
const dir = mkdtempSync(path.join(os.tmpdir(), 'rbac-acceptance-'));
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]) => kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], ...args);

/** kubectl with a kubeconfig of its own naming the server and a bearer token. */
function asToken(token: string) {
  const file = tokenKubeconfig(token);
  return (...args: string[]) => kubectlAt(kubectl133, ['--kubeconfig', file], ...args);
}

function tokenKubeconfig(token: string): string {
  const file = path.join(dir, `token-${Math.random().toString(36).slice(2)}.kubeconfig`);
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: c, cluster: {server: "${server.url}", certificate-authority-data: ${Buffer.from(server.caPem).toString('base64')}}}]`,
    'users: [{name: u, user: {token: "' + token + '"}}]',
    'contexts: [{name: x, context: {cluster: c, user: u}}]', 'current-context: x', '',
  ].join('\n'));
  return file;
}

/** `kubectl auth can-i`'s answer ("yes" or "no"; it exits 1 on "no") for a kubeconfig. */
async function canI(kubeconfig: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(kubectl133, ['--kubeconfig', kubeconfig, 'auth', 'can-i', ...args]);
    return stdout.trim();
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? '').trim();
  }
}

/** kubectl's error text (stderr) of a command expected to fail. */
async function refused(run: Promise<string>): Promise<string> {
  try {
    await run;
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('the command succeeded');
}

describe('RBAC with kubectl 1.33', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  test('a service account token is refused (exact 403) until a Role and RoleBinding grant it one namespace', async () => {
    const ns = await server.newNamespace('acc');
    const other = await server.newNamespace('acc-other');
    await admin('-n', ns, 'create', 'serviceaccount', 'robot');
    const token = (await admin('-n', ns, 'create', 'token', 'robot')).trim();
    const robot = asToken(token);
    const robotConfig = tokenKubeconfig(token);
    const user = `system:serviceaccount:${ns}:robot`;

    assert.match(await refused(robot('-n', ns, 'get', 'configmaps')),
      new RegExp(`configmaps is forbidden: User "${user}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`));
    assert.equal(await canI(robotConfig, 'list', 'configmaps', '-n', ns), 'no');

    await admin('-n', ns, 'create', 'role', 'cm-reader', '--verb=get,list,watch', '--resource=configmaps');
    await admin('-n', ns, 'create', 'rolebinding', 'robot-reads', '--role=cm-reader', `--serviceaccount=${ns}:robot`);
    await admin('-n', ns, 'create', 'configmap', 'settings', '--from-literal=a=1');
    assert.match(await robot('-n', ns, 'get', 'configmaps', '-o', 'name'), /configmap\/settings/);
    assert.equal(await canI(robotConfig, 'list', 'configmaps', '-n', ns), 'yes');
    // Only that namespace, and only reading.
    assert.match(await refused(robot('-n', other, 'get', 'configmaps')), new RegExp(`cannot list resource "configmaps" in API group "" in the namespace "${other}"`));
    assert.match(await refused(robot('-n', ns, 'delete', 'configmap', 'settings')),
      new RegExp(`configmaps "settings" is forbidden: User "${user}" cannot delete resource "configmaps" in API group "" in the namespace "${ns}"`));
    const rules = await robot('auth', 'can-i', '--list', '-n', ns);
    assert.match(rules, /configmaps\s+\[\]\s+\[\]\s+\[get list watch\]/);

    const whoami = await robot('auth', 'whoami', '-o', 'json');
    const review = JSON.parse(whoami);
    assert.equal(review.status.userInfo.username, user);
    assert.ok(review.status.userInfo.groups.includes(`system:serviceaccounts:${ns}`));
  });

  test('escalation is refused: a user may not grant what it does not hold', async () => {
    const ns = await server.newNamespace('acc');
    await admin('-n', ns, 'create', 'serviceaccount', 'granter');
    await admin('-n', ns, 'create', 'role', 'role-writer', '--verb=create,get', '--resource=roles.rbac.authorization.k8s.io');
    await admin('-n', ns, 'create', 'rolebinding', 'granter-writes', '--role=role-writer', `--serviceaccount=${ns}:granter`);
    const granter = asToken((await admin('-n', ns, 'create', 'token', 'granter')).trim());
    const message = await refused(granter('-n', ns, 'create', 'role', 'too-much', '--verb=delete', '--resource=secrets'));
    assert.match(message, /is attempting to grant RBAC permissions not currently held/);
    assert.match(message, /\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["delete"\]\}/);
  });

  test('--as impersonates for the admin, and is 403 for a user without the impersonate verb', async () => {
    const ns = await server.newNamespace('acc');
    assert.equal(await canI(server.kubeconfigPath, 'list', 'secrets', '-n', ns, '--as', 'nobody'), 'no');
    assert.equal(await canI(server.kubeconfigPath, 'list', 'secrets', '-n', ns), 'yes');
    assert.match(await refused(admin('-n', ns, 'get', 'secrets', '--as', 'nobody')), /secrets is forbidden: User "nobody" cannot list resource "secrets"/);
    await admin('-n', ns, 'create', 'serviceaccount', 'plain');
    const plain = asToken((await admin('-n', ns, 'create', 'token', 'plain')).trim());
    assert.match(await refused(plain('get', 'namespaces', '--as', 'admin')), /namespaces is forbidden: User "system:serviceaccount:[^"]+:plain" cannot impersonate-on:user-info:list resource "namespaces" in API group "" at the cluster scope/);
  });

  test('a SubjectAccessReview answers as upstream for allowed and denied cases', async () => {
    const review = (user: string, groups: string[], verb: string, resource: string, namespace: string) => server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: { verb, resource, namespace } } },
    });
    const allowed = await review('alice', ['system:masters'], 'delete', 'pods', 'default');
    assert.equal(allowed.status, 201);
    assert.equal(allowed.json.status.allowed, true);
    const viewer = await review('bob', ['system:authenticated'], 'list', 'pods', 'default');
    assert.deepEqual(viewer.json.status, { allowed: false });
  });

  test('client certificates signed by the client CA work with kubectl', async () => {
    const pki = path.join(server.dataDir, 'pki');
    const file = path.join(dir, 'cert.kubeconfig');
    writeFileSync(file, [
      'apiVersion: v1', 'kind: Config',
      `clusters: [{name: c, cluster: {server: "${server.url}", certificate-authority-data: ${Buffer.from(server.caPem).toString('base64')}}}]`,
      `users: [{name: u, user: {client-certificate-data: ${readFileSync(path.join(pki, 'admin.crt')).toString('base64')}, client-key-data: ${readFileSync(path.join(pki, 'admin.key')).toString('base64')}}}]`,
      'contexts: [{name: x, context: {cluster: c, user: u}}]', 'current-context: x', '',
    ].join('\n'));
    const out = await kubectlAt(kubectl133, ['--kubeconfig', file], 'auth', 'whoami', '-o', 'json');
    assert.equal(JSON.parse(out).status.userInfo.username, 'kubernetes-admin');
    assert.match(await kubectlAt(kubectl133, ['--kubeconfig', file], 'get', 'namespaces', '-o', 'name'), /namespace\/default/);
  });
});

describe('requests without credentials', () => {
  const cases: { path: string; status: number }[] = [
    { path: '/healthz', status: 200 },
    { path: '/livez', status: 200 },
    { path: '/readyz', status: 200 },
    { path: '/version', status: 200 },
    { path: '/api/v1/namespaces', status: 403 },
    { path: '/apis', status: 403 },
    { path: '/openapi/v3', status: 403 },
    { path: '/metrics', status: 403 },
  ];
  for (const c of cases) {
    test(`anonymous ${c.path} → ${c.status}, as system:public-info-viewer allows`, async () => {
      const res = await server.request('GET', c.path, { anonymous: true });
      assert.equal(res.status, c.status, res.text);
      if (c.status === 403) assert.match(res.json.message, /User "system:anonymous" cannot (get|list)/);
    });
  }

  test('bad credentials are 401 everywhere', async () => {
    for (const p of ['/healthz', '/api/v1/namespaces']) {
      const res = await server.request('GET', p, { token: 'not-a-token' });
      assert.equal(res.status, 401, p);
    }
  });
});

describe('the unsafe deletion of corrupt objects needs its own verb', () => {
  test('delete alone is 403 naming unsafe-delete-ignore-read-errors; with the verb the option reaches the object', async (t) => {
    const gated = await startServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    t.after(() => gated.stop());
    const ns = await gated.newNamespace('unsafe');
    const asAdmin = (method: string, p: string, body?: unknown) => gated.request(method, p, { body });
    assert.equal((await asAdmin('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'cleaner' } })).status, 201);
    assert.equal((await asAdmin('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
      metadata: { name: 'deleter' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }],
    })).status, 201);
    assert.equal((await asAdmin('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
      metadata: { name: 'cleaner-deletes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deleter' },
      subjects: [{ kind: 'ServiceAccount', name: 'cleaner', namespace: ns }],
    })).status, 201);
    assert.equal((await asAdmin('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' } })).status, 201);
    const token = (await asAdmin('POST', `/api/v1/namespaces/${ns}/serviceaccounts/cleaner/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).json.status.token;
    const unsafe = `/api/v1/namespaces/${ns}/secrets/s?ignoreStoreReadErrorWithClusterBreakingPotential=true`;
    const denied = await gated.request('DELETE', unsafe, { token });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, `secrets "s" is forbidden: User "system:serviceaccount:${ns}:cleaner" cannot unsafe-delete-ignore-read-errors resource "secrets" in API group "" in the namespace "${ns}"`);
    assert.equal((await asAdmin('PUT', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/deleter`, {
      metadata: { name: 'deleter' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete', 'unsafe-delete-ignore-read-errors'] }],
    })).status, 200);
    // Now the option reaches the object, which is healthy: upstream's 422.
    await eventually(async () => {
      const healthy = await gated.request('DELETE', unsafe, { token });
      assert.equal(healthy.status, 422, healthy.text);
    });
  });
});
