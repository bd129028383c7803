// A PersistentVolumeClaim's spec, validated as upstream's ValidatePersistentVolumeClaimSpec
// (pkg/apis/core/validation) after the claim strategy's data source steps
// (pkg/api/persistentvolumeclaim: DropDisabledFields, EnforceDataSourceBackwardsCompatibility,
// NormalizeDataSources), the same spec in a pod's ephemeral volume (no such steps there), and a
// PersistentVolume's mount-options annotation (pkg/volume/validation's checkMountOption).
// Causes are compared in upstream's order, by reason, field and message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { builtinType, storeCreate, storeUpdate } from '../../helpers/store.ts';

const pvcs = builtinType('persistentvolumeclaims');
const pvs = builtinType('persistentvolumes');
const pods = builtinType('pods');

/** A cause as one line: its reason, field and message. */
const show = (c: StatusCause) => `${c.reason} ${c.field}: ${c.message}`;

const subdomainError = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelError = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const coreGroupOnlyClaims = "must be 'PersistentVolumeClaim' when referencing the default apiGroup";

const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const claimRef = { kind: 'PersistentVolumeClaim', name: 'source' };
const snapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' };
const populator = { apiGroup: 'populator.example.com', kind: 'Populator', name: 'p' };

function claim(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec, ...(status ? { status } : {}) };
}

interface Case {
  name: string;
  spec: Record<string, unknown>;
  causes: string[];
}

const claimCases: Case[] = [
  { name: 'access modes, a storage request, a selector and classes', spec: {
    ...base, selector: { matchLabels: { tier: 'db' } }, storageClassName: 'fast', volumeAttributesClassName: 'gold', volumeMode: 'Block',
  }, causes: [] },
  // Upstream checks no resource of a claim but the storage request.
  { name: 'limits and other requests, even negative: not checked', spec: {
    accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi', cpu: '-1' }, limits: { storage: '1Mi', memory: '-2' } },
  }, causes: [] },
  { name: 'a limit but no storage request', spec: { accessModes: ['ReadWriteOnce'], resources: { limits: { storage: '1Gi' } } },
    causes: ['FieldValueRequired spec.resources[storage]: Required value'] },
  { name: 'a negative storage request, written as upstream writes the quantity', spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '-1024Mi' } } },
    causes: ['FieldValueInvalid spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero'] },
  { name: 'a volume mode is a typed string: json.Marshal escapes it', spec: { ...base, volumeMode: 'Raw<1>' },
    causes: ['FieldValueNotSupported spec.volumeMode: Unsupported value: "Raw\\u003c1\\u003e": supported values: "Block", "Filesystem"'] },

  // Data sources: the strategy fills in whichever of the two is missing, so each check is made at both.
  { name: 'a claim as dataSource', spec: { ...base, dataSource: claimRef }, causes: [] },
  { name: 'a VolumeSnapshot as dataSource', spec: { ...base, dataSource: snapshot }, causes: [] },
  { name: 'a populator as dataSourceRef', spec: { ...base, dataSourceRef: populator }, causes: [] },
  { name: 'the same object in both', spec: { ...base, dataSource: populator, dataSourceRef: populator }, causes: [] },
  { name: 'another kind as dataSource alone: dropped before validation', spec: { ...base, dataSource: { kind: 'Foo', name: 'x' } }, causes: [] },
  { name: 'a claim as dataSource without a name', spec: { ...base, dataSource: { kind: 'PersistentVolumeClaim', name: '' } }, causes: [
    'FieldValueRequired spec.dataSource.name: Required value',
    'FieldValueRequired spec.dataSourceRef.name: Required value',
  ] },
  { name: 'a dataSourceRef naming nothing', spec: { ...base, dataSourceRef: { kind: '', name: '' } }, causes: [
    'FieldValueRequired spec.dataSource.name: Required value',
    'FieldValueRequired spec.dataSource.kind: Required value',
    `FieldValueInvalid spec.dataSource: Invalid value: "": ${coreGroupOnlyClaims}`,
    'FieldValueRequired spec.dataSourceRef.name: Required value',
    'FieldValueRequired spec.dataSourceRef.kind: Required value',
    `FieldValueInvalid spec.dataSourceRef: Invalid value: "": ${coreGroupOnlyClaims}`,
  ] },
  { name: 'a dataSourceRef of another core kind', spec: { ...base, dataSourceRef: { kind: 'ConfigMap', name: 'c' } }, causes: [
    `FieldValueInvalid spec.dataSource: Invalid value: "ConfigMap": ${coreGroupOnlyClaims}`,
    `FieldValueInvalid spec.dataSourceRef: Invalid value: "ConfigMap": ${coreGroupOnlyClaims}`,
  ] },
  { name: 'a dataSourceRef whose API group is not a DNS subdomain', spec: { ...base, dataSourceRef: { apiGroup: 'Populators_X', kind: 'Populator', name: 'p' } }, causes: [
    `FieldValueInvalid spec.dataSource.apiGroup: Invalid value: "Populators_X": ${subdomainError}`,
    `FieldValueInvalid spec.dataSourceRef.apiGroup: Invalid value: "Populators_X": ${subdomainError}`,
  ] },
  { name: 'two different objects', spec: { ...base, dataSource: claimRef, dataSourceRef: populator },
    causes: ['FieldValueInvalid spec: Invalid value: {}: must match dataSourceRef'] },
  { name: 'an empty API group differs from none', spec: { ...base, dataSource: { apiGroup: '', ...claimRef }, dataSourceRef: claimRef },
    causes: ['FieldValueInvalid spec: Invalid value: {}: must match dataSourceRef'] },
  // CrossNamespaceVolumeDataSource is off in 1.36: a dataSourceRef into a namespace is dropped, even an invalid one.
  { name: 'a dataSourceRef into another namespace: dropped', spec: { ...base, dataSourceRef: { ...claimRef, namespace: 'Not_A_Label' } }, causes: [] },
  { name: 'a dataSourceRef into another namespace beside a dataSource: the dataSource stays', spec: {
    ...base, dataSource: { kind: 'PersistentVolumeClaim', name: '' }, dataSourceRef: { ...populator, namespace: 'other' },
  }, causes: [
    'FieldValueRequired spec.dataSource.name: Required value',
    'FieldValueRequired spec.dataSourceRef.name: Required value',
  ] },

  // Upstream's order: access modes required, selector, access modes' values, storage, class, mode, data sources, attributes class.
  { name: 'everything wrong, in upstream\'s order', spec: {
    accessModes: [], selector: { matchLabels: { 'bad key!': 'v' } }, resources: { requests: { storage: '0' } }, storageClassName: 'Fast',
    volumeMode: 'Sideways', dataSource: { apiGroup: 'A_B', kind: '', name: 'x' }, dataSourceRef: { apiGroup: 'A_B', kind: 'K', name: '' }, volumeAttributesClassName: 'Gold',
  }, causes: [
    'FieldValueRequired spec.accessModes: Required value: at least 1 access mode is required',
    `FieldValueInvalid spec.selector.matchLabels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    'FieldValueInvalid spec.resources[storage]: Invalid value: "0": must be greater than zero',
    `FieldValueInvalid spec.storageClassName: Invalid value: "Fast": ${subdomainError}`,
    'FieldValueNotSupported spec.volumeMode: Unsupported value: "Sideways": supported values: "Block", "Filesystem"',
    'FieldValueRequired spec.dataSource.kind: Required value',
    `FieldValueInvalid spec.dataSource.apiGroup: Invalid value: "A_B": ${subdomainError}`,
    'FieldValueRequired spec.dataSourceRef.name: Required value',
    `FieldValueInvalid spec.dataSourceRef.apiGroup: Invalid value: "A_B": ${subdomainError}`,
    'FieldValueInvalid spec: Invalid value: {}: must match dataSourceRef',
    `FieldValueInvalid spec.volumeAttributesClassName: Invalid value: "Gold": ${subdomainError}`,
  ] },
];

for (const { name, spec, causes } of claimCases) {
  test(`claim spec: ${name}`, async () => {
    const result = await storeCreate(pvcs, claim(spec));
    assert.deepEqual(result.causes.map(show), causes);
  });
}

test('a claim stores both data source fields, filled from the one given', async () => {
  const fromSource = await storeCreate(pvcs, claim({ ...base, dataSource: snapshot }));
  assert.deepEqual((fromSource.obj.spec as Record<string, unknown>).dataSourceRef, snapshot);
  const fromRef = await storeCreate(pvcs, claim({ ...base, dataSourceRef: claimRef }));
  assert.deepEqual((fromRef.obj.spec as Record<string, unknown>).dataSource, claimRef);
});

test('a claim stores neither a dropped dataSource nor a dataSourceRef into another namespace', async () => {
  const dropped = await storeCreate(pvcs, claim({ ...base, dataSource: { kind: 'Foo', name: 'x' } }));
  assert.deepEqual(dropped.causes, []);
  assert.deepEqual([(dropped.obj.spec as Record<string, unknown>).dataSource, (dropped.obj.spec as Record<string, unknown>).dataSourceRef], [undefined, undefined]);
  const crossNamespace = await storeCreate(pvcs, claim({ ...base, dataSourceRef: { ...claimRef, namespace: 'other' } }));
  assert.deepEqual(crossNamespace.causes, []);
  assert.deepEqual([(crossNamespace.obj.spec as Record<string, unknown>).dataSource, (crossNamespace.obj.spec as Record<string, unknown>).dataSourceRef], [undefined, undefined]);
});

test('updating a claim stored with only a dataSource: the stored one is normalized too, so the spec is unchanged', async () => {
  const stored = claim({ ...base, volumeMode: 'Filesystem', dataSource: claimRef }, { phase: 'Pending' });
  assert.deepEqual((await storeUpdate(pvcs, claim({ ...base, volumeMode: 'Filesystem', dataSource: claimRef }), stored)).causes, []);
});

test('updating a claim whose stored data source named an invalid API group: the group is not checked again', async () => {
  const ref = { apiGroup: 'Populators_X', kind: 'Populator', name: 'p' };
  const spec = { ...base, volumeMode: 'Filesystem', dataSource: ref, dataSourceRef: ref };
  assert.deepEqual((await storeUpdate(pvcs, claim(spec), claim(spec, { phase: 'Pending' }))).causes, []);
  const other = { ...base, volumeMode: 'Filesystem', dataSource: { kind: 'PersistentVolumeClaim', name: 'x' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'x' } };
  // Upstream checks the spec twice on an update: in the strategy, and again in ValidatePersistentVolumeClaimUpdate.
  const groupCauses = [
    `FieldValueInvalid spec.dataSource.apiGroup: Invalid value: "Populators_X": ${subdomainError}`,
    `FieldValueInvalid spec.dataSourceRef.apiGroup: Invalid value: "Populators_X": ${subdomainError}`,
  ];
  assert.deepEqual((await storeUpdate(pvcs, claim(spec), claim(other, { phase: 'Pending' }))).causes.map(show), [
    ...groupCauses, ...groupCauses,
    'FieldValueForbidden spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
  ]);
});

// A pod's ephemeral volume: the claim template's spec is checked as it is given.
const t = 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec';

function podWithClaim(spec: Record<string, unknown>): KubeObject {
  const volumes = [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { ...base, ...spec } } } }];
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:1' }], volumes } };
}

const templateCases: Case[] = [
  { name: 'a populator as dataSourceRef alone', spec: { dataSourceRef: populator }, causes: [] },
  { name: 'a dataSourceRef into another namespace alone', spec: { dataSourceRef: { ...populator, namespace: 'other' } }, causes: [] },
  { name: 'another kind as dataSource alone: not dropped in a template', spec: { dataSource: { kind: 'Foo', name: 'x' } },
    causes: [`FieldValueInvalid ${t}.dataSource: Invalid value: "Foo": ${coreGroupOnlyClaims}`] },
  { name: 'a dataSourceRef into a namespace that is not a DNS label', spec: { dataSourceRef: { ...populator, namespace: 'Other.NS' } }, causes: [
    `FieldValueInvalid ${t}.dataSourceRef.namespace: Invalid value: "Other.NS": ${labelError}`,
  ] },
  { name: 'a dataSource beside a dataSourceRef into another namespace', spec: { dataSource: populator, dataSourceRef: { ...populator, namespace: 'other' } },
    causes: [`FieldValueInvalid ${t}: Invalid value: {}: may not be specified when dataSourceRef.namespace is specified`] },
  { name: 'a dataSourceRef with an empty namespace is compared with the dataSource', spec: { dataSource: claimRef, dataSourceRef: { ...populator, namespace: '' } },
    causes: [`FieldValueInvalid ${t}: Invalid value: {}: must match dataSourceRef`] },
  { name: 'a dataSourceRef only: the dataSource is not filled in, so nothing to match', spec: { dataSourceRef: { kind: 'ConfigMap', name: 'c' } },
    causes: [`FieldValueInvalid ${t}.dataSourceRef: Invalid value: "ConfigMap": ${coreGroupOnlyClaims}`] },
];

for (const { name, spec, causes } of templateCases) {
  test(`ephemeral claim template spec: ${name}`, async () => {
    const result = await storeCreate(pods, podWithClaim(spec));
    assert.deepEqual(result.causes.map(show), causes);
  });
}

// A PersistentVolume's mount-options annotation: only on the volume types whose plugins take mount options.
const mountOptions = 'volume.beta.kubernetes.io/mount-options';
const mountOptionsForbidden = `FieldValueForbidden metadata.annotations.${mountOptions}: Forbidden: may not specify mount options for this volume type`;

function volume(source: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', ...(annotations ? { annotations } : {}) },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...source },
  };
}

const nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } };

const takesMountOptions: Record<string, unknown>[] = [
  { gcePersistentDisk: { pdName: 'disk-1' } }, { awsElasticBlockStore: { volumeID: 'vol-0a1b' } }, { glusterfs: { endpoints: 'gluster', path: 'vol' } },
  { nfs: { server: 'nfs.example.com', path: '/exports' } }, { rbd: { monitors: ['10.0.0.1:6789'], image: 'disk' } }, { quobyte: { registry: 'reg1:7861', volume: 'vol' } },
  { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'eui.0123456789ABCDEF' } }, { cinder: { volumeID: 'vol' } }, { cephfs: { monitors: ['10.0.0.1:6789'] } },
  { azureFile: { secretName: 'azure', shareName: 'share' } }, { vsphereVolume: { volumePath: '[datastore] vol.vmdk' } },
  { azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd' } }, { photonPersistentDisk: { pdID: 'pd-1' } },
];
const takesNoMountOptions: Record<string, unknown>[] = [
  { hostPath: { path: '/data' } }, { flocker: { datasetUUID: '7a1f' } }, { fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 } },
  { flexVolume: { driver: 'example.com/nfs' } }, { portworxVolume: { volumeID: 'pwx-1' } },
  { scaleIO: { gateway: 'https://gw:443/api', system: 'sys', volumeName: 'vol' } }, { local: { path: '/mnt/disks/ssd1' }, nodeAffinity },
  { storageos: { volumeName: 'vol' } }, { csi: { driver: 'csi.example.com', volumeHandle: 'vol-1' } },
];

for (const source of takesMountOptions) {
  test(`a ${Object.keys(source)[0]} volume may carry the mount-options annotation`, async () => {
    assert.deepEqual((await storeCreate(pvs, volume(source, { [mountOptions]: 'ro,soft' }))).causes, []);
  });
}

for (const source of takesNoMountOptions) {
  test(`a ${Object.keys(source)[0]} volume may not carry the mount-options annotation, but may have spec.mountOptions`, async () => {
    assert.deepEqual((await storeCreate(pvs, volume(source, { [mountOptions]: 'ro' }))).causes.map(show), [mountOptionsForbidden]);
    assert.deepEqual((await storeCreate(pvs, volume({ ...source, mountOptions: ['ro'] }))).causes, []);
  });
}

test('the mount-options annotation is forbidden even empty, after the spec\'s own causes', async () => {
  assert.deepEqual((await storeCreate(pvs, volume({}, { [mountOptions]: '' }))).causes.map(show), [
    'FieldValueRequired spec: Required value: must specify a volume type',
    mountOptionsForbidden,
  ]);
});

test('any source that takes mount options lets the annotation pass, even beside one that does not', async () => {
  assert.deepEqual((await storeCreate(pvs, volume({ nfs: { server: 'nfs.example.com', path: '/exports' }, hostPath: { path: '/data' } }, { [mountOptions]: 'ro' }))).causes.map(show), [
    'FieldValueForbidden spec.nfs: Forbidden: may not specify more than 1 volume type',
  ]);
});

test('an update that adds the mount-options annotation to a hostPath volume is refused', async () => {
  const stored = volume({ hostPath: { path: '/data' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
  const result = await storeUpdate(pvs, volume({ hostPath: { path: '/data' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }, { [mountOptions]: 'ro' }), stored);
  assert.deepEqual(result.causes.map(show), [mountOptionsForbidden]);
});
