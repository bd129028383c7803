// Nodes and Namespaces against kube-apiserver v1.36, case by case: ValidateNode's and
// ValidateNodeUpdate's checks of capacity, addresses, swap, taints and externalID, v1's
// podCIDR/podCIDRs conversion (pkg/apis/core/validation, pkg/apis/core/v1), and the
// namespace strategy's finalizer paths and name label (pkg/registry/core/namespace).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const nodes = builtinType('nodes');
const namespaces = builtinType('namespaces');

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

function node(body: Record<string, unknown> = {}, name = 'n'): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, ...body };
}

/** A node's full nodeInfo, as kubelets send it: the schema requires every field. */
const nodeInfo = {
  machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: 'k', osImage: 'o', containerRuntimeVersion: 'c',
  kubeletVersion: 'v1.36.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
};

const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

// ---- ValidateNodeResources ----

const resourceCases: { name: string; capacity: Record<string, string>; allocatable?: Record<string, string>; causes: string[] }[] = [
  { name: 'whole and fractional quantities of cpu and memory are fine', capacity: { cpu: '3500m', memory: '1.5Gi', pods: '110', 'hugepages-2Mi': '0.5' }, allocatable: { cpu: '1' }, causes: [] },
  {
    name: 'a negative quantity is refused in its canonical form',
    capacity: { memory: '-1024Mi' }, allocatable: { cpu: '1' },
    causes: ['status.capacity.memory: Invalid value: "-1Gi": must be greater than or equal to 0'],
  },
  {
    name: 'pods must be a whole number',
    capacity: { cpu: '1' }, allocatable: { pods: '1500m' },
    causes: ['status.allocatable.pods: Invalid value: "1500m": must be an integer'],
  },
  {
    name: 'an extended resource must be a whole number, at its name after a dot',
    capacity: { 'example.com/gpu': '0.5' }, allocatable: { cpu: '1' },
    causes: ['status.capacity.example.com/gpu: Invalid value: "500m": must be an integer'],
  },
  {
    name: 'a negative fraction of a counted resource is refused twice over',
    capacity: { pods: '-0.5' }, allocatable: { cpu: '1' },
    causes: ['status.capacity.pods: Invalid value: "-500m": must be greater than or equal to 0', 'status.capacity.pods: Invalid value: "-500m": must be an integer'],
  },
  {
    name: 'allocatable defaults to capacity, and is checked as well',
    capacity: { cpu: '-2' },
    causes: ['status.capacity.cpu: Invalid value: "-2": must be greater than or equal to 0', 'status.allocatable.cpu: Invalid value: "-2": must be greater than or equal to 0'],
  },
];

for (const c of resourceCases) {
  const status = { capacity: c.capacity, ...(c.allocatable === undefined ? {} : { allocatable: c.allocatable }) };
  test(`create: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(nodes, node({ status }))).causes), c.causes);
  });

  test(`nodes/status: ${c.name}`, async () => {
    const old = (await storeCreate(nodes, node())).obj;
    assert.deepEqual(fields((await storeUpdate(nodes, { ...old, status }, old, 'status')).causes), c.causes);
  });
}

test('a POST of a node with a negative capacity answers 422 naming the field', async () => {
  const res = await server.request('POST', '/api/v1/nodes', { body: node({ status: { capacity: { cpu: '-1' }, allocatable: { cpu: '1' } } }, 'sweep-bad-capacity') });
  assert.equal(res.status, 422);
  assert.deepEqual(causeLines(res), ['status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0']);
});

// ---- ValidateNodeUpdate ----

test('nodes/status refuses an address listed twice, shown as the internal NodeAddress', async () => {
  const old = (await storeCreate(nodes, node())).obj;
  const addresses = [
    { type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: '10.0.0.1' },
    { type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' },
  ];
  assert.deepEqual(fields((await storeUpdate(nodes, { ...old, status: { addresses } }, old, 'status')).causes), [
    'status.addresses[2]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}',
    'status.addresses[3]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}',
  ]);
  const distinct = addresses.slice(0, 2);
  assert.deepEqual((await storeUpdate(nodes, { ...old, status: { addresses: distinct } }, old, 'status')).causes, []);
});

test('a PUT may not change spec.externalID, nor set or clear it', async () => {
  const withID = (await storeCreate(nodes, node({ spec: { externalID: 'i-1' } }))).obj;
  const forbidden = ['spec.externalID: Forbidden: may not be updated'];
  assert.deepEqual(fields((await storeUpdate(nodes, { ...withID, spec: { externalID: 'i-2' } }, withID)).causes), forbidden);
  assert.deepEqual(fields((await storeUpdate(nodes, { ...withID, spec: {} }, withID)).causes), forbidden);
  const without = (await storeCreate(nodes, node())).obj;
  assert.deepEqual(fields((await storeUpdate(nodes, { ...without, spec: { externalID: 'i-1' } }, without)).causes), forbidden);
  assert.deepEqual((await storeUpdate(nodes, { ...withID, spec: { externalID: 'i-1', unschedulable: true } }, withID)).causes, []);
});

test("taints are checked on nodes/status too, and twice on a PUT (ValidateNode's and ValidateNodeUpdate's)", async () => {
  // A node stored with a taint no write could make now.
  const old = node({ spec: { taints: [{ key: 'bad key', effect: 'NoSchedule' }] }, status: { nodeInfo } });
  const keyError = "metadata.taints[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  assert.deepEqual(fields((await storeUpdate(nodes, { ...old, status: { phase: 'Running', nodeInfo } }, old, 'status')).causes), [keyError]);
  assert.deepEqual(fields((await storeUpdate(nodes, { ...old, metadata: { name: 'n', labels: { a: 'b' } } }, old)).causes), [keyError, keyError]);
});

test('a swap capacity that is not positive is refused, at the path upstream gives it', async () => {
  const swapped = (capacity: number) => node({ status: { nodeInfo: { ...nodeInfo, swap: { capacity } } } });
  assert.deepEqual(fields((await storeCreate(nodes, swapped(0))).causes), ['metadata.nodeSwapStatus.capacity: Invalid value: 0: must be greater than zero']);
  assert.deepEqual(fields((await storeCreate(nodes, swapped(-5))).causes), ['metadata.nodeSwapStatus.capacity: Invalid value: -5: must be greater than zero']);
  assert.deepEqual((await storeCreate(nodes, swapped(1024))).causes, []);
});

// ---- v1 NodeSpec conversion: podCIDR and podCIDRs ----

const cidrCases: { name: string; spec: Record<string, unknown>; stored: Record<string, unknown> }[] = [
  { name: 'podCIDRs alone also sets podCIDR to its first entry', spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] }, stored: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } },
  { name: 'podCIDR alone also sets podCIDRs', spec: { podCIDR: '10.0.0.0/24' }, stored: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'] } },
  { name: 'podCIDR matching the first entry keeps the list', spec: { podCIDR: 'fd00::/64', podCIDRs: ['fd00::/64', '10.0.0.0/24'] }, stored: { podCIDR: 'fd00::/64', podCIDRs: ['fd00::/64', '10.0.0.0/24'] } },
  { name: 'podCIDR not matching the first entry wins: the list is dropped', spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'] }, stored: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24'] } },
  { name: 'neither field stays neither', spec: {}, stored: {} },
];

for (const c of cidrCases) {
  test(`create: ${c.name}`, async () => {
    const { obj, causes } = await storeCreate(nodes, node({ spec: c.spec }));
    assert.deepEqual(causes, []);
    assert.deepEqual(obj.spec, c.stored);
  });
}

test('a PUT changing podCIDRs but not the podCIDR it read changes nothing, as the conversion keeps podCIDR', async () => {
  const old = (await storeCreate(nodes, node({ spec: { podCIDRs: ['10.244.0.0/24'] } }))).obj;
  const { obj, causes } = await storeUpdate(nodes, { ...old, spec: { ...(old.spec as object), podCIDRs: ['10.244.1.0/24'] } }, old);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'] });
  const both = await storeUpdate(nodes, { ...old, spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] } }, old);
  assert.deepEqual(fields(both.causes), ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);
});

test('a node given podCIDRs alone is read back with podCIDR', async () => {
  const created = await server.request('POST', '/api/v1/nodes', { body: node({ spec: { podCIDRs: ['10.9.0.0/24'] } }, 'sweep-pod-cidrs') });
  assert.equal(created.status, 201);
  const got = await server.request('GET', '/api/v1/nodes/sweep-pod-cidrs');
  assert.deepEqual({ podCIDR: got.json.spec.podCIDR, podCIDRs: got.json.spec.podCIDRs }, { podCIDR: '10.9.0.0/24', podCIDRs: ['10.9.0.0/24'] });
});

// ---- Namespaces ----

function ns(name: string, body: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...body };
}

const qualifiedNameError = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const notStandard = 'name is neither a standard finalizer name nor is it fully qualified';

test('namespaces/finalize reports each bad finalizer at its index, entry by entry', async () => {
  const old = (await storeCreate(namespaces, ns('a'))).obj;
  const finalizers = ['kubernetes', 'custom', 'bad!', 'example.com/ok'];
  assert.deepEqual(fields((await storeUpdate(namespaces, { ...old, spec: { finalizers } }, old, 'finalize')).causes), [
    `spec.finalizers[1]: Invalid value: "custom": ${notStandard}`,
    `spec.finalizers[2]: Invalid value: "bad!": ${qualifiedNameError}`,
    `spec.finalizers[2]: Invalid value: "bad!": ${notStandard}`,
  ]);
});

test('a created namespace reports its bad spec finalizers entry by entry, at spec.finalizers', async () => {
  assert.deepEqual(fields((await storeCreate(namespaces, ns('a', { spec: { finalizers: ['custom', 'bad!'] } }))).causes), [
    `spec.finalizers: Invalid value: "custom": ${notStandard}`,
    `spec.finalizers: Invalid value: "bad!": ${qualifiedNameError}`,
    `spec.finalizers: Invalid value: "bad!": ${notStandard}`,
  ]);
});

test('a PUT to /finalize with a bad finalizer answers 422 at its index', async () => {
  const name = await server.newNamespace('sweep-finalize');
  const current = (await server.request('GET', `/api/v1/namespaces/${name}`)).json;
  const res = await server.request('PUT', `/api/v1/namespaces/${name}/finalize`, { body: { ...current, spec: { finalizers: ['kubernetes', 'custom'] } } });
  assert.equal(res.status, 422);
  assert.deepEqual(causeLines(res), [`spec.finalizers[1]: Invalid value: "custom": ${notStandard}`]);
});

test('a namespace created with generateName carries its generated name as kubernetes.io/metadata.name', async () => {
  const { obj, causes } = await storeCreate(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'team-' } });
  assert.deepEqual(causes, []);
  assert.match(obj.metadata.name!, /^team-[a-z0-9]{5}$/);
  assert.deepEqual(obj.metadata.labels, { 'kubernetes.io/metadata.name': obj.metadata.name });

  const res = await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'sweep-gen-', labels: { team: 'a' } } } });
  assert.equal(res.status, 201);
  assert.deepEqual(res.json.metadata.labels, { team: 'a', 'kubernetes.io/metadata.name': res.json.metadata.name });
  const got = await server.request('GET', `/api/v1/namespaces/${res.json.metadata.name}`);
  assert.equal(got.json.metadata.labels['kubernetes.io/metadata.name'], res.json.metadata.name);
});

// The published schema requires these Go fields without omitempty; ValidateNode checks none
// of them, and upstream decodes their absence as Go's zero.
test('a node\'s status may leave out what the schema requires of nodeInfo, addresses, conditions, attached volumes and the kubelet endpoint', async () => {
  const status = {
    nodeInfo: { kubeletVersion: 'v1.36.0' },
    addresses: [{ type: 'InternalIP' }],
    conditions: [{ type: 'Ready' }],
    volumesAttached: [{ name: 'kubernetes.io/csi/x' }],
    daemonEndpoints: { kubeletEndpoint: {} },
  };
  const res = await server.request('POST', '/api/v1/nodes', { body: node({ status }, 'sweep-sparse-status') });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.status.nodeInfo.kubeletVersion, 'v1.36.0');
});
