// What PersistentVolumeClaims, PersistentVolumes and StorageClasses are warned of, on create
// and on every update, as kube-apiserver v1.36 words it (pkg/api/persistentvolumeclaim,
// pkg/api/persistentvolume and pkg/api/storage's GetWarningsFor*): the beta storage-class
// annotation, fractional storage, the Recycle policy, deprecated node labels and volume
// plugins. Writes through /status are warned of nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, createWarned, updateWarned } from '../../helpers/store.ts';

const pvcs = builtinType('persistentvolumeclaims');
const pvs = builtinType('persistentvolumes');
const storageClasses = builtinType('storageclasses');

type Json = Record<string, unknown>;

const betaClass = 'volume.beta.kubernetes.io/storage-class';
const betaClassWarning = `metadata.annotations[${betaClass}]: deprecated since v1.8; use "storageClassName" attribute instead`;

/** `input` is created with `warnings`, then written again with a new label with the same, then through /status with none. */
async function assertWarnedOnEveryWrite(type: ReturnType<typeof builtinType>, input: KubeObject, warnings: string[]): Promise<void> {
  const created = await createWarned(type, input);
  assert.deepEqual([created.causes, created.warnings], [[], warnings]);
  const obj = created.obj;
  const relabelled = { ...obj, metadata: { ...obj.metadata, labels: { tier: 'x' } } };
  const updated = await updateWarned(type, relabelled, obj);
  assert.deepEqual([updated.causes, updated.warnings], [[], warnings]);
  const status = await updateWarned(type, obj, obj, 'status');
  assert.deepEqual([status.causes, status.warnings], [[], []]);
}

interface Case {
  name: string;
  annotations?: Record<string, string>;
  spec: Json;
  warnings: string[];
}

const claim = (c: Case): KubeObject =>
  ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default', ...(c.annotations ? { annotations: c.annotations } : {}) }, spec: c.spec });

const claimCases: Case[] = [
  { name: 'a whole number of bytes, storageClassName', spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1.5Gi' } } }, warnings: [] },
  { name: 'the beta storage-class annotation', annotations: { [betaClass]: 'fast' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, warnings: [betaClassWarning] },
  {
    name: 'fractional storage requested and limited',
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0.5' }, limits: { storage: '1001m' } } },
    warnings: [
      'spec.resources.requests[storage]: fractional byte value "500m" is invalid, must be an integer',
      'spec.resources.limits[storage]: fractional byte value "1001m" is invalid, must be an integer',
    ],
  },
];

for (const c of claimCases) {
  test(`a PersistentVolumeClaim, ${c.name}: warned of on create and update, not through /status`, () => assertWarnedOnEveryWrite(pvcs, claim(c), c.warnings));
}

const volume = (c: Case): KubeObject =>
  ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', ...(c.annotations ? { annotations: c.annotations } : {}) }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...c.spec } });

const nodeAffinity = (...keys: string[]) => ({ required: { nodeSelectorTerms: [{ matchExpressions: keys.map((key) => ({ key, operator: 'In', values: ['x'] })) }] } });

const volumeCases: Case[] = [
  { name: 'a local volume on a node', spec: { local: { path: '/mnt/disk' }, nodeAffinity: nodeAffinity('kubernetes.io/hostname') }, warnings: [] },
  {
    name: 'the beta annotation, the Recycle policy, deprecated node labels',
    annotations: { [betaClass]: 'slow' },
    spec: {
      nfs: { server: 'nfs.example', path: '/exports' }, persistentVolumeReclaimPolicy: 'Recycle',
      nodeAffinity: nodeAffinity('kubernetes.io/hostname', 'failure-domain.beta.kubernetes.io/zone'),
    },
    warnings: [
      betaClassWarning,
      'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[1].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    ],
  },
  { name: 'cephfs', spec: { cephfs: { monitors: ['m:6789'] } }, warnings: ['spec.cephfs: deprecated in v1.28, non-functional in v1.31+'] },
  { name: 'photonPersistentDisk', spec: { photonPersistentDisk: { pdID: 'p' } }, warnings: ['spec.photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+'] },
  {
    name: 'scaleIO', spec: { scaleIO: { gateway: 'https://g', system: 's', volumeName: 'v', secretRef: { name: 's' } } },
    warnings: ['spec.scaleIO: deprecated in v1.16, non-functional in v1.22+'],
  },
  { name: 'storageos', spec: { storageos: { volumeName: 'v' } }, warnings: ['spec.storageOS: deprecated in v1.22, non-functional in v1.25+'] },
  { name: 'glusterfs', spec: { glusterfs: { endpoints: 'e', path: 'p' } }, warnings: ['spec.glusterfs: deprecated in v1.25, non-functional in v1.26+'] },
  { name: 'rbd', spec: { rbd: { monitors: ['m'], image: 'i' } }, warnings: ['spec.rbd: deprecated in v1.28, non-functional in v1.31+'] },
];

for (const c of volumeCases) {
  test(`a PersistentVolume, ${c.name}: warned of on create and update, not through /status`, () => assertWarnedOnEveryWrite(pvs, volume(c), c.warnings));
}

const storageClass = (allowedTopologies: Json[]): KubeObject =>
  ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'example.com/csi', allowedTopologies }) as KubeObject;
const zone = { matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a'] }] };

test('a StorageClass is warned of deprecated node labels in its allowed topologies, on create and update', async () => {
  const deprecated = { matchLabelExpressions: [{ key: 'kubernetes.io/hostname', values: ['n'] }, { key: 'failure-domain.beta.kubernetes.io/zone', values: ['a'] }] };
  const expected = ['allowedTopologies[1].matchLabelExpressions[1].key: deprecated since v1.17; use "topology.kubernetes.io/zone" instead'];
  const { obj, causes, warnings } = await createWarned(storageClasses, storageClass([zone, deprecated]));
  assert.deepEqual([causes, warnings], [[], expected]);
  const relabelled = { ...obj, metadata: { ...obj.metadata, labels: { tier: 'ssd' } } };
  assert.deepEqual((await updateWarned(storageClasses, relabelled, obj)).warnings, expected);
});

test('a StorageClass without deprecated node labels is warned of nothing', async () => {
  assert.deepEqual((await createWarned(storageClasses, storageClass([zone]))).warnings, []);
});
