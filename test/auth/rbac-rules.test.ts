// RBAC rule matching (upstream's RuleAllows), rule coverage (Covers) and how escalation
// messages print rules (CompactString), case by case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unionAuthorizer, type AuthorizationAttributes } from '../../src/auth/authorize.ts';
import { compactRules, compactString, covers, ruleAllows, type PolicyRule } from '../../src/auth/rbac-rules.ts';

function resourceRequest(verb: string, group: string, resource: string, subresource = '', name = '', namespace = 'ns'): AuthorizationAttributes {
  return { verb, group, resource, subresource, namespace, name, path: '' };
}
function pathRequest(verb: string, path: string): AuthorizationAttributes {
  return { verb, group: '', resource: '', subresource: '', namespace: '', name: '', path };
}

const matching: { name: string; rule: PolicyRule; request: AuthorizationAttributes; allowed: boolean }[] = [
  { name: 'exact verb, group and resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, request: resourceRequest('get', '', 'pods'), allowed: true },
  { name: 'another verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, request: resourceRequest('list', '', 'pods'), allowed: false },
  { name: 'verb *', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, request: resourceRequest('deletecollection', '', 'pods'), allowed: true },
  { name: 'another group', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, request: resourceRequest('get', '', 'pods'), allowed: false },
  { name: 'group *', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, request: resourceRequest('get', 'apps', 'deployments'), allowed: true },
  { name: 'resource *', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['*'] }, request: resourceRequest('get', 'apps', 'deployments'), allowed: true },
  { name: 'resource * covers subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, request: resourceRequest('get', '', 'pods', 'log'), allowed: true },
  { name: 'a resource does not cover its subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, request: resourceRequest('get', '', 'pods', 'log'), allowed: false },
  { name: 'resource/subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, request: resourceRequest('get', '', 'pods', 'log'), allowed: true },
  { name: 'resource/subresource is not the resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, request: resourceRequest('get', '', 'pods'), allowed: false },
  { name: '*/subresource', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, request: resourceRequest('get', 'apps', 'deployments', 'scale'), allowed: true },
  { name: '*/subresource is not another subresource', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, request: resourceRequest('get', 'apps', 'deployments', 'status'), allowed: false },
  { name: '*/subresource is not the resource', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, request: resourceRequest('get', 'apps', 'deployments'), allowed: false },
  { name: 'resource/* is no wildcard (as upstream)', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }, request: resourceRequest('get', '', 'pods', 'log'), allowed: false },
  { name: 'resourceNames: a listed name', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] }, request: resourceRequest('get', '', 'configmaps', '', 'b'), allowed: true },
  { name: 'resourceNames: another name', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, request: resourceRequest('get', '', 'configmaps', '', 'c'), allowed: false },
  { name: 'resourceNames: a request without a name (list)', rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, request: resourceRequest('list', '', 'configmaps'), allowed: false },
  { name: 'a resource rule does not allow a path', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, request: pathRequest('get', '/healthz'), allowed: false },
  { name: 'non-resource URL: exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, request: pathRequest('get', '/healthz'), allowed: true },
  { name: 'non-resource URL: exact is not a prefix', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, request: pathRequest('get', '/healthz/etcd'), allowed: false },
  { name: 'non-resource URL: prefix*', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, request: pathRequest('get', '/healthz/etcd'), allowed: true },
  { name: 'non-resource URL: prefix* without its slash', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, request: pathRequest('get', '/apis'), allowed: false },
  { name: 'non-resource URL: *', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, request: pathRequest('post', '/anything'), allowed: true },
  { name: 'non-resource URL: another verb', rule: { verbs: ['get'], nonResourceURLs: ['/version'] }, request: pathRequest('post', '/version'), allowed: false },
  { name: 'a URL rule does not allow resources', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, request: resourceRequest('get', '', 'pods'), allowed: false },
];

for (const { name, rule, request, allowed } of matching) {
  test(`rule matching: ${name}`, () => assert.equal(ruleAllows(request, rule), allowed));
}

const coverage: { name: string; owner: PolicyRule[]; servant: PolicyRule[]; missing: PolicyRule[] }[] = [
  { name: 'the same rule', owner: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }], servant: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }], missing: [] },
  { name: 'wildcards cover everything', owner: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], servant: [{ verbs: ['delete'], apiGroups: ['apps'], resources: ['deployments/scale'], resourceNames: ['x'] }], missing: [] },
  {
    name: 'a verb missing', owner: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], servant: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }],
    missing: [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }],
  },
  { name: '*/subresource covers a subresource', owner: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }], servant: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }], missing: [] },
  {
    name: 'a named rule does not cover all names', owner: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }], servant: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
    missing: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
  },
  { name: 'a rule held as it is, absent lists as empty ones', owner: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }], servant: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], missing: [] },
  { name: 'the same values in another order', owner: [{ verbs: ['list', 'get'], apiGroups: [''], resources: ['secrets', 'pods'] }], servant: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'secrets'] }], missing: [] },
  {
    name: 'a rule like a held one but for a name', owner: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }], servant: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'] }],
    missing: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['b'] }],
  },
  { name: 'URL prefixes', owner: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], servant: [{ verbs: ['get'], nonResourceURLs: ['/apis/apps', '/apis/*'] }], missing: [] },
];

for (const { name, owner, servant, missing } of coverage) {
  test(`coverage: ${name}`, () => {
    const result = covers(owner, servant);
    assert.deepEqual(result.missing, missing);
    assert.equal(result.covered, missing.length === 0);
  });
}

test('escalation messages print rules as Go does, verbs of one resource compacted', () => {
  const missing = covers([], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'secrets'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }]).missing;
  assert.deepEqual(compactRules(missing).map(compactString).sort(), [
    '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
    '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
  ]);
  assert.equal(compactString({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }), '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get"]}');
});

// A role may hold as many rules, and a rule as many verbs, as a 3 MiB body carries: a
// list's items passed as one call's arguments overflowed the stack at some 100k (a 500).
test('rules of request size: compacted and joined across modes without overflowing the stack', async () => {
  const verbs = Array.from({ length: 300_000 }, (_, i) => `v${i}`);
  const rule: PolicyRule = { verbs, apiGroups: [''], resources: ['pods'] };
  const compacted = compactRules([rule, { ...rule, verbs: ['get'] }, rule]);
  assert.equal(compacted.length, 1);
  assert.equal(compacted[0]!.verbs.length, 600_001);

  const many = Array.from({ length: 300_000 }, (_, i) => ({ verbs: ['get'], apiGroups: [''], resources: [`r${i}`] }));
  const resolver = { authorize: () => ({ decision: 'NoOpinion' as const }), rulesFor: async () => ({ resourceRules: many, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }], incomplete: false }) };
  const rules = await unionAuthorizer([resolver, resolver]).rulesFor({ name: 'bob', uid: '', groups: [] }, 'ns');
  assert.equal(rules.resourceRules.length, 600_000);
  assert.deepEqual(rules.resourceRules[300_001], many[1]);
  assert.equal(rules.nonResourceRules.length, 2);
});
