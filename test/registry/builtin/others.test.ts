import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { objectFieldSet } from '../../../src/registry/selection.ts';
import { builtinType, fields, storeCreate, storeUpdate, withoutServerMeta } from '../../helpers/store.ts';

const events = builtinType('events');
const endpoints = builtinType('endpoints');
const nodes = builtinType('nodes');
const leases = builtinType('leases');
const serviceaccounts = builtinType('serviceaccounts');
const csrs = builtinType('certificatesigningrequests');

test('a core/v1 Event of the old style needs namespaces that agree', async () => {
  const ok: KubeObject = { metadata: { name: 'web.17a', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' }, reason: 'Started' };
  assert.deepEqual((await storeCreate(events, ok)).causes, []);
  const bad: KubeObject = { metadata: { name: 'web.17a', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'other' } };
  assert.deepEqual(fields((await storeCreate(events, bad)).causes), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
});

test('a core/v1 Event with eventTime needs the reporting fields', async () => {
  const e: KubeObject = { metadata: { name: 'e', namespace: 'default' }, involvedObject: { namespace: 'default' }, eventTime: '2024-01-01T00:00:00.000000Z' };
  assert.deepEqual(fields((await storeCreate(events, e)).causes), [
    'reportingComponent: Required value',
    "reportingComponent: Invalid value: \"\": name part must be non-empty",
    "reportingComponent: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'reportingInstance: Required value',
    'action: Required value',
    'reason: Required value',
  ]);
});

test('Event names only follow the generic path-segment rule', async () => {
  const e: KubeObject = { metadata: { name: 'Web_Pod.17A', namespace: 'default' }, involvedObject: { namespace: 'default' } };
  assert.deepEqual((await storeCreate(events, e)).causes, []);
});

test('an Event exposes the fields kubectl describe selects on', () => {
  const e: KubeObject = {
    metadata: { name: 'e', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'spec.containers{a}' },
    reason: 'Pulled',
    reportingComponent: 'kubelet',
    type: 'Normal',
  };
  assert.deepEqual(objectFieldSet(events, e), {
    'metadata.name': 'e',
    'metadata.namespace': 'default',
    'involvedObject.kind': 'Pod',
    'involvedObject.namespace': 'default',
    'involvedObject.name': 'web',
    'involvedObject.uid': 'u1',
    'involvedObject.apiVersion': 'v1',
    'involvedObject.resourceVersion': '5',
    'involvedObject.fieldPath': 'spec.containers{a}',
    reason: 'Pulled',
    reportingComponent: 'kubelet',
    // source falls back to the reporting controller
    source: 'kubelet',
    type: 'Normal',
  });
});

test('Endpoints default port protocols and check addresses', async () => {
  const ep: KubeObject = {
    metadata: { name: 'web', namespace: 'default' },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '127.0.0.1' }, { ip: 'x' }], ports: [{ port: 80 }] }, { ports: [{ name: 'a', port: 1 }] }],
  };
  const valid = await storeCreate(endpoints, { ...ep, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] });
  assert.deepEqual(valid.causes, []);
  assert.deepEqual((valid.obj.subsets as { ports: unknown[] }[])[0]!.ports, [{ port: 80, protocol: 'TCP' }]);
  assert.deepEqual(fields((await storeCreate(endpoints, ep)).causes), [
    'subsets[0].addresses[1].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    'subsets[0].addresses[2].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    // ValidateEndpointIP reports it too, as upstream's validateEndpointAddress does.
    'subsets[0].addresses[2].ip: Invalid value: "x": must be a valid IP address',
    'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
  ]);
});

test('a Node may set its status on create and gets the empty structs upstream shows', async () => {
  const { obj, causes } = await storeCreate(nodes, { metadata: { name: 'node-1' }, status: { capacity: { cpu: '4' } } });
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1' },
    spec: {},
    status: {
      capacity: { cpu: '4' },
      allocatable: { cpu: '4' },
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: {
        machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '',
        kubeProxyVersion: '', operatingSystem: '', architecture: '',
      },
    },
  });
});

test('Node taints are checked and unique by key and effect', async () => {
  const n: KubeObject = { metadata: { name: 'n' }, spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'Sometimes' }] } };
  assert.deepEqual(fields((await storeCreate(nodes, n)).causes), [
    'metadata.taints[1]: Duplicate value: {"Key":"a","Value":"","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair',
    'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  ]);
});

test('a duplicate Node taint is reported with its timeAdded', async () => {
  const taint = { key: 'a', value: 'x', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:00Z' };
  const n: KubeObject = { metadata: { name: 'n' }, spec: { taints: [taint, taint] } };
  assert.deepEqual(fields((await storeCreate(nodes, n)).causes), [
    'metadata.taints[1]: Duplicate value: {"Key":"a","Value":"x","Effect":"NoExecute","TimeAdded":"2024-01-01T00:00:00Z"}: taints must be unique by key and effect pair',
  ]);
});

test('a CertificateSigningRequest without a request reports it as null, a nil []byte', async () => {
  const csr: KubeObject = { metadata: { name: 'c' }, spec: { signerName: 'example.com/signer', usages: ['client auth'] } };
  assert.deepEqual(fields((await storeCreate(csrs, csr)).causes), ['spec.request: Invalid value: null: PEM block type must be CERTIFICATE REQUEST']);
});

test('a Node update keeps the status; nodes/status keeps the spec', async () => {
  const old = (await storeCreate(nodes, { metadata: { name: 'n', uid: 'u' }, spec: { podCIDRs: ['10.244.0.0/24'] }, status: { phase: 'Running' } })).obj;
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).unschedulable = true;
  next.status = {};
  const viaMain = await storeUpdate(nodes, next, old);
  assert.deepEqual(viaMain.causes, []);
  assert.deepEqual(viaMain.obj.status, old.status);
  assert.deepEqual(objectFieldSet(nodes, viaMain.obj), { 'metadata.name': 'n', 'spec.unschedulable': 'true' });

  const cidr = structuredClone(old);
  // Both: v1's conversion keeps a podCIDR the write did not change over a podCIDRs that differs.
  Object.assign(cidr.spec as Record<string, unknown>, { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] });
  assert.deepEqual(fields((await storeUpdate(nodes, cidr, old)).causes), ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);

  const viaStatus = structuredClone(old);
  (viaStatus.spec as Record<string, unknown>).unschedulable = true;
  (viaStatus.status as Record<string, unknown>).phase = 'Pending';
  const { obj } = await storeUpdate(nodes, viaStatus, old, 'status');
  assert.deepEqual(obj.spec, old.spec);
  assert.equal((obj.status as Record<string, unknown>).phase, 'Pending');
});

test('Lease spec fields are sane', async () => {
  const lease = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'l', namespace: 'kube-node-lease' }, spec });
  assert.deepEqual((await storeCreate(leases, lease({ holderIdentity: 'a', leaseDurationSeconds: 40, leaseTransitions: 0 }))).causes, []);
  // preferredHolder is dropped on create while CoordinatedLeaderElection is off (events-leases-sweep.test.ts).
  assert.deepEqual(fields((await storeCreate(leases, lease({ leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'b' }))).causes), [
    'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
  ]);
});

test('ServiceAccounts only have metadata rules', async () => {
  assert.deepEqual((await storeCreate(serviceaccounts, { metadata: { name: 'builder', namespace: 'default' }, automountServiceAccountToken: false })).causes, []);
});

test('a RuntimeClass handler is a DNS label that never changes; its scheduling is checked as a pod\'s', async () => {
  const runtimeClasses = builtinType('runtimeclasses');
  const rc = (handler: string, scheduling?: unknown) => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler, ...(scheduling === undefined ? {} : { scheduling }) }) as unknown as KubeObject;
  assert.deepEqual((await storeCreate(runtimeClasses, rc('runsc', { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists' }] }))).causes, []);
  assert.deepEqual(fields((await storeCreate(runtimeClasses, rc('Run_SC', { nodeSelector: { 'bad key!': 'x' }, tolerations: [{ operator: 'Equal', value: 'v' }] }))).causes), [
    "handler: Invalid value: \"Run_SC\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    "scheduling.nodeSelector: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'scheduling.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
  ]);
  const updated = await storeUpdate(runtimeClasses, rc('kata'), rc('runsc'));
  assert.deepEqual(fields(updated.causes), ['handler: Invalid value: "kata": field is immutable']);
});
