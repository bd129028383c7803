import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { priorityAdmission } from '../../../src/admission/priority.ts';
import { isStatusError } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const ingresses = builtinType('ingresses');
const ingressClasses = builtinType('ingressclasses');
const networkPolicies = builtinType('networkpolicies');
const pvs = builtinType('persistentvolumes');
const pvcs = builtinType('persistentvolumeclaims');
const storageClasses = builtinType('storageclasses');
const csiDrivers = builtinType('csidrivers');
const priorityClasses = builtinType('priorityclasses');
const csiNodes = builtinType('csinodes');
const csiCapacities = builtinType('csistoragecapacities');
const attributesClasses = builtinType('volumeattributesclasses');
const volumeAttachments = builtinType('volumeattachments');

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });
const svcBackend = { service: { name: 'web', port: { number: 80 } } };
const ingress = (spec: object): KubeObject => ({ metadata: meta('i', 'default'), spec } as KubeObject);
const httpPath = (p: object) => ingress({ rules: [{ host: 'a.example.com', http: { paths: [p] } }] });

test('Ingress validation, case by case', async () => {
  const cases: [string, KubeObject, string[]][] = [
    ['a rule with a Prefix path', httpPath({ path: '/', pathType: 'Prefix', backend: svcBackend }), []],
    ['a default backend only', ingress({ defaultBackend: svcBackend }), []],
    ['nothing to route', ingress({}), ['spec: Invalid value: null: either `defaultBackend` or `rules` must be specified']],
    ['no pathType', httpPath({ path: '/', backend: svcBackend }), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']],
    ['unknown pathType', httpPath({ path: '/', pathType: 'Regex', backend: svcBackend }), ['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"']],
    ['relative Exact path', httpPath({ path: 'a', pathType: 'Exact', backend: svcBackend }), ['spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path']],
    ['Prefix path with //', httpPath({ path: '/a//b', pathType: 'Prefix', backend: svcBackend }), ["spec.rules[0].http.paths[0].path: Invalid value: \"/a//b\": must not contain '//'"]],
    ['ImplementationSpecific empty path', httpPath({ pathType: 'ImplementationSpecific', backend: svcBackend }), []],
    ['port name and number', httpPath({ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80, name: 'http' } } } }), ['spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number']],
    ['no port', httpPath({ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: {} } } }), ['spec.rules[0].http.paths[0].backend: Required value: port name or number is required']],
    ['no backend', httpPath({ path: '/', pathType: 'Prefix', backend: {} }), ['spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required']],
    ['resource backend', httpPath({ path: '/', pathType: 'Prefix', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'b' } } }), []],
    ['wildcard host', ingress({ rules: [{ host: '*.example.com' }] }), []],
    ['bad wildcard host', ingress({ rules: [{ host: 'a.*.com' }] }), ["spec.rules[0].host: Invalid value: \"a.*.com\": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]],
    ['IP host', ingress({ rules: [{ host: '10.0.0.1' }] }), ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']],
  ];
  for (const [name, obj, want] of cases) assert.deepEqual(fields((await storeCreate(ingresses, obj)).causes), want, name);
});

test('IngressClass: controller required and immutable, parameters scoped', async () => {
  const ic = (spec: object): KubeObject => ({ metadata: meta('nginx'), spec } as KubeObject);
  assert.deepEqual(fields((await storeCreate(ingressClasses, ic({}))).causes), ['spec.controller: Required value']);
  assert.deepEqual(fields((await storeCreate(ingressClasses, ic({ controller: 'nginx' }))).causes), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
  const created = await storeCreate(ingressClasses, ic({ controller: 'k8s.io/ingress-nginx', parameters: { kind: 'Params', name: 'p' } }));
  assert.deepEqual(created.causes, []);
  assert.equal((created.obj.spec as { parameters: { scope: string } }).parameters.scope, 'Cluster');
  assert.deepEqual(fields((await storeCreate(ingressClasses, ic({ controller: 'a.io/b', parameters: { kind: 'P', name: 'p', scope: 'Namespace' } }))).causes), ["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]);
  const update = await storeUpdate(ingressClasses, ic({ controller: 'a.io/other' }), ic({ controller: 'a.io/b' }));
  assert.deepEqual(fields(update.causes), ['spec.controller: Invalid value: "a.io/other": field is immutable']);
});

test('NetworkPolicy defaults policyTypes and port protocols, and checks peers', async () => {
  const np = (spec: object): KubeObject => ({ metadata: meta('np', 'default'), spec } as KubeObject);
  const cases: [object, string[]][] = [
    [{ podSelector: {} }, ['Ingress']],
    [{ podSelector: {}, egress: [{}] }, ['Ingress', 'Egress']],
    [{ podSelector: {}, egress: [{}], policyTypes: ['Egress'] }, ['Egress']],
  ];
  for (const [spec, want] of cases) {
    const { obj, causes } = await storeCreate(networkPolicies, np(spec));
    assert.deepEqual(causes, []);
    assert.deepEqual((obj.spec as { policyTypes: string[] }).policyTypes, want);
  }
  const withPort = await storeCreate(networkPolicies, np({ podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] }));
  assert.deepEqual((withPort.obj.spec as { ingress: [{ ports: [{ protocol: string }] }] }).ingress[0].ports[0].protocol, 'TCP');
  const invalid: [object, string[]][] = [
    [{ podSelector: {}, ingress: [{ from: [{}] }] }, ['spec.ingress[0].from[0]: Required value: must specify a peer']],
    [{ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }, ['spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer']],
    [{ podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] }, ['spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
    [{ podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] } }] }] }, ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`']],
    [{ podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 70 }] }] }, ['spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`']],
    [{ podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] }, ['spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes']],
    [{ podSelector: {}, policyTypes: ['Sideways'] }, ['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']],
  ];
  for (const [spec, want] of invalid) assert.deepEqual(fields((await storeCreate(networkPolicies, np(spec))).causes), want, JSON.stringify(spec));
});

const pv = (spec: object): KubeObject => ({ metadata: meta('pv1'), spec } as KubeObject);
const goodPV = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } };

test('PersistentVolume defaults and validation', async () => {
  const { obj, causes } = await storeCreate(pvs, pv(goodPV));
  assert.deepEqual(causes, []);
  const spec = obj.spec as Record<string, unknown>;
  assert.equal(spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(spec.volumeMode, 'Filesystem');
  assert.equal((obj.status as { phase: string }).phase, 'Pending');
  const cases: [object, string[]][] = [
    [{ ...goodPV, accessModes: [] }, ['spec.accessModes: Required value']],
    [{ ...goodPV, accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }, ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']],
    [{ ...goodPV, accessModes: ['Sometimes'] }, ['spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']],
    [{ ...goodPV, capacity: { storage: '0' } }, ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']],
    [{ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] }, ['spec: Required value: must specify a volume type']],
    [{ ...goodPV, nfs: { server: 'nfs', path: '/x' } }, ['spec.nfs: Forbidden: may not specify more than 1 volume type']],
    [{ ...goodPV, capacity: { storage: '1024Mi', cpu: '1.5' } }, ['spec.capacity: Unsupported value: {"cpu":"1500m","storage":"1Gi"}: supported values: "storage"']],
    [{ ...goodPV, persistentVolumeReclaimPolicy: 'Keep' }, ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']],
  ];
  for (const [spec, want] of cases) assert.deepEqual(fields((await storeCreate(pvs, pv(spec))).causes), want, JSON.stringify(spec));
});

test('a PersistentVolume keeps its volume source', async () => {
  const old = (await storeCreate(pvs, pv(goodPV))).obj;
  const update = await storeUpdate(pvs, pv({ ...goodPV, hostPath: { path: '/other' } }), old);
  assert.deepEqual(fields(update.causes), ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation']);
  assert.deepEqual((await storeUpdate(pvs, pv({ ...goodPV, capacity: { storage: '2Gi' } }), old)).causes, []);
});

test('a PersistentVolume keeps its node affinity, but for beta labels moving to GA', async () => {
  const affinity = (key: string, values?: string[]) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', ...(values ? { values } : {}) }] }] } });
  const old = (await storeCreate(pvs, pv({ ...goodPV, nodeAffinity: affinity('failure-domain.beta.kubernetes.io/zone', ['a']) }))).obj;
  assert.deepEqual((await storeUpdate(pvs, pv({ ...goodPV, nodeAffinity: affinity('topology.kubernetes.io/zone', ['a']) }), old)).causes, []);
  assert.deepEqual(fields((await storeUpdate(pvs, pv({ ...goodPV, nodeAffinity: affinity('topology.kubernetes.io/zone', ['b']) }), old)).causes), [
    'nodeAffinity: Invalid value: {"Required":{"NodeSelectorTerms":[{"MatchExpressions":[{"Key":"topology.kubernetes.io/zone","Operator":"In","Values":["b"]}],"MatchFields":null}]}}: field is immutable, except for updating from beta label to GA',
  ]);
  assert.deepEqual(fields((await storeUpdate(pvs, pv(goodPV), old)).causes), [
    'nodeAffinity: Invalid value: null: field is immutable, except for updating from beta label to GA',
  ]);
});

const pvc = (spec: object, status?: object): KubeObject => ({ metadata: meta('data', 'default'), spec, ...(status ? { status } : {}) } as KubeObject);
const goodPVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' };

test('PersistentVolumeClaim defaults and validation', async () => {
  const { obj, causes } = await storeCreate(pvcs, pvc(goodPVC));
  assert.deepEqual(causes, []);
  assert.equal((obj.spec as { volumeMode: string }).volumeMode, 'Filesystem');
  assert.equal((obj.status as { phase: string }).phase, 'Pending');
  const cases: [object, string[]][] = [
    [{ resources: { requests: { storage: '1Gi' } } }, ['spec.accessModes: Required value: at least 1 access mode is required']],
    [{ accessModes: ['ReadWriteOnce'] }, ['spec.resources[storage]: Required value']],
    [{ ...goodPVC, resources: { requests: { storage: '0' } } }, ['spec.resources[storage]: Invalid value: "0": must be greater than zero']],
    [{ ...goodPVC, volumeMode: 'Raw' }, ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']],
  ];
  for (const [spec, want] of cases) assert.deepEqual(fields((await storeCreate(pvcs, pvc(spec))).causes), want, JSON.stringify(spec));
});

test('PersistentVolumeClaim updates: the spec is fixed but for what a bound claim may change', async () => {
  const immutable = 'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';
  const bigger = { ...goodPVC, resources: { requests: { storage: '2Gi' } } };
  const smaller = { ...goodPVC, resources: { requests: { storage: '512Mi' } } };
  const bound = { phase: 'Bound', capacity: { storage: '1Gi' } };
  const cases: [string, KubeObject, KubeObject, string[]][] = [
    ['access modes change', pvc({ ...goodPVC, accessModes: ['ReadOnlyMany'] }), pvc(goodPVC), [immutable]],
    ['a pending claim grows', pvc(bigger), pvc(goodPVC), [immutable]],
    ['a bound claim grows', pvc(bigger, bound), pvc(goodPVC, bound), []],
    ['a bound claim shrinks below its capacity', pvc(smaller, bound), pvc(goodPVC, bound), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']],
    ['volumeName set once', pvc({ ...goodPVC, volumeName: 'pv1' }), pvc(goodPVC), []],
    ['volumeName changed', pvc({ ...goodPVC, volumeName: 'pv2' }), pvc({ ...goodPVC, volumeName: 'pv1' }), [immutable]],
    ['the same size in other units', pvc({ ...goodPVC, resources: { requests: { storage: '1024Mi' } } }), pvc(goodPVC), []],
  ];
  for (const [name, input, old, want] of cases) {
    // The status comes from the stored object: a PUT keeps it.
    assert.deepEqual(fields((await storeUpdate(pvcs, input, old)).causes), want, name);
  }
});

test('StorageClass defaults, validation and immutable fields', async () => {
  const sc = (extra: object): KubeObject => ({ metadata: meta('fast'), ...extra } as KubeObject);
  const { obj, causes } = await storeCreate(storageClasses, sc({ provisioner: 'csi.example.com' }));
  assert.deepEqual(causes, []);
  assert.equal((obj as unknown as { reclaimPolicy: string }).reclaimPolicy, 'Delete');
  assert.equal((obj as unknown as { volumeBindingMode: string }).volumeBindingMode, 'Immediate');
  const cases: [object, string[]][] = [
    [{}, ['provisioner: Required value']],
    [{ provisioner: 'a', reclaimPolicy: 'Recycle' }, ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']],
    [{ provisioner: 'a', volumeBindingMode: 'Later' }, ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']],
    [{ provisioner: 'a', volumeBindingMode: '<Later>' }, ['volumeBindingMode: Unsupported value: "\\u003cLater\\u003e": supported values: "Immediate", "WaitForFirstConsumer"']],
  ];
  for (const [extra, want] of cases) assert.deepEqual(fields((await storeCreate(storageClasses, sc(extra))).causes), want, JSON.stringify(extra));
  const update = await storeUpdate(storageClasses, sc({ provisioner: 'b', parameters: { type: 'ssd' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }), obj);
  assert.deepEqual(fields(update.causes), [
    'parameters: Forbidden: updates to parameters are forbidden.',
    'provisioner: Forbidden: updates to provisioner are forbidden.',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
  ]);
});

test('CSIDriver defaults', async () => {
  const { obj } = await storeCreate(csiDrivers, { metadata: meta('csi.example.com'), spec: {} } as KubeObject);
  assert.deepEqual(obj.spec, {
    attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType',
    requiresRepublish: false, seLinuxMount: false, volumeLifecycleModes: ['Persistent'],
  });
});

test('CSIDriver validation: policies, token requests, lifecycle modes; whether it attaches and its modes never change', async () => {
  const driver = (spec: object) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: meta('csi.example.com'), spec }) as unknown as KubeObject;
  assert.deepEqual((await storeCreate(csiDrivers, driver({ tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }, { audience: '' }] }))).causes, []);
  assert.deepEqual(fields((await storeCreate(csiDrivers, driver({
    fsGroupPolicy: 'Always',
    tokenRequests: [{ audience: 'vault', expirationSeconds: 60 }, { audience: 'vault' }, { audience: 'sts', expirationSeconds: 2 ** 32 + 1 }],
    volumeLifecycleModes: ['Persistent', 'Forever'],
    nodeAllocatableUpdatePeriodSeconds: 5,
  }))).causes), [
    'spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"',
    'spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    'spec.tokenRequests[1].audience: Duplicate value: "vault"',
    'spec.tokenRequests[2].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    'spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"',
    'spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds',
  ]);
  const stored = driver({ attachRequired: true, volumeLifecycleModes: ['Persistent'] });
  assert.deepEqual(fields((await storeUpdate(csiDrivers, driver({ attachRequired: false, volumeLifecycleModes: ['Persistent', 'Ephemeral'] }), stored)).causes), [
    'spec.attachedRequired: Invalid value: false: field is immutable',
    'spec.volumeLifecycleModes: Invalid value: ["Persistent","Ephemeral"]: field is immutable',
  ]);
  assert.deepEqual((await storeUpdate(csiDrivers, driver({ attachRequired: true, volumeLifecycleModes: ['Persistent'], podInfoOnMount: true }), stored)).causes, []);
});

test('CSIStorageCapacity validation: topology, class name, capacity; what it was asked for never changes', async () => {
  const capacity = (fields: object) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: meta('cap-1', 'default'), ...fields }) as unknown as KubeObject;
  const ok = { storageClassName: 'fast', nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'a' } }, capacity: '10Gi' };
  assert.deepEqual((await storeCreate(csiCapacities, capacity(ok))).causes, []);
  assert.deepEqual(fields((await storeCreate(csiCapacities, capacity({ storageClassName: 'Fast', nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'In' }] }, capacity: '-1Gi' }))).causes), [
    'nodeTopology.matchExpressions[0].values: Required value: must be specified when `operator` is \'In\' or \'NotIn\'',
    "storageClassName: Invalid value: \"Fast\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'capacity: Invalid value: "-1Gi": must be greater than or equal to 0',
  ]);
  assert.deepEqual(fields((await storeUpdate(csiCapacities, capacity({ ...ok, storageClassName: 'slow', nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'b' } } }), capacity(ok))).causes), [
    'nodeTopology: Invalid value: {"matchLabels":{"topology.kubernetes.io/zone":"b"}}: field is immutable',
    'storageClassName: Invalid value: "slow": field is immutable',
  ]);
  assert.deepEqual(fields((await storeUpdate(csiCapacities, capacity({ storageClassName: 'fast', capacity: '10Gi' }), capacity(ok))).causes), [
    'nodeTopology: Invalid value: null: field is immutable',
  ]);
  // The capacity itself is what changes.
  assert.deepEqual((await storeUpdate(csiCapacities, capacity({ ...ok, capacity: '5Gi' }), capacity(ok))).causes, []);
});

test('VolumeAttributesClass validation: a driver and parameters, neither of which changes', async () => {
  const vac = (driverName: string, parameters?: object) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttributesClass', metadata: meta('gold'), driverName, ...(parameters ? { parameters } : {}) }) as unknown as KubeObject;
  assert.deepEqual((await storeCreate(attributesClasses, vac('ebs.csi.aws.com', { iops: '3000' }))).causes, []);
  assert.deepEqual(fields((await storeCreate(attributesClasses, vac(''))).causes), [
    'driverName: Required value',
    'parameters: Required value: must contain at least one key/value pair',
  ]);
  assert.deepEqual(fields((await storeUpdate(attributesClasses, vac('other.csi', { iops: '4000' }), vac('ebs.csi.aws.com', { iops: '3000' }))).causes), [
    'driverName: Forbidden: updates to driverName are forbidden.',
    'parameters: Forbidden: updates to parameters are forbidden.',
  ]);
});

test('CSINode validation: driver names, node IDs, counts and topology keys; a driver keeps what it reported', async () => {
  const node = (drivers: unknown[]) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers } }) as unknown as KubeObject;
  const ok = { name: 'ebs.csi.aws.com', nodeID: 'i-0123', topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } };
  assert.deepEqual((await storeCreate(csiNodes, node([ok]))).causes, []);
  assert.deepEqual(fields((await storeCreate(csiNodes, node([
    { name: '', nodeID: 'x'.repeat(257), allocatable: { count: -1 } },
    { name: 'EBS_CSI', nodeID: 'n', topologyKeys: ['zone', 'zone', '', 'bad key'] },
    { name: 'EBS_CSI', nodeID: 'n' },
  ]))).causes), [
    'spec.drivers[0].name: Required value',
    "spec.drivers[0].name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    `spec.drivers[0].nodeID: Invalid value: "${'x'.repeat(257)}": must be 256 characters or less`,
    'spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0',
    "spec.drivers[1].name: Invalid value: \"EBS_CSI\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'spec.drivers[1]: Duplicate value: "zone"',
    'spec.drivers[1]: Required value',
    "spec.drivers[1]: Invalid value: \"\": name part must be non-empty",
    "spec.drivers[1]: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    "spec.drivers[1]: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    "spec.drivers[2].name: Invalid value: \"EBS_CSI\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'spec.drivers[2].name: Duplicate value: "EBS_CSI"',
  ]);
  // The count may change; the node ID may not.
  assert.deepEqual((await storeUpdate(csiNodes, node([{ ...ok, allocatable: { count: 30 } }]), node([ok]))).causes, []);
  assert.deepEqual(fields((await storeUpdate(csiNodes, node([{ ...ok, nodeID: 'i-0456' }]), node([ok]))).causes), [
    'spec.drivers: Invalid value: {"Name":"ebs.csi.aws.com","NodeID":"i-0456","TopologyKeys":["topology.ebs.csi.aws.com/zone"],"Allocatable":null}: field is immutable',
  ]);
  assert.deepEqual(fields((await storeUpdate(csiNodes, node([{ name: ok.name, nodeID: 'i-0123' }]), node([ok]))).causes), [
    'spec.drivers: Invalid value: {"Name":"ebs.csi.aws.com","NodeID":"i-0123","TopologyKeys":null,"Allocatable":null}: field is immutable',
  ]);
});

test('VolumeAttachment validation: attacher, one source, node name, status sizes; the spec never changes', async () => {
  const attachment = (spec: object, status?: object) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'csi-123' }, spec, ...(status ? { status } : {}) }) as unknown as KubeObject;
  const ok = { attacher: 'ebs.csi.aws.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' };
  assert.deepEqual((await storeCreate(volumeAttachments, attachment(ok))).causes, []);
  assert.deepEqual(fields((await storeCreate(volumeAttachments, attachment({ source: {}, nodeName: 'Node_1' }))).causes), [
    'spec.attacher: Required value',
    'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    "spec.nodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'spec.attacher: Required value',
    "spec.attacher: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(fields((await storeCreate(volumeAttachments, attachment({ ...ok, source: { persistentVolumeName: 'pv-1', inlineVolumeSpec: { csi: { driver: 'd', volumeHandle: 'h' } } } }))).causes), [
    'spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
  ]);
  // An inline volume spec is a PersistentVolume's spec under the inline rules.
  const inline = (spec: object) => attachment({ ...ok, source: { inlineVolumeSpec: spec } });
  assert.deepEqual((await storeCreate(volumeAttachments, inline({ accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }))).causes, []);
  const at = 'spec.source.inlineVolumeSpec';
  assert.deepEqual(fields((await storeCreate(volumeAttachments, inline({
    capacity: { storage: '1Gi' }, claimRef: { name: 'claim' }, nfs: { server: 'nfs.example.com', path: '/exports' },
    persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast', volumeMode: 'Block',
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }] } },
  }))).causes), [
    `${at}.claimRef: Forbidden: may not be specified in the context of inline volumes`,
    `${at}.capacity: Forbidden: may not be specified in the context of inline volumes`,
    `${at}.csi: Required value: has to be specified in the context of inline volumes`,
    `${at}.accessModes: Required value`,
    `${at}.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes`,
    `${at}.nodeAffinity: Forbidden: may not be specified in the context of inline volumes`,
    `${at}.storageClassName: Forbidden: may not be specified in the context of inline volumes`,
    `${at}.volumeMode: Forbidden: may not specify volumeMode other than Filesystem in the context of inline volumes`,
  ]);
  assert.deepEqual(fields((await storeCreate(volumeAttachments, inline({ accessModes: ['ReadWriteOnce'], csi: { driver: '', volumeHandle: 'vol-1' } }))).causes), [
    `${at}.csi.driver: Required value`,
    `${at}.csi.driver: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  // Status is the attacher's to write, through the status subresource.
  const stored = attachment(ok);
  const status = { attached: true, attachmentMetadata: { blob: 'x'.repeat(256 * 1024) }, attachError: { message: 'm'.repeat(1025), errorCode: -1 } };
  assert.deepEqual(fields((await storeUpdate(volumeAttachments, attachment(ok, status), stored, 'status')).causes), [
    'status.attachmentMetadata: Too long: may not be more than 262144 bytes',
    'status.attachError.message: Too long: may not be more than 262144 bytes',
    'status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive',
  ]);
  assert.deepEqual((await storeUpdate(volumeAttachments, attachment(ok, { attached: true }), stored, 'status')).causes, []);
  assert.deepEqual(fields((await storeUpdate(volumeAttachments, attachment({ ...ok, nodeName: 'node-2' }), stored)).causes), [
    'spec: Invalid value: {"Attacher":"ebs.csi.aws.com","Source":{"PersistentVolumeName":"pv-1","InlineVolumeSpec":null},"NodeName":"node-2"}: field is immutable',
  ]);
  const inlineSpec = { accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } };
  assert.deepEqual(fields((await storeUpdate(volumeAttachments, inline(inlineSpec), attachment({ ...ok, source: { inlineVolumeSpec: { ...inlineSpec, accessModes: ['ReadOnlyMany'] } } }))).causes), [
    'spec: Invalid value: {"Attacher":"ebs.csi.aws.com","Source":{"PersistentVolumeName":null,"InlineVolumeSpec":{...}},"NodeName":"node-1"}: field is immutable',
  ]);
});

test('PriorityClass validation and update rules', async () => {
  const pc = (name: string, extra: object): KubeObject => ({ metadata: meta(name), ...extra } as KubeObject);
  const { obj, causes } = await storeCreate(priorityClasses, pc('high', { value: 1000 }));
  assert.deepEqual(causes, []);
  assert.equal((obj as unknown as { preemptionPolicy: string }).preemptionPolicy, 'PreemptLowerPriority');
  const cases: [KubeObject, string[]][] = [
    [pc('huge', { value: 1000000001 }), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']],
    [pc('system-mine', { value: 1 }), ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"]],
    [pc('system-node-critical', { value: 1 }), ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"]],
    [pc('system-node-critical', { value: 2000001000 }), []],
    [pc('p', { value: 1, preemptionPolicy: 'Sometimes' }), ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']],
  ];
  for (const [input, want] of cases) assert.deepEqual(fields((await storeCreate(priorityClasses, input)).causes), want, input.metadata.name);
  const update = await storeUpdate(priorityClasses, pc('high', { value: 2000, preemptionPolicy: 'Never' }), obj);
  assert.deepEqual(fields(update.causes), ['value: Forbidden: may not be changed in an update.', 'preemptionPolicy: Invalid value: "Never": field is immutable']);
});

test('the Priority plugin resolves a pod\'s priority from its class', async () => {
  const classes: KubeObject[] = [
    { metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' } as KubeObject,
    { metadata: { name: 'low' }, value: 10, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' } as KubeObject,
  ];
  const plugin = priorityAdmission({ get: async (name) => classes.find((c) => c.metadata.name === name), list: async () => classes });
  const admit = async (spec: object, known = classes) => {
    const p = priorityAdmission({ get: async (name) => known.find((c) => c.metadata.name === name), list: async () => known });
    const object = { metadata: { name: 'web', namespace: 'default' }, spec } as KubeObject;
    try {
      await p.admit!({ operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod', namespace: 'default', name: 'web', object, oldObject: undefined, dryRun: false, namespaced: true });
      return object.spec;
    } catch (err) {
      if (isStatusError(err)) return `${err.code} ${err.message}`;
      throw err;
    }
  };
  const cases: [object, KubeObject[], unknown][] = [
    [{ priorityClassName: 'high' }, classes, { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' }],
    [{}, classes, { priorityClassName: 'low', priority: 10, preemptionPolicy: 'PreemptLowerPriority' }],
    [{}, [], { priority: 0 }],
    [{ priorityClassName: 'foo' }, classes, '403 pods "web" is forbidden: no PriorityClass with name foo was found'],
    [{ priorityClassName: 'high', priority: 5 }, classes, '403 pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name'],
    [{ priorityClassName: 'high', priority: 1000 }, classes, { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' }],
  ];
  for (const [spec, known, want] of cases) assert.deepEqual(await admit(spec, known), want, JSON.stringify(spec));
  const second = { metadata: { name: 'other' }, value: 1, globalDefault: true } as KubeObject;
  await assert.rejects(
    Promise.resolve(plugin.validate!({ operation: 'CREATE', group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', subresource: '', kind: 'PriorityClass', namespace: '', name: 'other', object: second, oldObject: undefined, dryRun: false, namespaced: false })),
    { code: 403, message: 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass low is already marked as default. Only one default can exist' },
  );
});

test('table cells of the network and storage types', () => {
  const cells = (type: typeof pvs, obj: object) => (type.tableColumns ?? []).map((c) => c.cell(obj as KubeObject, Date.now()));
  const now = new Date().toISOString();
  assert.deepEqual(cells(ingresses, { metadata: { name: 'i', creationTimestamp: now }, spec: { ingressClassName: 'nginx', rules: [{ host: 'a.com' }, { host: 'b.com' }], tls: [{}] }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } }), ['i', 'nginx', 'a.com,b.com', '1.2.3.4', '80, 443', '0s']);
  assert.deepEqual(cells(ingressClasses, { metadata: { name: 'c', creationTimestamp: now }, spec: { controller: 'a.io/b', parameters: { apiGroup: 'x.io', kind: 'P', name: 'p' } } }), ['c', 'a.io/b', 'P.x.io/p', '0s']);
  assert.deepEqual(cells(networkPolicies, { metadata: { name: 'n', creationTimestamp: now }, spec: { podSelector: { matchLabels: { app: 'web' } } } }), ['n', 'app=web', '0s']);
  assert.deepEqual(cells(networkPolicies, { metadata: { name: 'n', creationTimestamp: now }, spec: { podSelector: {} } }), ['n', '<none>', '0s']);
  assert.deepEqual(cells(pvs, { metadata: { name: 'pv', creationTimestamp: now }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'ns', name: 'c' }, storageClassName: 'fast', volumeMode: 'Filesystem' }, status: { phase: 'Bound' } }), ['pv', '1Gi', 'RWO,RWX', 'Retain', 'Bound', 'ns/c', 'fast', '<unset>', '', '0s', 'Filesystem']);
  assert.deepEqual(cells(pvcs, { metadata: { name: 'c', creationTimestamp: now }, spec: { volumeName: 'pv', storageClassName: 'fast', volumeMode: 'Filesystem' }, status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }), ['c', 'Bound', 'pv', '1Gi', 'RWO', 'fast', '<unset>', '0s', 'Filesystem']);
  assert.deepEqual(cells(pvcs, { metadata: { name: 'c', creationTimestamp: now }, spec: {}, status: { phase: 'Pending' } }), ['c', 'Pending', '', '', '', '', '<unset>', '0s', '<unset>']);
  assert.deepEqual(cells(storageClasses, { metadata: { name: 's', creationTimestamp: now, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'Immediate', allowVolumeExpansion: true }), ['s (default)', 'p', 'Retain', 'Immediate', true, '0s']);
  assert.deepEqual(cells(priorityClasses, { metadata: { name: 'p', creationTimestamp: now }, value: 5, globalDefault: false, preemptionPolicy: 'Never' }), ['p', 5, false, '0s', 'Never']);
});
