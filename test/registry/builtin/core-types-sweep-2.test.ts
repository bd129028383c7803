// The smaller core/v1 types against kube-apiserver v1.36, second pass (pkg/registry/core/*
// strategies): a ResourceQuota's warnings and its missing generation, a LimitRange created
// without a name.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const quotas = (ns: string, name = '') => `/api/v1/namespaces/${ns}/resourcequotas${name === '' ? '' : `/${name}`}`;
const limitRanges = (ns: string) => `/api/v1/namespaces/${ns}/limitranges`;
const warnings = (res: { headers: Record<string, string | string[] | undefined> }) => {
  const header = res.headers.warning;
  return (header === undefined ? [] : Array.isArray(header) ? header : header.split(/,\s*(?=299 )/)).map((w) => w.replace(/^299 - "(.*)"$/, '$1'));
};

// ---- ResourceQuota: resourcequotaStrategy.WarningsOnCreate ----

const warningCases: { name: string; hard: Record<string, string>; expected: string[] }[] = [
  {
    name: 'requests above their limits (canonical quantities; cpu, memory, storage, ephemeral storage in that order)',
    hard: { 'limits.ephemeral-storage': '1Gi', 'requests.ephemeral-storage': '2000Mi', 'limits.memory': '2Gi', 'requests.memory': '3072Mi', 'limits.cpu': '1', 'requests.cpu': '1500m' },
    expected: [
      'ResourceQuota requests.cpu (1500m) should be less than limits.cpu (1)',
      'ResourceQuota requests.memory (3Gi) should be less than limits.memory (2Gi)',
      'ResourceQuota requests.ephemeral-storage (2000Mi) should be less than limits.ephemeral-storage (1Gi)',
    ],
  },
  { name: 'a bare cpu and memory above their limits (they stand for the requests)', hard: { cpu: '2', 'limits.cpu': '1', memory: '3Gi', 'limits.memory': '2Gi' }, expected: [
    'ResourceQuota cpu (2) should be less than limits.cpu (1)',
    'ResourceQuota memory (3Gi) should be less than limits.memory (2Gi)',
  ] },
  { name: 'a bare cpu above its limit beside a requests.cpu below it', hard: { cpu: '5', 'requests.cpu': '1', 'limits.cpu': '2' }, expected: [] },
  { name: 'a request equal to its limit', hard: { 'requests.memory': '1Gi', 'limits.memory': '1024Mi' }, expected: [] },
  { name: 'a request without a limit', hard: { 'requests.cpu': '4' }, expected: [] },
];

for (const c of warningCases) {
  test(`a new ResourceQuota with ${c.name} ${c.expected.length > 0 ? 'is warned' : 'is not warned'}`, async () => {
    const ns = await server.newNamespace('quota-warn');
    const res = await server.request('POST', quotas(ns), { body: { metadata: { name: 'q' }, spec: { hard: c.hard } } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(warnings(res), c.expected);
  });
}

test('an update of a ResourceQuota is not warned of its requests above limits', async () => {
  const ns = await server.newNamespace('quota-warn-update');
  const created = await server.request('POST', quotas(ns), { body: { metadata: { name: 'q' }, spec: { hard: { 'requests.cpu': '2', 'limits.cpu': '1' } } } });
  assert.equal(created.status, 201, created.text);
  const res = await server.request('PATCH', quotas(ns, 'q'), {
    body: { spec: { hard: { 'requests.cpu': '3' } } }, headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(warnings(res), []);
});

// ---- ResourceQuota: its strategy never sets metadata.generation ----

test('a ResourceQuota has no generation, created or with its spec changed', async () => {
  const ns = await server.newNamespace('quota-generation');
  const created = await server.request('POST', quotas(ns), { body: { metadata: { name: 'q' }, spec: { hard: { pods: '1' } } } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.metadata.generation, undefined);
  assert.deepEqual(created.json.status, {});
  const updated = await server.request('PATCH', quotas(ns, 'q'), {
    body: { spec: { hard: { pods: '2' } } }, headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.json.metadata.generation, undefined);
  assert.equal(updated.json.spec.hard.pods, '2');
});

// ---- LimitRange: limitrangeStrategy.PrepareForCreate names a nameless one ----

test('a LimitRange created with neither name nor generateName is named with a UUID', async () => {
  const ns = await server.newNamespace('lr-uuid');
  const res = await server.request('POST', limitRanges(ns), { body: { spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } } });
  assert.equal(res.status, 201, res.text);
  const name: string = res.json.metadata.name;
  assert.match(name, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal((await server.request('GET', `${limitRanges(ns)}/${name}`)).status, 200);
});

test('a nameless LimitRange that is invalid is refused by its UUID name, for its spec alone', async () => {
  const ns = await server.newNamespace('lr-uuid-invalid');
  const res = await server.request('POST', limitRanges(ns), { body: { spec: { limits: [{ type: 'Bogus' }] } } });
  assert.equal(res.status, 422, res.text);
  assert.match(res.json.details.name, /^[0-9a-f]{8}-[0-9a-f-]{27}$/);
  assert.deepEqual(res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`), [
    'spec.limits[0].type: Invalid value: "Bogus": must be a standard limit type or fully qualified',
  ]);
});

test('a LimitRange with a generateName still gets a generated name', async () => {
  const ns = await server.newNamespace('lr-generate');
  const res = await server.request('POST', limitRanges(ns), { body: { metadata: { generateName: 'lr-' }, spec: { limits: [] } } });
  assert.equal(res.status, 201, res.text);
  assert.match(res.json.metadata.name, /^lr-[a-z0-9]{5}$/);
});
