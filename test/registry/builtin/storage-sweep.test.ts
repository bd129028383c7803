// Storage types against kube-apiserver v1.36: a StorageClass's allowed topologies
// (pkg/apis/storage/validation validateAllowedTopologies), its update checked once,
// CSIStorageCapacity warnings (pkg/api/storage GetWarningsForCSIStorageCapacity), the
// types whose PUT must name a resourceVersion, and the generation of CSIDrivers and
// VolumeAttachments (pkg/registry/storage/*/strategy.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, createWarned, fields, memoryStore, storeCreate, storeUpdate, tryCreate, tryUpdate, updateWarned } from '../../helpers/store.ts';

const storageClasses = builtinType('storageclasses');
const csiDrivers = builtinType('csidrivers');
const csiNodes = builtinType('csinodes');
const csiCapacities = builtinType('csistoragecapacities');
const volumeAttachments = builtinType('volumeattachments');

type Json = Record<string, unknown>;

const storageClass = (extra: Json = {}): KubeObject =>
  ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'example.com/disk', ...extra } as KubeObject);

const zone = 'topology.kubernetes.io/zone';
const host = 'kubernetes.io/hostname';
const term = (...expressions: [string, string[]][]): Json => ({ matchLabelExpressions: expressions.map(([key, values]) => ({ key, values })) });

const topologyCases: [name: string, topologies: Json[], want: string[]][] = [
  ['two terms, one key each', [term([zone, ['a']]), term([zone, ['b']])], []],
  ['a term of two keys', [term([zone, ['a', 'b']], [host, ['n1']])], []],
  ['the same key in two terms', [term([host, ['n1']]), term([host, ['n2']])], []],
  ['terms sharing one requirement of two', [term([zone, ['a']], [host, ['n1']]), term([zone, ['a']], [host, ['n2']])], []],
  ['a requirement without values', [term([host, []])], ['allowedTopologies[0].matchLabelExpressions[0].values: Required value']],
  ['a value twice', [term([host, ['n1', 'n1']])], ['allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "n1"']],
  ['a key that is no label name', [term(['/invalidkey', ['a']])], ['allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: "/invalidkey": prefix part must be non-empty']],
  ['a key twice in a term', [term([host, ['n1']], [host, ['n2']])], ['allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "kubernetes.io/hostname"']],
  ['identical terms', [term([zone, ['a']], [host, ['n1']]), term([zone, ['a']], [host, ['n1']])], ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']],
  ['the same term with its requirements reordered', [term([host, ['n1']], [zone, ['a']]), term([zone, ['a']], [host, ['n1']])], ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']],
  ['the same term with its values reordered', [term([zone, ['a', 'b']]), term([zone, ['b', 'a']])], ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']],
  // Upstream compares each term with a list that starts with one nil map per term.
  ['a term without requirements', [{}], ['allowedTopologies[0].matchLabelExpressions: Duplicate value: ""']],
];

for (const [name, topologies, want] of topologyCases) {
  test(`StorageClass allowedTopologies, ${name}`, async () => {
    const { causes } = await storeCreate(storageClasses, storageClass({ allowedTopologies: topologies }));
    assert.deepEqual(fields(causes), want);
  });
}

test('a StorageClass update may change allowedTopologies, and is refused once for each bad one', async () => {
  const old = (await storeCreate(storageClasses, storageClass())).obj;
  const good = await storeUpdate(storageClasses, { ...old, allowedTopologies: [term([zone, ['a']])] } as KubeObject, old);
  assert.deepEqual(good.causes, []);
  const bad = await storeUpdate(storageClasses, { ...old, allowedTopologies: [term([zone, []])] } as KubeObject, old);
  assert.deepEqual(fields(bad.causes), ['allowedTopologies[0].matchLabelExpressions[0].values: Required value']);
});

test('a StorageClass update is checked against the create rules once, then the update rules', async () => {
  // A class stored with a provisioner no create would take (written before the rule, say).
  const old = storageClass({ provisioner: 'bad provisioner', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  const { causes } = await storeUpdate(storageClasses, { ...old, metadata: { ...old.metadata, labels: { tier: 'x' } } } as KubeObject, old);
  assert.equal(causes.length, 1);
  assert.match(fields(causes)[0]!, /^provisioner: Invalid value: "bad provisioner": /);
});

const capacity = (nodeTopology: Json): KubeObject =>
  ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'c1', namespace: 'default' }, storageClassName: 'fast', nodeTopology } as KubeObject);

test('a CSIStorageCapacity is warned of deprecated node labels in its topology, on create and update', async () => {
  const input = capacity({
    matchLabels: { 'failure-domain.beta.kubernetes.io/zone': 'a', [zone]: 'a' },
    matchExpressions: [{ key: 'beta.kubernetes.io/os', operator: 'In', values: ['linux'] }, { key: host, operator: 'Exists' }],
  });
  const want = [
    'nodeTopology.matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
    'nodeTopology.matchLabels.failure-domain.beta.kubernetes.io/zone: deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  ];
  const created = await createWarned(csiCapacities, input);
  assert.deepEqual([created.causes, created.warnings], [[], want]);
  const relabelled = { ...created.obj, metadata: { ...created.obj.metadata, labels: { tier: 'x' } } };
  const updated = await updateWarned(csiCapacities, relabelled, created.obj);
  assert.deepEqual([updated.causes, updated.warnings], [[], want]);
});

test('a CSIStorageCapacity without deprecated node labels is warned of nothing', async () => {
  const created = await createWarned(csiCapacities, capacity({ matchLabels: { [zone]: 'a' } }));
  assert.deepEqual([created.causes, created.warnings], [[], []]);
});

const unconditional: [resource: string, input: KubeObject][] = [
  ['csidrivers', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'disk.example.com' }, spec: {} } as KubeObject],
  ['csinodes', { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers: [] } } as KubeObject],
  ['csistoragecapacities', capacity({})],
  ['volumeattachments', {
    apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va1' },
    spec: { attacher: 'disk.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv1' } },
  } as KubeObject],
];

for (const [resource, input] of unconditional) {
  test(`a PUT of ${resource} without a resourceVersion answers 422`, async () => {
    const type = { csidrivers: csiDrivers, csinodes: csiNodes, csistoragecapacities: csiCapacities, volumeattachments: volumeAttachments }[resource]!;
    const { store } = memoryStore(type);
    const created = await tryCreate(store, input);
    assert.deepEqual(created.causes, []);
    const { resourceVersion: _, ...metadata } = created.obj.metadata;
    const updated = await tryUpdate(store, { ...created.obj, metadata: { ...metadata, labels: { tier: 'x' } } });
    assert.deepEqual(fields(updated.causes), ['metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
  });
}

test('a StorageClass PUT without a resourceVersion still overwrites', async () => {
  const { store } = memoryStore(storageClasses);
  const created = await tryCreate(store, storageClass());
  const { resourceVersion: _, ...metadata } = created.obj.metadata;
  const updated = await tryUpdate(store, { ...created.obj, metadata: { ...metadata, labels: { tier: 'x' } } });
  assert.deepEqual([updated.causes, updated.obj.metadata.labels], [[], { tier: 'x' }]);
});

test('a VolumeAttachment keeps no generation, on create or update', async () => {
  const { store } = memoryStore(volumeAttachments);
  const created = await tryCreate(store, unconditional[3]![1]);
  assert.deepEqual(created.causes, []);
  assert.equal(created.obj.metadata.generation, undefined);
  const updated = await tryUpdate(store, { ...created.obj, metadata: { ...created.obj.metadata, labels: { tier: 'x' } } });
  assert.deepEqual(updated.causes, []);
  assert.equal(updated.obj.metadata.generation, undefined);
});

test('a VolumeAttachment create drops the status it was sent, a PUT keeps the stored one', async () => {
  const { store } = memoryStore(volumeAttachments);
  const input = { ...unconditional[3]![1], status: { attached: true, attachmentMetadata: { a: 'b' } } } as KubeObject;
  const created = await tryCreate(store, input);
  assert.deepEqual(created.causes, []);
  assert.notEqual((created.obj.status as Json | undefined)?.attached, true);
  const updated = await tryUpdate(store, { ...created.obj, status: { attached: true } } as KubeObject);
  assert.deepEqual([updated.causes, updated.obj.status], [[], created.obj.status]);
});

test('a CSIDriver starts without a generation and counts each change of its spec', async () => {
  const { store } = memoryStore(csiDrivers);
  const created = await tryCreate(store, unconditional[0]![1]);
  assert.deepEqual(created.causes, []);
  assert.equal(created.obj.metadata.generation, undefined);
  const relabelled = await tryUpdate(store, { ...created.obj, metadata: { ...created.obj.metadata, labels: { tier: 'x' } } });
  assert.equal(relabelled.obj.metadata.generation, undefined);
  const changed = await tryUpdate(store, { ...relabelled.obj, spec: { ...(relabelled.obj.spec as Json), podInfoOnMount: true } } as KubeObject);
  assert.deepEqual(changed.causes, []);
  assert.equal(changed.obj.metadata.generation, 1);
  const again = await tryUpdate(store, { ...changed.obj, spec: { ...(changed.obj.spec as Json), storageCapacity: true } } as KubeObject);
  assert.equal(again.obj.metadata.generation, 2);
});

const pvcs = builtinType('persistentvolumeclaims');
const betaClass = 'volume.beta.kubernetes.io/storage-class';

const claim = (annotations: Record<string, string> | undefined, spec: Json = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'default', ...(annotations === undefined ? {} : { annotations }) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
} as KubeObject);

const annotationCases: [name: string, before: Record<string, string> | undefined, after: KubeObject, want: string[]][] = [
  ['kept', { [betaClass]: 'fast' }, claim({ [betaClass]: 'fast' }), []],
  ['changed', { [betaClass]: 'fast' }, claim({ [betaClass]: 'slow' }), [`metadata.annotations.${betaClass}: Invalid value: "slow": field is immutable`]],
  ['removed', { [betaClass]: 'fast' }, claim(undefined), [`metadata.annotations.${betaClass}: Invalid value: "": field is immutable`]],
  ['added', undefined, claim({ [betaClass]: 'fast' }), [`metadata.annotations.${betaClass}: Invalid value: "fast": field is immutable`]],
  ['moved to storageClassName', { [betaClass]: 'fast' }, claim(undefined, { storageClassName: 'fast' }), []],
  ['copied to storageClassName', { [betaClass]: 'fast' }, claim({ [betaClass]: 'fast' }, { storageClassName: 'fast' }), []],
  ['changed while copied to storageClassName', { [betaClass]: 'fast' }, claim({ [betaClass]: 'slow' }, { storageClassName: 'fast' }), [`metadata.annotations.${betaClass}: Invalid value: "slow": field is immutable`]],
];

for (const [name, before, after, want] of annotationCases) {
  test(`a PersistentVolumeClaim's beta storage-class annotation on update: ${name}`, async () => {
    const old = (await storeCreate(pvcs, claim(before))).obj;
    const { causes } = await storeUpdate(pvcs, { ...after, metadata: { ...old.metadata, annotations: after.metadata.annotations } } as KubeObject, old);
    assert.deepEqual(fields(causes), want);
  });
}
