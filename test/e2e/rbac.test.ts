// RBAC end to end: the bootstrap policy after start, a token user limited to one namespace
// by a RoleBinding (403 with upstream's message elsewhere), escalation refused, ClusterRole
// aggregation, apply that creates needing `create`, anonymous access to the public paths,
// and --authorization-mode.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const rbacApi = '/apis/rbac.authorization.k8s.io/v1';
let server: TestServer;
const dir = tempDir('plinth-rbac-');
const tokens = { admin: 'admin-token', alice: 'alice-token', bob: 'bob-token' };

before(async () => {
  const file = path.join(dir, 'tokens.csv');
  writeFileSync(file, [
    `${tokens.admin},admin,admin,"system:masters"`,
    `${tokens.alice},alice,alice-uid,"dev"`,
    `${tokens.bob},bob,bob-uid`,
  ].join('\n'));
  server = await startServer({ tokenAuthFile: file });
});
after(() => server.stop());

function roleBinding(name: string, roleKind: string, roleName: string, subject: Record<string, string>) {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName }, subjects: [subject] };
}
const alice = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' };

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('the bootstrap roles and bindings exist after start, labelled as upstream, aggregated roles filled', async () => {
  for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:kube-scheduler', 'system:controller:job-controller']) {
    const res = await server.request('GET', `${rbacApi}/clusterroles/${encodeURIComponent(name)}`);
    assert.equal(res.status, 200, name);
    assert.equal(res.json.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.equal(res.json.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true');
  }
  const view = await server.request('GET', `${rbacApi}/clusterroles/view`);
  assert.ok(view.json.rules.some((r: { resources?: string[] }) => r.resources?.includes('pods')));
  const binding = await server.request('GET', `${rbacApi}/clusterrolebindings/cluster-admin`);
  assert.deepEqual(binding.json.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
});

test('a user without bindings is refused with upstream\'s message; a RoleBinding grants one namespace only', async () => {
  const ns = await server.newNamespace('rbac-limited');
  const other = await server.newNamespace('rbac-other');
  const refused = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: tokens.alice });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.message, `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`);
  assert.equal(refused.json.reason, 'Forbidden');

  const created = await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { body: roleBinding('alice-edit', 'ClusterRole', 'edit', alice) });
  assert.equal(created.status, 201, created.text);
  await until(async () => (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: tokens.alice })).status === 200, 'the binding to apply');
  const cm = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { token: tokens.alice, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
  assert.equal(cm.status, 201);

  const cases: [method: string, path: string, message: string][] = [
    ['GET', `/api/v1/namespaces/${other}/configmaps/c`, `configmaps "c" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "${other}"`],
    ['GET', '/api/v1/configmaps', 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope'],
    ['GET', '/api/v1/nodes', 'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope'],
    ['GET', `/apis/apps/v1/namespaces/${other}/deployments`, `deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" in the namespace "${other}"`],
    ['GET', `/api/v1/namespaces/${ns}/resourcequotas/q/status`, ''],
    ['GET', '/metrics', 'forbidden: User "alice" cannot get path "/metrics"'],
  ];
  for (const [method, urlPath, message] of cases) {
    const res = await server.request(method, urlPath, { token: tokens.alice });
    if (message === '') {
      // edit (through view) may read resourcequotas/status: the object is just absent.
      assert.equal(res.status, 404, urlPath);
      continue;
    }
    assert.equal(res.status, 403, urlPath);
    assert.equal(res.json.message, message);
  }
  // Discovery and the public paths: system:discovery and system:public-info-viewer for every authenticated user.
  for (const urlPath of ['/api', '/apis', '/version', '/healthz', '/openapi/v2']) {
    assert.equal((await server.request('GET', urlPath, { token: tokens.bob })).status, 200, urlPath);
  }
});

test('anonymous requests reach only the public paths: 403 elsewhere, as system:anonymous', async () => {
  for (const urlPath of ['/healthz', '/livez', '/readyz', '/version']) assert.equal((await server.request('GET', urlPath, { anonymous: true })).status, 200, urlPath);
  for (const urlPath of ['/api', '/api/v1/namespaces', '/readyz/etcd']) assert.equal((await server.request('GET', urlPath, { anonymous: true })).status, 403, urlPath);
});

test('escalation is refused: a Role with rules the user lacks, a binding to a role it does not hold', async () => {
  const ns = await server.newNamespace('rbac-escalate');
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { body: roleBinding('alice-admin', 'ClusterRole', 'admin', alice) })).status, 201);
  await until(async () => (await server.request('GET', `${rbacApi}/namespaces/${ns}/roles`, { token: tokens.alice })).status === 200, 'the binding to apply');

  const within = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] };
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { token: tokens.alice, body: within })).status, 201);

  const beyond = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'nodes' }, rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'delete'] }, { apiGroups: ['apps'], resources: ['deployments'], verbs: ['escalate'] }] };
  const refused = await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { token: tokens.alice, body: beyond });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.message, 'roles.rbac.authorization.k8s.io "nodes" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
    + '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "delete"]}\n{APIGroups:["apps"], Resources:["deployments"], Verbs:["escalate"]}');
  assert.deepEqual(refused.json.details, { name: 'nodes', group: 'rbac.authorization.k8s.io', kind: 'roles' });
  // Checked before the type's validation, as upstream's policy-based storage: invalid besides, still the 403.
  const invalidToo = { ...beyond, metadata: { name: 'nodes-invalid' }, rules: [...beyond.rules, { apiGroups: [''], resources: ['pods'], verbs: [] }] };
  const refusedFirst = await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { token: tokens.alice, body: invalidToo });
  assert.equal(refusedFirst.status, 403, refusedFirst.text);

  // A binding to cluster-admin: alice holds admin only in this namespace.
  const bind = await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { token: tokens.alice, body: roleBinding('bob-root', 'ClusterRole', 'cluster-admin', { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }) });
  assert.equal(bind.status, 403);
  assert.match(bind.json.message, /^rolebindings\.rbac\.authorization\.k8s\.io "bob-root" is forbidden: user "alice" \(groups=\["dev" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/);
  // A binding to what she holds is fine; so is binding anything once she may `bind` it.
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { token: tokens.alice, body: roleBinding('bob-view', 'ClusterRole', 'view', { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }) })).status, 201);
  const binder = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `binder-${ns}` }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] }] };
  assert.equal((await server.request('POST', `${rbacApi}/clusterroles`, { body: binder })).status, 201);
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { body: roleBinding('alice-binder', 'ClusterRole', `binder-${ns}`, alice) })).status, 201);
  await until(async () => (await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { token: tokens.alice, body: roleBinding('bob-root', 'ClusterRole', 'cluster-admin', { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }) })).status === 201, 'bind to be granted');
  // The admin (system:masters) is never refused.
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { body: beyond })).status, 201);
});

test('escalation checks read the stores: a binding to a missing role is 404, dangling bindings show as resolution errors', async () => {
  const ns = await server.newNamespace('rbac-missing');
  const bob = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' };
  const writer = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'rbac-writer' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create'] }] };
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { body: writer })).status, 201);
  for (const binding of [roleBinding('bob-writer', 'Role', 'rbac-writer', bob), roleBinding('dangling-a', 'Role', 'gone', bob), roleBinding('dangling-b', 'ClusterRole', `gone-${ns}`, bob)]) {
    assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { body: binding })).status, 201, binding.metadata.name);
  }
  await until(async () => (await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { token: tokens.bob, body: roleBinding('self', 'Role', 'rbac-writer', bob) })).status === 201, 'the binding to apply');

  // Upstream's policy-based storage returns GetRoleReferenceRules' error as it is: the roles store's NotFound.
  const cases: { roleKind: string; roleName: string; message: string; kind: string }[] = [
    { roleKind: 'Role', roleName: 'missing', message: 'roles.rbac.authorization.k8s.io "missing" not found', kind: 'roles' },
    { roleKind: 'ClusterRole', roleName: `missing-${ns}`, message: `clusterroles.rbac.authorization.k8s.io "missing-${ns}" not found`, kind: 'clusterroles' },
  ];
  for (const c of cases) {
    const res = await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { token: tokens.bob, body: roleBinding(`to-${c.roleName}`, c.roleKind, c.roleName, bob) });
    assert.equal(res.status, 404, `${c.roleKind}: ${res.text}`);
    assert.equal(res.json.reason, 'NotFound');
    assert.equal(res.json.message, c.message);
    assert.deepEqual(res.json.details, { name: c.roleName, group: 'rbac.authorization.k8s.io', kind: c.kind });
  }

  // ConfirmNoEscalation appends the resolver's aggregate error, in the stores' words, with %v of a one-error slice.
  const beyond = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pods-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
  const refused = await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { token: tokens.bob, body: beyond });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.message, 'roles.rbac.authorization.k8s.io "pods-reader" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
    + `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [[roles.rbac.authorization.k8s.io "gone" not found, clusterroles.rbac.authorization.k8s.io "gone-${ns}" not found]]`);
});

test('a ClusterRole labelled aggregate-to-view shows in view (and so in edit and admin)', async () => {
  const name = 'widgets-view';
  const res = await server.request('POST', `${rbacApi}/clusterroles`, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }] },
  });
  assert.equal(res.status, 201);
  const hasWidgets = async (role: string) => (await server.request('GET', `${rbacApi}/clusterroles/${role}`)).json.rules.some((r: { apiGroups?: string[] }) => r.apiGroups?.includes('example.com'));
  for (const role of ['view', 'edit', 'admin']) await until(() => hasWidgets(role), `${role} to aggregate`);
  assert.equal((await server.request('DELETE', `${rbacApi}/clusterroles/${name}`)).status, 200);
  await until(async () => !(await hasWidgets('view')), 'view to drop the rule');
});

test('a ClusterRole aggregates while it has an aggregationRule, made or taken away after start', async () => {
  const role = (name: string, extra: Record<string, unknown>) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, ...extra });
  const rulesOf = async (name: string) => (await server.request('GET', `${rbacApi}/clusterroles/${name}`)).json.rules as Array<{ resources?: string[] }> | null;
  const grants = async (name: string, resource: string) => ((await rulesOf(name)) ?? []).some((r) => r.resources?.includes(resource));
  const labelled = (name: string, resource: string) => ({ ...role(name, { rules: [{ apiGroups: ['example.com'], resources: [resource], verbs: ['get'] }] }), metadata: { name, labels: { 'example.com/aggregate-to-gadgets': 'true' } } });
  const rule = { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-gadgets': 'true' } }] };
  assert.equal((await server.request('POST', `${rbacApi}/clusterroles`, { body: labelled('gadgets-a', 'gadgets') })).status, 201);
  assert.equal((await server.request('POST', `${rbacApi}/clusterroles`, { body: role('gadgets-all', { aggregationRule: rule }) })).status, 201);
  await until(() => grants('gadgets-all', 'gadgets'), 'a new aggregated role to get the labelled role\'s rules');
  assert.equal((await server.request('POST', `${rbacApi}/clusterroles`, { body: labelled('gadgets-b', 'sprockets') })).status, 201);
  await until(() => grants('gadgets-all', 'sprockets'), 'a role labelled later to be aggregated');

  // Without its aggregationRule the role keeps what it has and takes no more.
  const current = (await server.request('GET', `${rbacApi}/clusterroles/gadgets-all`)).json;
  delete current.aggregationRule;
  assert.equal((await server.request('PUT', `${rbacApi}/clusterroles/gadgets-all`, { body: current })).status, 200);
  assert.equal((await server.request('POST', `${rbacApi}/clusterroles`, { body: labelled('gadgets-c', 'widgets-c') })).status, 201);
  // A role that still aggregates the same labels shows the controller has seen gadgets-c.
  assert.equal((await server.request('POST', `${rbacApi}/clusterroles`, { body: role('gadgets-watcher', { aggregationRule: rule }) })).status, 201);
  await until(() => grants('gadgets-watcher', 'widgets-c'), 'the other aggregated role to take the new rules');
  assert.equal(await grants('gadgets-all', 'widgets-c'), false, 'a role no longer aggregated took new rules');
  assert.equal(await grants('gadgets-all', 'sprockets'), true);
  for (const name of ['gadgets-a', 'gadgets-b', 'gadgets-c', 'gadgets-all', 'gadgets-watcher']) await server.request('DELETE', `${rbacApi}/clusterroles/${name}`);
});

test('apply that creates needs create; apply of an existing object needs patch only', async () => {
  const ns = await server.newNamespace('rbac-apply');
  const patcher = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'patcher' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['patch', 'get'] }] };
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { body: patcher })).status, 201);
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { body: roleBinding('bob-patcher', 'Role', 'patcher', { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }) })).status, 201);
  const apply = (name: string) => server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}?fieldManager=test`, {
    token: tokens.bob, raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } }), headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  await until(async () => (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/none`, { token: tokens.bob })).status === 404, 'the binding to apply');
  const creating = await apply('new');
  assert.equal(creating.status, 403);
  assert.equal(creating.json.message, `configmaps "new" is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "${ns}"`);
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' } } })).status, 201);
  assert.equal((await apply('old')).status, 200);
});

test('resourceNames allow a list or watch that selects the name with metadata.name=, as client-go\'s one-object informers send', async () => {
  const ns = await server.newNamespace('rbac-selected');
  const reader = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], resourceNames: ['one'] }] };
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/roles`, { body: reader })).status, 201);
  assert.equal((await server.request('POST', `${rbacApi}/namespaces/${ns}/rolebindings`, { body: roleBinding('bob-reader', 'Role', 'reader', { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }) })).status, 201);
  for (const name of ['one', 'two']) {
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } })).status, 201);
  }
  await until(async () => (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/one`, { token: tokens.bob })).status === 200, 'the binding to apply');
  const list = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Done`, { token: tokens.bob });
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.kind, 'ConfigMapList');
  assert.deepEqual(list.json.items.map((cm: { metadata: { name: string } }) => cm.metadata.name), ['one']);
  const watch = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Done`, { token: tokens.bob });
  assert.equal(watch.status, 200, watch.text);
  assert.match(watch.text, /"type":"ADDED".*"name":"one"/);
  const other = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dtwo`, { token: tokens.bob });
  assert.equal(other.status, 403);
  assert.equal(other.json.message, `configmaps "two" is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`);
  assert.equal(other.json.details.name, 'two');
  // Without the selector the list names nothing, and resourceNames do not allow it.
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: tokens.bob })).status, 403);
  // A list option that does not decode leaves the request without a name, as upstream.
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Done&limit=x`, { token: tokens.bob })).status, 403);
});

const modes: { modes: ('AlwaysAllow' | 'AlwaysDeny' | 'RBAC')[]; bob: number }[] = [
  { modes: ['AlwaysAllow'], bob: 200 },
  { modes: ['AlwaysDeny'], bob: 403 },
  // AlwaysDeny has no opinion (with its reason), as upstream's: a later mode may allow.
  { modes: ['AlwaysDeny', 'AlwaysAllow'], bob: 200 },
  { modes: ['AlwaysDeny', 'RBAC'], bob: 403 },
  { modes: ['RBAC', 'AlwaysAllow'], bob: 200 },
];
for (const { modes: authorizationModes, bob } of modes) {
  test(`--authorization-mode ${authorizationModes.join(',')}: the admin (system:masters) is allowed, bob gets ${bob}`, async () => {
    const file = path.join(tempDir('plinth-rbac-modes-'), 'tokens.csv');
    writeFileSync(file, `${tokens.admin},admin,admin,"system:masters"\n${tokens.bob},bob,bob-uid\n`);
    const s = await startServer({ tokenAuthFile: file, authorizationModes });
    try {
      assert.equal((await s.request('GET', '/api/v1/namespaces')).status, 200);
      const answer = await s.request('GET', '/api/v1/namespaces', { token: tokens.bob });
      assert.equal(answer.status, bob);
      if (authorizationModes[0] === 'AlwaysDeny' && bob === 403) assert.match(answer.json.message, /: Everything is forbidden\./);
    } finally {
      await s.stop();
    }
  });
}

test('a restart completes the bootstrap policy as stored: missing rules, subjects and labels come back, protected objects stay', async () => {
  const dataDir = tempDir('plinth-rbac-restart-');
  const first = await startServer({ storage: 'sqlite', dataDir });
  try {
    const view = (await first.request('GET', `${rbacApi}/clusterroles/view`)).json;
    // No label, one rule of the bootstrap's left, and a label of our own.
    const trimmed = await first.request('PUT', `${rbacApi}/clusterroles/view`, {
      body: { ...view, metadata: { ...view.metadata, labels: { mine: 'yes' } }, rules: view.rules.slice(0, 1), aggregationRule: undefined },
    });
    assert.equal(trimmed.status, 200, trimmed.text);
    const binding = (await first.request('GET', `${rbacApi}/clusterrolebindings/system:discovery`)).json;
    const rebound = await first.request('PUT', `${rbacApi}/clusterrolebindings/system:discovery`, { body: { ...binding, subjects: [alice] } });
    assert.equal(rebound.status, 200, rebound.text);
    const basic = (await first.request('GET', `${rbacApi}/clusterroles/system:basic-user`)).json;
    const protectedRole = await first.request('PUT', `${rbacApi}/clusterroles/system:basic-user`, {
      body: { ...basic, metadata: { ...basic.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] },
    });
    assert.equal(protectedRole.status, 200, protectedRole.text);
    const gone = await first.request('DELETE', `${rbacApi}/clusterroles/system:public-info-viewer`);
    assert.equal(gone.status, 200, gone.text);
  } finally {
    await first.stop();
  }
  const second = await startServer({ storage: 'sqlite', dataDir });
  try {
    const view = (await second.request('GET', `${rbacApi}/clusterroles/view`)).json;
    assert.equal(view.metadata.labels.mine, 'yes', 'labels of its own stay');
    assert.equal(view.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.ok(view.rules.some((r: { resources?: string[] }) => r.resources?.includes('pods')), 'the missing rules are back');
    assert.ok(view.aggregationRule.clusterRoleSelectors.length > 0, 'and its aggregation rule');
    const binding = (await second.request('GET', `${rbacApi}/clusterrolebindings/system:discovery`)).json;
    assert.deepEqual(binding.subjects.map((s: { name: string }) => s.name), ['alice', 'system:authenticated'], 'subjects of its own stay, the missing one is added');
    const basic = (await second.request('GET', `${rbacApi}/clusterroles/system:basic-user`)).json;
    // Its rules as they were written ([], read back null as upstream's Protobuf storage reads an empty list).
    assert.equal(basic.rules, null, 'autoupdate "false" is left alone');
    assert.equal((await second.request('GET', `${rbacApi}/clusterroles/system:public-info-viewer`)).status, 200, 'a deleted one is made again');
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
