// resource.k8s.io/v1 (dynamic resource allocation) against kube-apiserver v1.36's rules,
// case by case, through a real server: a ResourceClaim's missing generation and what its
// /status keeps (pkg/registry/resource/resourceclaim/strategy.go), the node selector of a
// new allocation (validateAllocationResult in pkg/apis/resource/validation), and the
// warning of a ResourceSlice's capitalised driver (pkg/registry/resource/resourceslice).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

const group = '/apis/resource.k8s.io/v1';

interface Cause { reason: string; message: string; field: string }

describe('resource.k8s.io/v1 sweep', () => {
  let server: TestServer;
  let ns: string;
  const claims = () => `${group}/namespaces/${ns}/resourceclaims`;
  const causesOf = (json: { details?: { causes?: Cause[] } }) => (json.details?.causes ?? []).map((c) => [c.reason, c.field, c.message]);
  const spec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } };
  const result = { request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' };

  async function createClaim(name: string, metadata: Record<string, unknown> = {}) {
    const res = await server.request('POST', claims(), { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name, ...metadata }, spec } });
    assert.equal(res.status, 201, res.text);
    return res.json;
  }

  before(async () => {
    server = await startServer();
    ns = await server.newNamespace('dra-sweep');
  });
  after(async () => {
    await server.stop();
  });

  test('a ResourceClaim has no generation: created, relabelled or allocated', async () => {
    const claim = await createClaim('no-generation');
    assert.equal(claim.metadata.generation, undefined);
    const relabelled = await server.request('PUT', `${claims()}/no-generation`, { body: { ...claim, metadata: { ...claim.metadata, labels: { a: 'b' } } } });
    assert.equal(relabelled.status, 200, relabelled.text);
    assert.equal(relabelled.json.metadata.generation, undefined);
    const allocated = await server.request('PUT', `${claims()}/no-generation/status`, { body: { ...relabelled.json, status: { allocation: { devices: { results: [result] } } } } });
    assert.equal(allocated.status, 200, allocated.text);
    assert.equal(allocated.json.metadata.generation, undefined);
  });

  test('a /status write keeps the stored labels, annotations, finalizers and owners', async () => {
    const owner = { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: '11111111-2222-3333-4444-555555555555' };
    const claim = await createClaim('keeps-metadata', { labels: { app: 'a' }, annotations: { note: 'n' }, finalizers: ['example.com/keep'], ownerReferences: [owner] });
    const metadata = { ...claim.metadata, labels: { app: 'b', added: 'x' }, annotations: undefined, finalizers: ['example.com/other'], ownerReferences: undefined };
    const res = await server.request('PUT', `${claims()}/keeps-metadata/status`, { body: { ...claim, metadata, status: { allocation: { devices: { results: [result] } } } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.metadata.labels, { app: 'a' });
    assert.deepEqual(res.json.metadata.annotations, { note: 'n' });
    assert.deepEqual(res.json.metadata.finalizers, ['example.com/keep']);
    assert.deepEqual(res.json.metadata.ownerReferences, [owner]);
    assert.deepEqual(res.json.status.allocation.devices.results, [result]);
    // Let the namespace go.
    const cleared = await server.request('PATCH', `${claims()}/keeps-metadata`, { raw: '{"metadata":{"finalizers":null}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(cleared.status, 200, cleared.text);
  });

  const nodeSelectors: [name: string, nodeSelector: unknown, expected: string[][]][] = [
    ['no terms', { nodeSelectorTerms: [] }, [
      ['FieldValueRequired', 'status.allocation.nodeSelector.nodeSelectorTerms', 'Required value: must have at least one node selector term'],
    ]],
    ['an unknown operator and a bad label value', { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near' }, { key: 'zone', operator: 'In', values: ['not a value!'] }] }] }, [
      ['FieldValueInvalid', 'status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator', 'Invalid value: "Near": not a valid selector operator'],
      ['FieldValueInvalid', 'status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[1].values[0]', `Invalid value: "not a value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`],
    ]],
  ];
  for (const [i, [name, nodeSelector, expected]] of nodeSelectors.entries()) {
    test(`a new allocation's node selector is validated: ${name}`, async () => {
      const claim = await createClaim(`node-selector-${i}`);
      const res = await server.request('PUT', `${claims()}/node-selector-${i}/status`, { body: { ...claim, status: { allocation: { devices: { results: [result] }, nodeSelector } } } });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.reason, 'Invalid');
      assert.deepEqual(causesOf(res.json), expected);
    });
  }

  test('a ResourceSlice whose driver has capitals is stored with a warning, on create and on update', async () => {
    const slice = (driver: string, generation: number) => ({
      apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 'capitals' },
      spec: { driver, pool: { name: 'pool-a', generation, resourceSliceCount: 1 }, nodeName: 'node-1' },
    });
    const warning = '299 - "spec.driver: driver names should be lowercase; \\"GPU.Example.com\\" contains uppercase characters"';
    const created = await server.request('POST', `${group}/resourceslices`, { body: slice('GPU.Example.com', 1) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, warning);
    const updated = await server.request('PUT', `${group}/resourceslices/capitals`, { body: { ...slice('GPU.Example.com', 2), metadata: created.json.metadata } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.headers.warning, warning);
    const lower = await server.request('POST', `${group}/resourceslices`, { body: { ...slice('gpu.example.com', 1), metadata: { name: 'lowercase' } } });
    assert.equal(lower.status, 201, lower.text);
    assert.equal(lower.headers.warning, undefined);
  });
});
