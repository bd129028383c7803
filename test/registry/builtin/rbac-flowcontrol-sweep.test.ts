// RBAC objects and flowcontrol.apiserver.k8s.io/v1 objects against kube-apiserver v1.36:
// a ClusterRole's aggregation selectors, RBAC's generateName rule, the mandatory
// FlowSchemas' and PriorityLevelConfigurations' fixed specs, what a status write may
// change, and the exempt level's shares message.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const flowcontrol = '/apis/flowcontrol.apiserver.k8s.io/v1';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

// ---- RBAC ----

test('an invalid aggregation selector of a ClusterRole is reported again as an invalid label selector', async () => {
  const res = await server.request('POST', `${rbac}/clusterroles`, {
    body: {
      metadata: { name: 'aggregate-bad' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { tier: 'front end' } }, { matchExpressions: [{ key: 'tier', operator: 'In' }] }, {}] },
    },
  });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), [
    "aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: \"front end\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    'aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.',
    "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    'aggregationRule.clusterRoleSelectors[1]: Invalid value: null: invalid label selector.',
  ]);
  // Valid selectors, the empty one among them, need nothing more.
  const ok = await server.request('POST', `${rbac}/clusterroles`, {
    body: { metadata: { name: 'aggregate-ok' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { tier: 'front' } }, {}] } },
  });
  assert.equal(ok.status, 201, ok.text);
});

test('a generateName of "." or ".." is refused for RBAC objects, whose names are whole path segments', async () => {
  const ns = await server.newNamespace('rbac-genname');
  const role = await server.request('POST', `${rbac}/namespaces/${ns}/roles`, { body: { metadata: { generateName: '..' }, rules: [] } });
  assert.equal(role.status, 422, role.text);
  assert.deepEqual(causeLines(role), ["metadata.generateName: Invalid value: \"..\": may not be '..'"]);
  const binding = await server.request('POST', `${rbac}/clusterrolebindings`, {
    body: { metadata: { generateName: '.' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } },
  });
  assert.equal(binding.status, 422, binding.text);
  assert.deepEqual(causeLines(binding), ["metadata.generateName: Invalid value: \".\": may not be '.'"]);
  // A prefix that merely starts with dots is fine.
  const dotted = await server.request('POST', `${rbac}/namespaces/${ns}/roles`, { body: { metadata: { generateName: '..role-' }, rules: [] } });
  assert.equal(dotted.status, 201, dotted.text);
});

// ---- flowcontrol: the mandatory objects ----

const catchAllSchemaSpec = (precedence: number) =>
  `{"PriorityLevelConfiguration":{"Name":"catch-all"},"MatchingPrecedence":${precedence},"DistinguisherMethod":{"Type":"ByUser"},"Rules":[{"Subjects":[` +
  '{"Kind":"Group","User":null,"Group":{"Name":"system:unauthenticated"},"ServiceAccount":null},' +
  '{"Kind":"Group","User":null,"Group":{"Name":"system:authenticated"},"ServiceAccount":null}],' +
  '"ResourceRules":[{"Verbs":["*"],"APIGroups":["*"],"Resources":["*"],"ClusterScope":true,"Namespaces":["*"]}],' +
  '"NonResourceRules":[{"Verbs":["*"],"NonResourceURLs":["*"]}]}]}';

test("the mandatory FlowSchemas' specs must equal their fixed values", async () => {
  const catchAll = await server.request('PATCH', `${flowcontrol}/flowschemas/catch-all`, { body: { spec: { matchingPrecedence: 9999 } }, headers: mergePatch });
  assert.equal(catchAll.status, 422, catchAll.text);
  assert.deepEqual(causeLines(catchAll), [`spec: Invalid value: ${catchAllSchemaSpec(9999)}: spec of 'catch-all' must equal the fixed value`]);
  const exempt = await server.request('PATCH', `${flowcontrol}/flowschemas/exempt`, { body: { spec: { distinguisherMethod: { type: 'ByUser' } } }, headers: mergePatch });
  assert.equal(exempt.status, 422, exempt.text);
  assert.equal(exempt.json.details.causes.length, 1, exempt.text);
  assert.equal(exempt.json.details.causes[0].field, 'spec');
  assert.match(exempt.json.details.causes[0].message, /^Invalid value: \{"PriorityLevelConfiguration":\{"Name":"exempt"\},"MatchingPrecedence":1,"DistinguisherMethod":\{"Type":"ByUser"\},.*: spec of 'exempt' must equal the fixed value$/);
  // The fixed spec itself, written again, is fine; other schemas are not fixed.
  const current = await server.request('GET', `${flowcontrol}/flowschemas/catch-all`);
  const same = await server.request('PUT', `${flowcontrol}/flowschemas/catch-all`, { body: current.json });
  assert.equal(same.status, 200, same.text);
  const other = await server.request('PATCH', `${flowcontrol}/flowschemas/global-default`, { body: { spec: { matchingPrecedence: 9800 } }, headers: mergePatch });
  assert.equal(other.status, 200, other.text);
});

test("the catch-all level's spec is fixed, and so is the exempt level's but for spec.exempt", async () => {
  const shares = await server.request('PATCH', `${flowcontrol}/prioritylevelconfigurations/catch-all`, { body: { spec: { limited: { nominalConcurrencyShares: 6 } } }, headers: mergePatch });
  assert.equal(shares.status, 422, shares.text);
  assert.deepEqual(causeLines(shares), [
    'spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":6,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of \'catch-all\' must equal the fixed value',
  ]);
  // A pointer: 0 is not the absent value.
  const borrowing = await server.request('PATCH', `${flowcontrol}/prioritylevelconfigurations/catch-all`, { body: { spec: { limited: { borrowingLimitPercent: 0 } } }, headers: mergePatch });
  assert.equal(borrowing.status, 422, borrowing.text);
  assert.match(causeLines(borrowing)[0], /"BorrowingLimitPercent":0\}.*: spec of 'catch-all' must equal the fixed value$/);

  const exempt = await server.request('PATCH', `${flowcontrol}/prioritylevelconfigurations/exempt`, { body: { spec: { exempt: { nominalConcurrencyShares: 7, lendablePercent: 10 } } }, headers: mergePatch });
  assert.equal(exempt.status, 200, exempt.text);
  assert.deepEqual(exempt.json.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 7, lendablePercent: 10 } });
  const limited = await server.request('PATCH', `${flowcontrol}/prioritylevelconfigurations/exempt`, { body: { spec: { limited: { limitResponse: { type: 'Reject' } } } }, headers: mergePatch });
  assert.equal(limited.status, 422, limited.text);
  assert.deepEqual(causeLines(limited), [
    'spec.limited: Forbidden: must be nil if the type is not Limited',
    'spec: Invalid value: {"Type":"Exempt","Limited":{"NominalConcurrencyShares":30,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":{"NominalConcurrencyShares":7,"LendablePercent":10}}: spec of \'exempt\' except the \'spec.exempt\' field must equal the fixed value',
  ]);
});

test("an exempt level's negative nominalConcurrencyShares must be a non-negative integer", async () => {
  const res = await server.request('PATCH', `${flowcontrol}/prioritylevelconfigurations/exempt`, { body: { spec: { exempt: { nominalConcurrencyShares: -1 } } }, headers: mergePatch });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), ['spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer']);
});

// ---- flowcontrol: status writes ----

test('a status write changes neither the labels nor the annotations of a FlowSchema or a PriorityLevelConfiguration', async () => {
  const schema = await server.request('POST', `${flowcontrol}/flowschemas`, {
    body: {
      metadata: { name: 'status-meta', labels: { team: 'a' } },
      spec: { priorityLevelConfiguration: { name: 'global-default' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'u' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
    },
  });
  assert.equal(schema.status, 201, schema.text);
  const level = await server.request('POST', `${flowcontrol}/prioritylevelconfigurations`, {
    body: { metadata: { name: 'status-meta', labels: { team: 'a' } }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  });
  assert.equal(level.status, 201, level.text);
  for (const resource of ['flowschemas', 'prioritylevelconfigurations']) {
    // Read just before writing: the Dangling condition may have been written meanwhile.
    const current = (await server.request('GET', `${flowcontrol}/${resource}/status-meta`)).json;
    const body = { ...current, metadata: { ...current.metadata, labels: { team: 'b' }, annotations: { note: 'x' } }, status: { conditions: [{ type: 'Seen', status: 'True' }] } };
    const res = await server.request('PUT', `${flowcontrol}/${resource}/status-meta/status?fieldManager=status-writer`, { body });
    assert.equal(res.status, 200, `${resource}: ${res.text}`);
    assert.deepEqual(res.json.metadata.labels, { team: 'a' }, resource);
    // Nor does the writer own what it sent of metadata (the status strategy's GetResetFields).
    const entry = res.json.metadata.managedFields.find((f: { manager: string }) => f.manager === 'status-writer');
    assert.deepEqual(Object.keys(entry.fieldsV1), ['f:status'], resource);
    assert.equal(res.json.metadata.annotations, undefined, resource);
    assert.equal(res.json.status.conditions[0].type, 'Seen', resource);
    const stored = (await server.request('GET', `${flowcontrol}/${resource}/status-meta`)).json;
    assert.deepEqual(stored.metadata.labels, { team: 'a' }, resource);
  }
});
