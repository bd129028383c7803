// Constrained impersonation through a real server with RBAC: the server hands the request's
// own attributes to impersonation (impersonate-on:<mode>:<verb>), a constrained grant allows
// exactly its actions, the legacy `impersonate` grant still allows any, and a refusal is
// upstream's 403 before the impersonated user is authorized.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, tempDir } from '../helpers/server.ts';
import { defaultConfig } from '../../src/cli/config.ts';

function tokenFile(): string {
  const file = path.join(tempDir('plinth-impersonation-'), 'tokens.csv');
  writeFileSync(file, ['admin-token,admin,admin,"system:masters"', 'deputy-token,deputy,deputy-uid,""', 'old-token,old-style,old-uid,""'].join('\n'));
  return file;
}

const rbacBase = '/apis/rbac.authorization.k8s.io/v1';

test('a constrained grant lets deputy list pods as jane and nothing else; the legacy grant lets old-style do anything jane may', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['RBAC'] });
  t.after(() => server.stop());
  const ns = await server.newNamespace('impersonation');
  const create = async (url: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', url, { token: 'admin-token', body });
    assert.equal(res.status, 201, res.text);
  };
  const bind = async (kind: 'ClusterRole' | 'Role', name: string, user: string, rules: unknown[]) => {
    const scope = kind === 'Role' ? `/namespaces/${ns}` : '';
    const metadata = kind === 'Role' ? { name, namespace: ns } : { name: `${ns}-${name}` };
    await create(`${rbacBase}${scope}/${kind === 'Role' ? 'roles' : 'clusterroles'}`, { metadata, rules });
    await create(`${rbacBase}${scope}/${kind === 'Role' ? 'rolebindings' : 'clusterrolebindings'}`, {
      metadata, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: metadata.name }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
  };
  // jane herself may read and delete pods and configmaps in the namespace.
  await bind('Role', 'jane', 'jane', [{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['get', 'list', 'delete'] }]);
  await bind('ClusterRole', 'be-jane', 'deputy', [{ apiGroups: ['authentication.k8s.io'], resources: ['users'], resourceNames: ['jane'], verbs: ['impersonate:user-info'] }]);
  await bind('Role', 'list-pods-as-others', 'deputy', [{ apiGroups: [''], resources: ['pods'], verbs: ['impersonate-on:user-info:list'] }]);
  await bind('ClusterRole', 'impersonate-users', 'old-style', [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }]);
  await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'settings' } });

  const asJane = { 'Impersonate-User': 'jane' };
  const cases: { name: string; token: string; method: string; url: string; status: number; message?: string }[] = [
    { name: 'deputy lists pods as jane', token: 'deputy-token', method: 'GET', url: `/api/v1/namespaces/${ns}/pods`, status: 200 },
    {
      name: 'deputy may not read a configmap as jane', token: 'deputy-token', method: 'GET', url: `/api/v1/namespaces/${ns}/configmaps/settings`, status: 403,
      message: `configmaps "settings" is forbidden: User "deputy" cannot impersonate-on:user-info:get resource "configmaps" in API group "" in the namespace "${ns}"`,
    },
    {
      name: 'deputy may not list pods as jane in another namespace', token: 'deputy-token', method: 'GET', url: '/api/v1/namespaces/default/pods', status: 403,
      message: 'pods is forbidden: User "deputy" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "default"',
    },
    { name: 'old-style reads the configmap as jane', token: 'old-token', method: 'GET', url: `/api/v1/namespaces/${ns}/configmaps/settings`, status: 200 },
    {
      name: 'old-style as jane is still only jane', token: 'old-token', method: 'GET', url: '/api/v1/namespaces/default/configmaps', status: 403,
      message: 'configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"',
    },
  ];
  for (const c of cases) {
    const res = await server.request(c.method, c.url, { token: c.token, headers: asJane });
    assert.equal(res.status, c.status, `${c.name}: ${res.text}`);
    if (c.message !== undefined) assert.equal((res.json as { message: string }).message, c.message, c.name);
  }
  // Who the request then is: jane, with the groups impersonation adds (asked through old-style's grant: deputy's allows listing pods only).
  const review = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: 'old-token', headers: asJane, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  assert.equal(review.status, 201, review.text);
  assert.deepEqual((review.json as { status: { userInfo: unknown } }).status.userInfo, { username: 'jane', groups: ['system:authenticated'] });
});

test('--feature-gates=ConstrainedImpersonation=false checks only the impersonate verb, with the older filter\'s words', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['RBAC'], featureGates: { ...defaultConfig().featureGates, ConstrainedImpersonation: false } });
  t.after(() => server.stop());
  const res = await server.request('GET', '/api/v1/namespaces/default/pods', { token: 'deputy-token', headers: { 'Impersonate-User': 'jane' } });
  assert.equal(res.status, 403, res.text);
  assert.equal((res.json as { message: string }).message, 'users "jane" is forbidden: User "deputy" cannot impersonate resource "users" in API group "" at the cluster scope');
  const admin = await server.request('GET', '/api/v1/namespaces/default/pods', { token: 'admin-token', headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'system:masters' } });
  assert.equal(admin.status, 200, 'the legacy verb lets admin be jane in system:masters');
});
