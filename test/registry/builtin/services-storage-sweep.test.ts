// Services, PersistentVolumes and PersistentVolumeClaims against kube-apiserver v1.36
// (pkg/apis/core/validation: ValidateService, ValidateServiceUpdate,
// ValidatePersistentVolumeSpec, ValidatePersistentVolumeClaimStatusUpdate; the strategies of
// pkg/registry/core/{service,persistentvolume,persistentvolumeclaim}). Causes in upstream's order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const services = builtinType('services');
const pvs = builtinType('persistentvolumes');
const pvcs = builtinType('persistentvolumeclaims');

type Json = Record<string, unknown>;

const service = (spec: Json, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec } as KubeObject);

const qualifiedNameError = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const serviceCases: [name: string, spec: Json, annotations: Record<string, string> | undefined, want: string[]][] = [
  // kubernetes#129174 (v1.33) dropped the kubelet port rule.
  ['a LoadBalancer may expose port 10250', { type: 'LoadBalancer', ports: [{ port: 10250 }] }, undefined, []],
  ['trafficDistribution PreferSameNode is taken', { ports: [{ port: 80 }], trafficDistribution: 'PreferSameNode' }, undefined, []],
  ['trafficDistribution is one of three, listed in upstream order', { ports: [{ port: 80 }], trafficDistribution: 'Nearest' }, undefined,
    ['spec.trafficDistribution: Unsupported value: "Nearest": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"']],
  ['the topology annotations agree', { ports: [{ port: 80 }] }, { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': 'Auto' }, []],
  ['the topology annotations differ: reported before the spec', { ports: [{ port: 80, protocol: 'HTTP' }] },
    { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': 'auto' }, [
      'metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
      'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]],
];

for (const [name, spec, annotations, want] of serviceCases) {
  test(`Service create: ${name}`, async () => {
    assert.deepEqual(fields((await storeCreate(services, service(spec, annotations))).causes), want);
  });
}

test("a Service update's own errors come before ValidateService's, and a bad loadBalancerClass is reported by both", async () => {
  const { obj: old } = await storeCreate(services, service({ type: 'LoadBalancer', ports: [{ name: 'a', port: 80 }], loadBalancerClass: 'a.io/x' }));
  const spec = old.spec as Json;
  const port = (spec.ports as Json[])[0]!;
  const moved = { ...old, spec: { ...spec, loadBalancerClass: 'b.io/y', ports: [{ ...port, protocol: 'HTTP' }] } } as KubeObject;
  assert.deepEqual(fields((await storeUpdate(services, moved, old)).causes), [
    'spec.loadBalancerClass: Invalid value: "b.io/y": may not change once set',
    'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
  ]);
  const bad = { ...old, spec: { ...spec, loadBalancerClass: 'bad class' } } as KubeObject;
  assert.deepEqual(fields((await storeUpdate(services, bad, old)).causes), [
    'spec.loadBalancerClass: Invalid value: "bad class": may not change once set',
    `spec.loadBalancerClass: Invalid value: "bad class": ${qualifiedNameError}`,
    `spec.loadBalancerClass: Invalid value: "bad class": ${qualifiedNameError}`,
  ]);
});

const volume = (spec: Json): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec } as KubeObject);
const hostPathVolume = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } };
const badValueAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a b'] }] }] } };
const labelValueError = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const volumeCases: [name: string, spec: Json, want: string[]][] = [
  ['a negative capacity: its int64 value, then not positive', { ...hostPathVolume, capacity: { storage: '-1Gi' } }, [
    'spec.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity',
    'spec.capacity[storage]: Invalid value: "-1Gi": must be greater than zero',
  ]],
  ['a capacity below zero by a fraction: its value rounded away from zero', { ...hostPathVolume, capacity: { storage: '-500m' } }, [
    'spec.capacity[storage]: Invalid value: -1: must be a valid resource quantity',
    'spec.capacity[storage]: Invalid value: "-500m": must be greater than zero',
  ]],
  ['node affinity without required terms', { ...hostPathVolume, nodeAffinity: {} },
    ['spec.nodeAffinity.required: Required value: must specify required node constraints']],
  ['node affinity with no term', { ...hostPathVolume, nodeAffinity: { required: { nodeSelectorTerms: [] } } },
    ['spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term']],
  ['node affinity with a value that is no label value', { ...hostPathVolume, nodeAffinity: badValueAffinity },
    [`spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "a b": ${labelValueError}`]],
  ['a bad node affinity is reported before the volume source', { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '' }, nodeAffinity: {} }, [
    'spec.nodeAffinity.required: Required value: must specify required node constraints',
    'spec.hostPath.path: Required value',
  ]],
];

for (const [name, spec, want] of volumeCases) {
  test(`PersistentVolume create: ${name}`, async () => {
    assert.deepEqual(fields((await storeCreate(pvs, volume(spec))).causes), want);
  });
}

test('a PersistentVolume stored with a node affinity value that is no label value may still be updated', async () => {
  const stored = volume({ ...hostPathVolume, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', nodeAffinity: badValueAffinity });
  const relabelled = { ...stored, metadata: { ...stored.metadata, labels: { tier: 'a' } } } as KubeObject;
  assert.deepEqual((await storeUpdate(pvs, relabelled, stored)).causes, []);
});

const claim = (spec: Json): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec } as KubeObject);
const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' };
const resizeStates = '"ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"';

const claimStatusCases: [name: string, status: Json, want: string[]][] = [
  ['a full status of a resized claim', {
    phase: 'Bound', capacity: { storage: '1Gi' }, allocatedResources: { storage: '2Gi', 'example.com/iops': '10' },
    allocatedResourceStatuses: { storage: 'NodeResizePending' }, conditions: [{ type: 'Resizing', status: 'True' }], modifyVolumeStatus: { status: 'Pending' },
  }, []],
  ['a negative capacity', { phase: 'Bound', capacity: { storage: '-1Gi' } },
    ['status.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity']],
  ['an unknown resize state: upstream names the key', { allocatedResourceStatuses: { storage: 'Resizing' } },
    [`status.allocatedResourceStatuses: Unsupported value: "storage": supported values: ${resizeStates}`]],
  ['a native resource other than storage, in both maps', { allocatedResourceStatuses: { memory: 'NodeResizePending' }, allocatedResources: { cpu: '1' } }, [
    'status.allocatedResourceStatuses: Unsupported value: "memory": supported values: "storage"',
    'status.allocatedResources: Unsupported value: "cpu": supported values: "storage"',
  ]],
  ['a key that is no qualified name, and its size then unchecked', { allocatedResources: { 'bad key': '-1' } },
    [`status.allocatedResources: Invalid value: "bad key": ${qualifiedNameError}`]],
  ['a negative allocated size', { allocatedResources: { storage: '-1' } },
    ['status.allocatedResources[storage]: Invalid value: -1: must be a valid resource quantity']],
];

for (const [name, status, want] of claimStatusCases) {
  test(`PersistentVolumeClaim status: ${name}`, async () => {
    const stored = claim(claimSpec);
    assert.deepEqual(fields((await storeUpdate(pvcs, { ...stored, status } as KubeObject, stored, 'status')).causes), want);
  });
}

test('a PersistentVolumeClaim stored without access modes has its status refused for it', async () => {
  const stored = claim({ resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' });
  assert.deepEqual(fields((await storeUpdate(pvcs, { ...stored, status: { phase: 'Lost' } } as KubeObject, stored, 'status')).causes), ['Spec.accessModes: Required value']);
});
