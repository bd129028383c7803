// The RBAC matrix: for each bootstrap role bound to a user (cluster-wide, and in one
// namespace), a sample of verbs × resources × namespaces and of paths is decided as the
// role's rules in upstream's data say. Expectations come from the YAML data files and a
// reading of the rules written here, not from the authorizer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/api/index.ts';
import type { AuthorizationAttributes } from '../../src/auth/authorize.ts';
import { bootstrapPolicy } from '../../src/auth/bootstrap-policy.ts';
import { RbacAuthorizer, subjectIndexKeys, type RbacSource } from '../../src/auth/rbac.ts';
import { aggregatedRules } from '../../src/controllers/clusterrole-aggregation.ts';

interface Rule { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }

const dataDir = new URL('../../src/auth/bootstrap-policy/', import.meta.url);
const yamlRoles = (parse(readFileSync(new URL('cluster-roles.yaml', dataDir), 'utf8')) as { items: KubeObject[] }).items;

/** A role's rules from the YAML; an aggregated role's are those of the roles its label selectors pick, followed transitively. */
function expectedRules(name: string): Rule[] {
  const role = yamlRoles.find((r) => r.metadata.name === name)!;
  const selectors = (role.aggregationRule as { clusterRoleSelectors: { matchLabels: Record<string, string> }[] } | undefined)?.clusterRoleSelectors;
  if (selectors === undefined) return (role.rules ?? []) as Rule[];
  const rules: Rule[] = [];
  for (const { matchLabels } of selectors) {
    for (const other of yamlRoles) {
      if (other.metadata.name === name) continue;
      if (Object.entries(matchLabels).every(([k, v]) => other.metadata.labels?.[k] === v)) rules.push(...expectedRules(other.metadata.name!));
    }
  }
  return rules;
}

/** What the rules say of one request, read plainly. */
function rulesAllow(rules: Rule[], req: AuthorizationAttributes): boolean {
  return rules.some((rule) => {
    if (!rule.verbs.includes('*') && !rule.verbs.includes(req.verb)) return false;
    if (req.resource === '') {
      return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === req.path || (u.endsWith('*') && req.path.startsWith(u.slice(0, -1))));
    }
    if (!(rule.apiGroups ?? []).some((g) => g === '*' || g === req.group)) return false;
    const wanted = req.subresource === '' ? req.resource : `${req.resource}/${req.subresource}`;
    const resourceOk = (rule.resources ?? []).some((r) => r === '*' || r === wanted || (req.subresource !== '' && r === `*/${req.subresource}`));
    const nameOk = (rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(req.name);
    return resourceOk && nameOk;
  });
}

/** A source holding the bootstrap ClusterRoles (aggregated ones filled by the controller's rule) and the given bindings. */
function sourceWith(bindings: KubeObject[]): RbacSource {
  const roles = new Map(bootstrapPolicy().clusterRoles.map((r) => [r.metadata.name!, r]));
  // view feeds edit, which feeds admin: three rounds fill them all.
  for (let round = 0; round < 3; round++) {
    for (const role of roles.values()) if (role.aggregationRule) role.rules = aggregatedRules(role, [...roles.values()]);
  }
  const find = (namespace: string, key: string) => bindings.filter((b) => (b.metadata.namespace ?? '') === namespace && subjectIndexKeys(b).includes(key));
  return {
    clusterRoleBindings: (key) => find('', key),
    roleBindings: (namespace, key) => find(namespace, key),
    role: () => undefined,
    clusterRole: (name) => roles.get(name),
  };
}

function binding(role: string, namespace?: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: { name: `to-${role}`, ...(namespace === undefined ? {} : { namespace }) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'matrix-user' }],
  };
}

const user = { name: 'matrix-user', uid: '', groups: [] };
const roles = ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer'];
const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'impersonate', 'bind', 'escalate'];
const resources: [group: string, resource: string, subresource: string][] = [
  ['', 'pods', ''], ['', 'pods', 'log'], ['', 'pods', 'exec'], ['', 'pods', 'status'], ['', 'secrets', ''], ['', 'configmaps', ''],
  ['', 'namespaces', ''], ['', 'nodes', ''], ['', 'serviceaccounts', ''], ['', 'serviceaccounts', 'token'], ['', 'resourcequotas', ''],
  ['apps', 'deployments', ''], ['apps', 'deployments', 'scale'], ['apps', 'statefulsets', 'status'], ['batch', 'jobs', ''],
  ['rbac.authorization.k8s.io', 'roles', ''], ['rbac.authorization.k8s.io', 'clusterroles', ''],
  ['authorization.k8s.io', 'selfsubjectaccessreviews', ''], ['authorization.k8s.io', 'localsubjectaccessreviews', ''],
  ['coordination.k8s.io', 'leases', ''], ['networking.k8s.io', 'ingresses', ''], ['example.com', 'widgets', ''],
];
const namespaces = ['ns1', 'ns2', ''];
const paths = ['/healthz', '/livez', '/readyz', '/readyz/etcd', '/version', '/api', '/api/v1', '/apis', '/apis/apps/v1', '/openapi/v2', '/metrics', '/logs'];

for (const role of roles) {
  for (const scope of ['ClusterRoleBinding', 'RoleBinding in ns1'] as const) {
    test(`RBAC matrix: ${role} by ${scope}`, () => {
      const clusterWide = scope === 'ClusterRoleBinding';
      const authorizer = new RbacAuthorizer(sourceWith([binding(role, clusterWide ? undefined : 'ns1')]));
      const rules = expectedRules(role);
      let allowedCount = 0;
      for (const verb of verbs) {
        for (const [group, resource, subresource] of resources) {
          for (const namespace of namespaces) {
            for (const name of ['', 'some-name']) {
              const req: AuthorizationAttributes = { verb, group, resource, subresource, namespace, name, path: '' };
              const expected = (clusterWide || namespace === 'ns1') && rulesAllow(rules, req);
              const decision = authorizer.authorize(user, req).decision;
              assert.equal(decision, expected ? 'Allow' : 'NoOpinion', `${verb} ${group}/${resource}/${subresource} in "${namespace}" named "${name}"`);
              if (expected) allowedCount++;
            }
          }
        }
      }
      for (const verb of ['get', 'post']) {
        for (const path of paths) {
          const req: AuthorizationAttributes = { verb, group: '', resource: '', subresource: '', namespace: '', name: '', path };
          // A RoleBinding grants nothing outside its namespace, and paths are outside every namespace.
          const expected = clusterWide && rulesAllow(rules, req);
          assert.equal(authorizer.authorize(user, req).decision, expected ? 'Allow' : 'NoOpinion', `${verb} ${path}`);
        }
      }
      // The sample is not vacuous: the roles that grant resources grant some of it.
      if (rules.some((r) => (r.resources ?? []).length > 0)) assert.ok(allowedCount > 0);
    });
  }
}

test('RBAC matrix: the aggregated roles are nested as upstream (view ⊂ edit ⊂ admin)', () => {
  const authorizer = (role: string) => new RbacAuthorizer(sourceWith([binding(role)]));
  const read: AuthorizationAttributes = { verb: 'list', group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns1', name: '', path: '' };
  const write = { ...read, verb: 'create' };
  const roleWrite = { ...read, verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'rolebindings' };
  assert.deepEqual(['view', 'edit', 'admin'].map((r) => [read, write, roleWrite].map((req) => authorizer(r).authorize(user, req).decision)), [
    ['Allow', 'NoOpinion', 'NoOpinion'],
    ['Allow', 'Allow', 'NoOpinion'],
    ['Allow', 'Allow', 'Allow'],
  ]);
});
