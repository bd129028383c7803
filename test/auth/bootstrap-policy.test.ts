// The bootstrap policy's data (policy.json is a fresh generation from upstream's YAML) and
// its reconciliation with stored objects, case by case, as upstream's union mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../src/api/index.ts';
import { bootstrapPolicy, reconcileClusterRole, reconcileClusterRoleBinding } from '../../src/auth/bootstrap-policy.ts';
import { generateBootstrapPolicy, policyJsonPath } from '../../tools/generate-bootstrap-policy.ts';
import type { AuthorizationAttributes } from '../../src/auth/authorize.ts';
import { ruleAllows, type PolicyRule } from '../../src/auth/rbac-rules.ts';
import { aggregatedRules } from '../../src/controllers/clusterrole-aggregation.ts';

test('policy.json equals a fresh generation from the YAML data', () => {
  assert.equal(readFileSync(policyJsonPath, 'utf8'), generateBootstrapPolicy());
});

test('the policy has the roles and bindings the acceptance names, labelled and annotated as upstream', () => {
  const { clusterRoles, clusterRoleBindings } = bootstrapPolicy();
  const roleNames = clusterRoles.map((r) => r.metadata.name);
  for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:monitoring',
    'system:kube-controller-manager', 'system:kube-scheduler', 'system:controller:namespace-controller', 'system:controller:clusterrole-aggregation-controller']) {
    assert.ok(roleNames.includes(name), name);
  }
  for (const object of [...clusterRoles, ...clusterRoleBindings]) {
    assert.equal(object.metadata.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults', object.metadata.name);
    assert.equal(object.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true', object.metadata.name);
  }
  const masters = clusterRoleBindings.find((b) => b.metadata.name === 'cluster-admin')!;
  assert.deepEqual(masters.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
  const controller = clusterRoleBindings.find((b) => b.metadata.name === 'system:controller:job-controller')!;
  assert.deepEqual(controller.subjects, [{ kind: 'ServiceAccount', name: 'job-controller', namespace: 'kube-system' }]);
});

/** The bootstrap ClusterRoles by name, aggregated ones filled as the aggregation controller does (view feeds edit, which feeds admin). */
function bootstrapRoles(): Map<string, KubeObject> {
  const roles = new Map(bootstrapPolicy().clusterRoles.map((r) => [r.metadata.name!, r]));
  for (let round = 0; round < 3; round++) {
    for (const r of roles.values()) if (r.aggregationRule) r.rules = aggregatedRules(r, [...roles.values()]);
  }
  return roles;
}

function request(verb: string, group: string, resource: string, subresource = '', namespace = ''): AuthorizationAttributes {
  return { verb, group, resource, subresource, namespace, name: '', path: '' };
}
const urlRequest = (path: string): AuthorizationAttributes => ({ verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path });

// What kube-apiserver v1.36 grants with its default feature gates: DynamicResourceAllocation (GA),
// DRAExtendedResource, DRAResourceClaimGranularStatusAuthorization, ComponentFlagz and
// ComponentStatusz (beta, on); not ClusterTrustBundle, PodCertificateRequest or
// DRADeviceTaintRules (beta, off) nor GenericWorkload (alpha).
const v136Grants: { role: string; request: AuthorizationAttributes; allowed: boolean }[] = [
  { role: 'view', request: request('list', 'resource.k8s.io', 'resourceclaims', '', 'ns1'), allowed: true },
  { role: 'view', request: request('watch', 'resource.k8s.io', 'resourceclaims', 'status', 'ns1'), allowed: true },
  { role: 'view', request: request('get', 'events.k8s.io', 'events', '', 'ns1'), allowed: true },
  { role: 'view', request: request('create', 'resource.k8s.io', 'resourceclaims', '', 'ns1'), allowed: false },
  { role: 'edit', request: request('create', 'resource.k8s.io', 'resourceclaimtemplates', '', 'ns1'), allowed: true },
  { role: 'edit', request: request('delete', 'events.k8s.io', 'events', '', 'ns1'), allowed: true },
  { role: 'edit', request: request('list', 'scheduling.k8s.io', 'workloads', '', 'ns1'), allowed: false },
  { role: 'system:kube-scheduler', request: request('update', 'resource.k8s.io', 'resourceclaims', 'status', 'ns1'), allowed: true },
  { role: 'system:kube-scheduler', request: request('patch', 'resource.k8s.io', 'resourceclaims', 'binding', 'ns1'), allowed: true },
  { role: 'system:kube-scheduler', request: request('create', 'resource.k8s.io', 'resourceclaims', '', 'ns1'), allowed: true },
  { role: 'system:kube-scheduler', request: request('list', 'resource.k8s.io', 'resourceslices'), allowed: true },
  { role: 'system:kube-scheduler', request: request('watch', 'resource.k8s.io', 'deviceclasses'), allowed: true },
  { role: 'system:kube-scheduler', request: request('list', 'storage.k8s.io', 'volumeattachments'), allowed: true },
  { role: 'system:kube-scheduler', request: request('watch', 'coordination.k8s.io', 'leasecandidates', '', 'kube-system'), allowed: true },
  { role: 'system:kube-scheduler', request: request('list', 'resource.k8s.io', 'devicetaintrules'), allowed: false },
  { role: 'system:kube-scheduler', request: request('list', 'scheduling.k8s.io', 'podgroups', '', 'ns1'), allowed: false },
  { role: 'system:node', request: request('get', 'resource.k8s.io', 'resourceclaims', '', 'ns1'), allowed: true },
  { role: 'system:node', request: request('deletecollection', 'resource.k8s.io', 'resourceslices'), allowed: true },
  { role: 'system:node', request: request('get', '', 'serviceaccounts', '', 'ns1'), allowed: true },
  { role: 'system:node', request: request('create', 'events.k8s.io', 'events', '', 'ns1'), allowed: true },
  { role: 'system:node', request: request('list', 'certificates.k8s.io', 'clustertrustbundles'), allowed: false },
  { role: 'system:node', request: request('create', 'certificates.k8s.io', 'podcertificaterequests', '', 'ns1'), allowed: false },
  { role: 'system:node-proxier', request: request('watch', 'networking.k8s.io', 'servicecidrs'), allowed: true },
  { role: 'system:node-proxier', request: request('list', 'discovery.k8s.io', 'endpointslices'), allowed: true },
  { role: 'system:kubelet-api-admin', request: request('get', '', 'nodes', 'configz'), allowed: true },
  { role: 'system:kubelet-api-admin', request: request('create', '', 'nodes', 'pods'), allowed: true },
  { role: 'system:monitoring', request: urlRequest('/flagz'), allowed: true },
  { role: 'system:monitoring', request: urlRequest('/statusz'), allowed: true },
  { role: 'system:monitoring', request: request('get', '', 'nodes', 'metrics'), allowed: true },
  { role: 'system:service-account-issuer-discovery', request: urlRequest('/openid/v1/jwks/'), allowed: true },
];

const roles136 = bootstrapRoles();
for (const { role: name, request: req, allowed } of v136Grants) {
  const what = `${req.verb} ${req.resource === '' ? req.path : `${req.group ? `${req.group}/` : ''}${req.resource}${req.subresource ? `/${req.subresource}` : ''}`}`;
  test(`v1.36 defaults: ${name} ${allowed ? 'may' : 'may not'} ${what}`, () => {
    const rules = (roles136.get(name)!.rules ?? []) as PolicyRule[];
    assert.equal(rules.some((rule) => ruleAllows(req, rule)), allowed);
  });
}

test('v1.36 defaults: no ClusterTrustBundle role or binding (the gate is off), and the monitoring and issuer-discovery bindings', () => {
  const { clusterRoles, clusterRoleBindings } = bootstrapPolicy();
  assert.ok(!clusterRoles.some((r) => r.metadata.name === 'system:cluster-trust-bundle-discovery'));
  assert.ok(!clusterRoleBindings.some((b) => b.metadata.name === 'system:cluster-trust-bundle-discovery'));
  const subjectsOf = (name: string) => clusterRoleBindings.find((b) => b.metadata.name === name)?.subjects;
  assert.deepEqual(subjectsOf('system:monitoring'), [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:monitoring' }]);
  assert.deepEqual(subjectsOf('system:service-account-issuer-discovery'), [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:serviceaccounts' }]);
});

function role(name: string, extra: Partial<KubeObject> & { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): KubeObject {
  const { labels, annotations, ...rest } = extra;
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) }, ...rest };
}

const expectedRole = role('r', { labels: { a: '1' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] });

const roleCases: { name: string; existing: KubeObject; expected: KubeObject; result: ReturnType<typeof reconcileClusterRole> }[] = [
  { name: 'up to date: nothing to do', existing: expectedRole, expected: expectedRole, result: { operation: 'none' } },
  {
    name: 'extra rules and labels stay; missing rules are added, broken down',
    existing: role('r', { labels: { a: '1', mine: 'x' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['*'], apiGroups: [''], resources: ['secrets'] }] }),
    expected: expectedRole,
    result: { operation: 'update', object: role('r', { labels: { a: '1', mine: 'x' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['*'], apiGroups: [''], resources: ['secrets'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }] }) },
  },
  {
    name: 'missing labels and annotations are added, existing values win',
    existing: role('r', { labels: { a: 'changed' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] }),
    expected: expectedRole,
    result: { operation: 'update', object: role('r', { labels: { a: 'changed' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] }) },
  },
  { name: 'autoupdate "false" protects it', existing: role('r', { annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' }, rules: [] }), expected: expectedRole, result: { operation: 'none' } },
  {
    name: 'a missing aggregation selector is added; aggregated rules are not compared',
    existing: role('v', { labels: { a: '1' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mine: 'true' } }] }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }),
    expected: role('v', { labels: { a: '1' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { up: 'true' } }] }, rules: [] }),
    result: { operation: 'update', object: role('v', { labels: { a: '1' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mine: 'true' } }, { matchLabels: { up: 'true' } }] }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }) },
  },
];

for (const { name, existing, expected, result } of roleCases) {
  test(`reconciling a ClusterRole: ${name}`, () => assert.deepEqual(reconcileClusterRole(existing, expected), result));
}

function crb(roleName: string, subjects: unknown[], annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'b', ...(annotations ? { annotations } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName }, subjects,
  };
}
const masters = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' };
const alice = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' };

const bindingCases: { name: string; existing: KubeObject; expected: KubeObject; result: ReturnType<typeof reconcileClusterRoleBinding> }[] = [
  { name: 'up to date', existing: crb('cluster-admin', [masters]), expected: crb('cluster-admin', [masters]), result: { operation: 'none' } },
  { name: 'a missing subject is added, extra ones stay', existing: crb('cluster-admin', [alice]), expected: crb('cluster-admin', [masters]), result: { operation: 'update', object: crb('cluster-admin', [alice, masters]) } },
  { name: 'another roleRef: made again', existing: crb('view', [masters]), expected: crb('cluster-admin', [masters]), result: { operation: 'recreate', object: crb('cluster-admin', [masters]) } },
  { name: 'protected', existing: crb('cluster-admin', [], { 'rbac.authorization.kubernetes.io/autoupdate': 'false' }), expected: crb('cluster-admin', [masters]), result: { operation: 'none' } },
];

for (const { name, existing, expected, result } of bindingCases) {
  test(`reconciling a ClusterRoleBinding: ${name}`, () => assert.deepEqual(reconcileClusterRoleBinding(existing, expected), result));
}

test('reconciling reads the existing object without changing it: a watch cache\'s frozen copy gives an update of its own', () => {
  const freeze = <T>(value: T): T => {
    if (value !== null && typeof value === 'object') {
      for (const v of Object.values(value)) freeze(v);
      Object.freeze(value);
    }
    return value;
  };
  const existing = freeze(role('r', { labels: { mine: 'x' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }));
  const result = reconcileClusterRole(existing, expectedRole);
  assert.equal(result.operation, 'update');
  const object = (result as { object: KubeObject }).object;
  assert.deepEqual(object.metadata.labels, { a: '1', mine: 'x' });
  // The Store may change what it is given (defaults, managed fields): nothing in it is frozen or shared.
  (object.rules as Array<{ verbs: string[] }>)[0]!.verbs.push('watch');
  (object.metadata.labels as Record<string, string>).added = 'y';
  assert.deepEqual((existing.rules as Array<{ verbs: string[] }>)[0]!.verbs, ['get']);
  assert.deepEqual(existing.metadata.labels, { mine: 'x' });

  const binding = freeze(crb('cluster-admin', [alice]));
  const rebound = reconcileClusterRoleBinding(binding, crb('cluster-admin', [masters]));
  (rebound as { object: KubeObject }).object.metadata.name = 'changed';
  ((rebound as { object: KubeObject }).object.subjects as unknown[]).push({});
  assert.equal(binding.metadata.name, 'b');
  assert.equal((binding.subjects as unknown[]).length, 1);
});
