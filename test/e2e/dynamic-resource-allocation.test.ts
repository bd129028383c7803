// resource.k8s.io through a fresh server: a DeviceClass's and a ResourceClaim's CEL
// selectors are compiled when written (the strategies load CEL first), the claim gets its
// defaults, and what upstream refuses is a 422 with its causes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const selector = (expression: string) => ({ cel: { expression } });

test('a DeviceClass and a ResourceClaim with CEL selectors, on a server that has not loaded CEL yet', async () => {
  const classes = '/apis/resource.k8s.io/v1/deviceclasses';
  const created = await server.request('POST', classes, {
    body: { metadata: { name: 'gpu.example.com' }, spec: { selectors: [selector("device.driver == 'gpu.example.com'")] } },
  });
  assert.equal(created.status, 201, created.text);
  const refused = await server.request('POST', classes, { body: { metadata: { name: 'broken.example.com' }, spec: { selectors: [selector('device.driver ==')] } } });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.details.causes[0].field, 'spec.selectors[0].cel.expression');
  assert.match(refused.json.details.causes[0].message, /compilation failed/);

  const claims = '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims';
  const claim = await server.request('POST', claims, {
    body: { metadata: { name: 'one-gpu' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } } },
  });
  assert.equal(claim.status, 201, claim.text);
  // Upstream's defaults: one device, ExactCount.
  assert.deepEqual(
    { mode: claim.json.spec.devices.requests[0].exactly.allocationMode, count: claim.json.spec.devices.requests[0].exactly.count },
    { mode: 'ExactCount', count: 1 },
  );
  const bad = await server.request('POST', claims, {
    body: { metadata: { name: 'bad' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', selectors: [selector('1 + 1')] } }] } } },
  });
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.json.details.causes[0].message, /must evaluate to bool or the unknown type, not int/);
});

test('admin access to devices only in a namespace labelled for it, as upstream checks it before admission', async () => {
  const label = 'resource.kubernetes.io/admin-access';
  for (const [name, labels] of [['dra-plain', {}], ['dra-admin', { [label]: 'true' }]] as const) {
    const made = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } });
    assert.equal(made.status, 201, made.text);
  }
  const requests = [{ name: 'any', exactly: { deviceClassName: 'gpu.example.com' } }, { name: 'admin', exactly: { deviceClassName: 'gpu.example.com', adminAccess: true } }];
  const claim = (name: string) => ({ metadata: { name }, spec: { devices: { requests } } });
  const template = (name: string) => ({ metadata: { name }, spec: { spec: { devices: { requests } } } });
  const message = 'Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace';

  for (const [resource, body, kind] of [['resourceclaims', claim('c'), 'ResourceClaim'], ['resourceclaimtemplates', template('t'), 'ResourceClaimTemplate']] as const) {
    for (const query of ['', '?dryRun=All']) {
      const refused = await server.request('POST', `/apis/resource.k8s.io/v1/namespaces/dra-plain/${resource}${query}`, { body });
      assert.equal(refused.status, 422, refused.text);
      // The path is upstream's: the request's, without `exactly` (and without a template's `spec.`).
      assert.deepEqual(refused.json.details.causes, [{ reason: 'FieldValueForbidden', field: 'spec.devices.requests[1].adminAccess', message }]);
      assert.equal(refused.json.message, `${kind}.resource.k8s.io "${body.metadata.name}" is invalid: spec.devices.requests[1].adminAccess: ${message}`);
    }
    const allowed = await server.request('POST', `/apis/resource.k8s.io/v1/namespaces/dra-admin/${resource}`, { body });
    assert.equal(allowed.status, 201, allowed.text);
  }
  // Checked in the strategy's validation, as upstream's: an object invalid besides lists both, the namespace's first.
  const invalidToo = { metadata: { name: 'both' }, spec: { devices: { requests: [{ ...requests[1], exactly: { ...requests[1]!.exactly, deviceClassName: 'Not_A_Name' } }] } } };
  const both = await server.request('POST', '/apis/resource.k8s.io/v1/namespaces/dra-plain/resourceclaims', { body: invalidToo });
  assert.equal(both.status, 422, both.text);
  assert.deepEqual(both.json.details.causes.map((c: { field: string }) => c.field), ['spec.devices.requests[0].adminAccess', 'spec.devices.requests[0].exactly.deviceClassName']);

  // A status that grants admin access needs the label too, unless the allocation granted it already.
  const result = { request: 'any', driver: 'gpu.example.com', pool: 'pool', device: 'dev-0', adminAccess: true };
  const allocate = async (namespace: string, name: string) => {
    const current = (await server.request('GET', `/apis/resource.k8s.io/v1/namespaces/${namespace}/resourceclaims/${name}`)).json;
    current.status = { allocation: { devices: { results: [result] } } };
    return server.request('PUT', `/apis/resource.k8s.io/v1/namespaces/${namespace}/resourceclaims/${name}/status`, { body: current });
  };
  const plain = await server.request('POST', '/apis/resource.k8s.io/v1/namespaces/dra-plain/resourceclaims', { body: { metadata: { name: 'c' }, spec: { devices: { requests: [requests[0]] } } } });
  assert.equal(plain.status, 201, plain.text);
  const refused = await allocate('dra-plain', 'c');
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(refused.json.details.causes, [{ reason: 'FieldValueForbidden', field: 'status.allocation.devices.results[0].adminAccess', message }]);
  const granted = await allocate('dra-admin', 'c');
  assert.equal(granted.status, 200, granted.text);
  // The label removed, the claim's granted allocation may still be written again.
  const ns = (await server.request('GET', '/api/v1/namespaces/dra-admin')).json;
  delete ns.metadata.labels[label];
  assert.equal((await server.request('PUT', '/api/v1/namespaces/dra-admin', { body: ns })).status, 200);
  const again = (await server.request('GET', '/apis/resource.k8s.io/v1/namespaces/dra-admin/resourceclaims/c')).json;
  again.status.reservedFor = [{ resource: 'pods', name: 'p', uid: 'a0b1c2d3-0000-4000-8000-000000000001' }];
  const kept = await server.request('PUT', '/apis/resource.k8s.io/v1/namespaces/dra-admin/resourceclaims/c/status', { body: again });
  assert.equal(kept.status, 200, kept.text);
});

test('a claim\'s status: binding and device entries take their synthetic subresources\' permissions', async () => {
  const ns = 'dra-status';
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  const claims = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;
  const made = await server.request('POST', claims, { body: { metadata: { name: 'c' }, spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu.example.com' } }] } } } });
  assert.equal(made.status, 201, made.text);
  // A driver's service account on node-1: allowed to write claims' status, nothing else yet.
  const sa = `system:serviceaccount:${ns}:driver`;
  const rule = (resources: string[], verbs: string[]) => ({ apiGroups: ['resource.k8s.io'], resources, verbs });
  const grant = async (name: string, rules: unknown[]) => {
    assert.equal((await server.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { body: { metadata: { name }, rules } })).status, 201);
    const binding = { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name: 'driver', namespace: ns }] };
    assert.equal((await server.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, { body: binding })).status, 201);
  };
  await grant('status', [rule(['resourceclaims', 'resourceclaims/status'], ['get', 'update', 'patch'])]);
  const asDriver = { 'Impersonate-User': sa, 'Impersonate-Extra-authentication.kubernetes.io%2fnode-name': 'node-1' };
  const writeStatus = async (status: Record<string, unknown>, headers: Record<string, string> = asDriver) => {
    const current = (await server.request('GET', `${claims}/c`)).json;
    return server.request('PUT', `${claims}/c/status`, { body: { ...current, status }, headers });
  };
  const allocation = { nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }] }, devices: { results: [{ request: 'r', driver: 'gpu.example.com', pool: 'p', device: 'd0' }] } };

  const unbound = await writeStatus({ allocation });
  assert.equal(unbound.status, 422, unbound.text);
  assert.deepEqual(unbound.json.details.causes, [{
    reason: 'FieldValueForbidden', field: 'status',
    message: `Forbidden: changing status.allocation or status.reservedFor requires resource="resourceclaims/binding", verb="update" permission: resourceclaims.resource.k8s.io is forbidden: User "${sa}" cannot update resource "resourceclaims/binding" in API group "resource.k8s.io" at the cluster scope`,
  }]);
  // An allocation invalid besides: the permission's cause first, then validation's, in one 422.
  const invalidToo = await writeStatus({ allocation: { ...allocation, devices: { results: [{ ...allocation.devices.results[0], driver: 'Not A Driver' }] } } });
  assert.equal(invalidToo.status, 422, invalidToo.text);
  assert.equal(invalidToo.json.details.causes[0].field, 'status');
  assert.ok(invalidToo.json.details.causes.length > 1, invalidToo.text);
  assert.ok(invalidToo.json.details.causes.slice(1).every((c: { field: string }) => c.field.startsWith('status.allocation.devices.results[0]')), invalidToo.text);
  // The admin (the scheduler's part) allocates; the driver then reports its device.
  assert.equal((await writeStatus({ allocation }, {})).status, 200);
  const device = { driver: 'gpu.example.com', pool: 'p', device: 'd0', conditions: [{ type: 'Ready', status: 'True', reason: 'Up', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
  const refused = await writeStatus({ allocation, devices: [device] });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.details.causes[0].field, 'status.devices');
  assert.equal(refused.json.details.causes[0].message, `Forbidden: changing status.devices requires resource="resourceclaims/driver", verb="[associated-node:update arbitrary-node:update]" permission: resourceclaims.resource.k8s.io "gpu.example.com" is forbidden: User "${sa}" cannot associated-node:update resource "resourceclaims/driver" in API group "resource.k8s.io" in the namespace "${ns}"`);
  // Its own node's verb, for its own driver's name, is enough.
  await grant('driver', [{ ...rule(['resourceclaims/driver'], ['associated-node:update']), resourceNames: ['gpu.example.com'] }]);
  const reported = await writeStatus({ allocation, devices: [device] });
  assert.equal(reported.status, 200, reported.text);
  // From another node it is not: only arbitrary-node is asked then.
  const elsewhere = await writeStatus({ allocation, devices: [{ ...device, conditions: [] }] }, { ...asDriver, 'Impersonate-Extra-authentication.kubernetes.io%2fnode-name': 'node-2' });
  assert.equal(elsewhere.status, 422, elsewhere.text);
  assert.match(elsewhere.json.details.causes[0].message, /verb="\[arbitrary-node:update\]" permission: .* cannot arbitrary-node:update resource "resourceclaims\/driver"/);
  // A write that changes neither needs neither.
  const current = (await server.request('GET', `${claims}/c`)).json;
  const unchanged = await server.request('PUT', `${claims}/c/status`, { body: current, headers: asDriver });
  assert.equal(unchanged.status, 200, unchanged.text);
});
