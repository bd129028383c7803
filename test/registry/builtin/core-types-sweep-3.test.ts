// The smaller core/v1 types against kube-apiserver v1.36, third pass: a ReplicationController's
// non-convertible annotations (rcStrategy.ValidateUpdate), and the schema's `required` kept
// out of what ValidateLimitRange and ValidateResourceQuota decide.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const controllers = (ns: string, name = '') => `/api/v1/namespaces/${ns}/replicationcontrollers${name === '' ? '' : `/${name}`}`;
const limitRanges = (ns: string, name = '') => `/api/v1/namespaces/${ns}/limitranges${name === '' ? '' : `/${name}`}`;
const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;
const mergePatch = { 'content-type': 'application/merge-patch+json' };
type Cause = { field: string; message: string; reason: string };
const causesOf = (res: { json: { details?: { causes?: Cause[] } } }) => (res.json.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

// ---- ReplicationController: the stored object's non-convertible.kubernetes.io/<field> annotations ----

/** A ReplicationController selecting app=<app>, with the annotations given. */
function controller(app: string, annotations: Record<string, string> = {}) {
  return {
    metadata: { name: 'rc', annotations },
    spec: { replicas: 1, selector: { app }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

async function createController(prefix: string, annotations: Record<string, string>): Promise<string> {
  const ns = await server.newNamespace(prefix);
  const created = await server.request('POST', controllers(ns), { body: controller('v1', annotations) });
  assert.equal(created.status, 201, created.text);
  return ns;
}

const newSelector = { spec: { selector: { app: 'v2' }, template: { metadata: { labels: { app: 'v2' } } } } };

test('a ReplicationController whose selector is non-convertible keeps it: changing it answers 422', async () => {
  const ns = await createController('rc-nc-selector', { 'non-convertible.kubernetes.io/selector': 'matchExpressions' });
  const res = await server.request('PATCH', controllers(ns, 'rc'), { body: newSelector, headers: mergePatch });
  assert.equal(res.status, 422, res.text);
  assert.match(res.json.message, /^ReplicationController "rc" is invalid: /);
  assert.deepEqual(causesOf(res), ['spec.selector: Invalid value: {"app":"v2"}: cannot update non-convertible selector']);
  assert.equal(res.json.details.causes[0].reason, 'FieldValueInvalid');
});

test('a ReplicationController whose selector is non-convertible takes other updates', async () => {
  const ns = await createController('rc-nc-selector-kept', { 'non-convertible.kubernetes.io/spec.selector': 'x' });
  const res = await server.request('PATCH', controllers(ns, 'rc'), { body: { spec: { replicas: 3 } }, headers: mergePatch });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.spec.replicas, 3);
});

test('a ReplicationController with another non-convertible field refuses every update, naming the field', async () => {
  const ns = await createController('rc-nc-field', { 'non-convertible.kubernetes.io/minReadySeconds': 'bad' });
  const res = await server.request('PATCH', controllers(ns, 'rc'), { body: { metadata: { labels: { more: 'x' } } }, headers: mergePatch });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(res.json.details.causes, [{ reason: 'FieldValueNotFound', field: 'minReadySeconds', message: 'Not found: "bad": unknown non-convertible field' }]);
});

test('the non-convertible causes follow the spec\'s own, one per non-convertible annotation', async () => {
  const ns = await createController('rc-nc-order', {
    'non-convertible.kubernetes.io/selector': 's', 'non-convertible.kubernetes.io/replicas': 'r',
  });
  const res = await server.request('PATCH', controllers(ns, 'rc'), {
    body: { spec: { minReadySeconds: -1, selector: { app: 'v2' }, template: { metadata: { labels: { app: 'v2' } } } } }, headers: mergePatch,
  });
  assert.equal(res.status, 422, res.text);
  const causes = causesOf(res);
  // ValidateReplicationController, then ValidateReplicationControllerUpdate: the spec checked twice.
  assert.deepEqual(causes.slice(0, 2), Array(2).fill('spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0'));
  // Upstream ranges over a Go map of the annotations: their causes come in no set order.
  assert.deepEqual(causes.slice(2).sort(), [
    'replicas: Not found: "r": unknown non-convertible field',
    'spec.selector: Invalid value: {"app":"v2"}: cannot update non-convertible selector',
  ]);
});

test('only the stored object\'s non-convertible annotations count: an update may add one, and a status write is not checked', async () => {
  const ns = await createController('rc-nc-new', {});
  const added = await server.request('PATCH', controllers(ns, 'rc'), {
    body: { metadata: { annotations: { 'non-convertible.kubernetes.io/minReadySeconds': 'bad' } } }, headers: mergePatch,
  });
  assert.equal(added.status, 200, added.text);
  const status = await server.request('PATCH', `${controllers(ns, 'rc')}/status`, { body: { status: { replicas: 1 } }, headers: mergePatch });
  assert.equal(status.status, 200, status.text);
  const again = await server.request('PATCH', controllers(ns, 'rc'), { body: { spec: { replicas: 2 } }, headers: mergePatch });
  assert.equal(again.status, 422, again.text);
});

test('a scale of a ReplicationController with a non-convertible field is refused as its update is', async () => {
  const ns = await createController('rc-nc-scale', { 'non-convertible.kubernetes.io/minReadySeconds': 'bad' });
  const res = await server.request('PATCH', `${controllers(ns, 'rc')}/scale`, { body: { spec: { replicas: 4 } }, headers: mergePatch });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causesOf(res), ['minReadySeconds: Not found: "bad": unknown non-convertible field']);
});

test('the prefix alone, with no field after it, names nothing non-convertible', async () => {
  const ns = await createController('rc-nc-bare', { 'non-convertible.kubernetes.io': 'selector' });
  const res = await server.request('PATCH', controllers(ns, 'rc'), { body: newSelector, headers: mergePatch });
  assert.equal(res.status, 200, res.text);
});

// ---- The schema's `required` where the type's own validation decides ----

const acceptedLimitRanges: { name: string; spec: unknown }[] = [
  { name: 'an empty spec', spec: {} },
  { name: 'null limits', spec: { limits: null } },
];

for (const c of acceptedLimitRanges) {
  test(`a LimitRange with ${c.name} is accepted, created or updated (ValidateLimitRange has no limits to check)`, async () => {
    const ns = await server.newNamespace('lr-no-limits');
    const created = await server.request('POST', limitRanges(ns), { body: { metadata: { name: 'lr' }, spec: c.spec } });
    assert.equal(created.status, 201, created.text);
    const updated = await server.request('PUT', limitRanges(ns, 'lr'), { body: { ...created.json, spec: c.spec } });
    assert.equal(updated.status, 200, updated.text);
  });
}

const refusedQuotas: { name: string; expression: Record<string, unknown>; expected: string[] }[] = [
  {
    name: 'neither scope nor operator',
    expression: {},
    expected: [
      'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "": unsupported scope',
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "": not a valid selector operator',
    ],
  },
  {
    name: 'an operator but no scope',
    expression: { operator: 'Exists' },
    expected: ['spec.scopeSelector.matchExpressions.scopeName: Invalid value: "": unsupported scope'],
  },
  {
    name: 'a scope but no operator',
    expression: { scopeName: 'PriorityClass' },
    expected: ['spec.scopeSelector.matchExpressions.operator: Invalid value: "": not a valid selector operator'],
  },
];

for (const c of refusedQuotas) {
  test(`a ResourceQuota's match expression with ${c.name} gets upstream's causes alone, at the unindexed path`, async () => {
    const ns = await server.newNamespace('quota-expression');
    const res = await server.request('POST', quotas(ns), { body: { metadata: { name: 'q' }, spec: { scopeSelector: { matchExpressions: [c.expression] } } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), c.expected);
  });
}
