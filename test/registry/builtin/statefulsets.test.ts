import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const statefulSets = builtinType('statefulsets');

const template = { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:17' }] } };
const minimal = { selector: { matchLabels: { app: 'db' } }, serviceName: 'db', template };

function statefulSet(spec: Record<string, unknown>, name = 'db'): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace: 'default' }, spec: structuredClone(spec) };
}

test('a created StatefulSet gets upstream defaults and status {replicas: 0, availableReplicas: 0}', async () => {
  const input = statefulSet({
    ...minimal,
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  });
  input.status = { replicas: 3 };
  const { obj, causes } = await storeCreate(statefulSets, input);
  assert.deepEqual(causes, []);
  const spec = obj.spec as Record<string, unknown>;
  const { template: _t, ...rest } = spec;
  assert.deepEqual(rest, {
    selector: { matchLabels: { app: 'db' } },
    serviceName: 'db',
    volumeClaimTemplates: [{
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    }],
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    replicas: 1,
    revisionHistoryLimit: 10,
  });
  assert.equal((spec.template as { spec: Record<string, unknown> }).spec.restartPolicy, 'Always');
  assert.equal(obj.metadata.generation, 1);
  assert.deepEqual(obj.status, { replicas: 0, availableReplicas: 0 });
});

const defaultCases: { name: string; updateStrategy: unknown; expected: unknown }[] = [
  { name: 'OnDelete gets no rolling update', updateStrategy: { type: 'OnDelete' }, expected: { type: 'OnDelete' } },
  { name: 'a given partition is kept', updateStrategy: { rollingUpdate: { partition: 2 } }, expected: { type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: 1 } } },
  {
    // MaxUnavailableStatefulSet is beta and on since Kubernetes 1.35.
    name: 'a given maxUnavailable is kept',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%' } },
    expected: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: '25%' } },
  },
];

for (const c of defaultCases) {
  test(`StatefulSet update strategy defaults: ${c.name}`, async () => {
    const { obj } = await storeCreate(statefulSets, statefulSet({ ...minimal, updateStrategy: c.updateStrategy }));
    assert.deepEqual((obj.spec as Record<string, unknown>).updateStrategy, c.expected);
  });
}

const invalidCases: { name: string; spec: Record<string, unknown>; causes: string[]; objName?: string }[] = [
  {
    name: 'podManagementPolicy is OrderedReady or Parallel',
    spec: { ...minimal, podManagementPolicy: 'Random' },
    causes: ["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"],
  },
  {
    name: 'updateStrategy is RollingUpdate or OnDelete',
    spec: { ...minimal, updateStrategy: { type: 'Sometimes' } },
    causes: ['spec.updateStrategy: Invalid value: {"Type":"Sometimes","RollingUpdate":null}: must be \'RollingUpdate\' or \'OnDelete\''],
  },
  {
    name: 'an unknown updateStrategy is reported whole',
    spec: { ...minimal, updateStrategy: { type: 'Sometimes', rollingUpdate: { partition: 2 } } },
    causes: ['spec.updateStrategy: Invalid value: {"Type":"Sometimes","RollingUpdate":{"Partition":2,"MaxUnavailable":null}}: must be \'RollingUpdate\' or \'OnDelete\''],
  },
  {
    name: 'OnDelete takes no rollingUpdate',
    spec: { ...minimal, updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } },
    causes: [`spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: only allowed for updateStrategy 'RollingUpdate'`],
  },
  {
    name: 'the partition may not be negative',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } } },
    causes: ['spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'maxUnavailable: not 0, at most 100%, an integer or a percentage',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } } },
    causes: ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0'],
  },
  {
    name: 'maxUnavailable over 100%',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%' } } },
    causes: ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%'],
  },
  {
    name: 'maxUnavailable neither a number nor a percentage',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 'half' } } },
    causes: [
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "half": a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')',
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "half": cannot be 0',
    ],
  },
  {
    name: 'retention policies are Retain or Delete',
    spec: { ...minimal, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } },
    causes: ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"'],
  },
  {
    name: 'an empty selector is refused',
    spec: { ...minimal, selector: {} },
    causes: ['spec.selector: Invalid value: {}: empty selector is invalid for statefulset'],
  },
  {
    name: 'the selector must match the template labels',
    spec: { ...minimal, selector: { matchLabels: { app: 'web' } } },
    causes: ['spec.template.metadata.labels: Invalid value: {"app":"db"}: `selector` does not match template `labels`'],
  },
  {
    name: 'pods must restart Always',
    spec: { ...minimal, template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } },
    causes: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
  },
  {
    name: 'the ordinals start may not be negative',
    spec: { ...minimal, ordinals: { start: -1 } },
    causes: ['spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'the name is a DNS label',
    objName: 'db.primary',
    spec: minimal,
    causes: ['metadata.name: Invalid value: "db.primary": must not contain dots'],
  },
];

for (const c of invalidCases) {
  test(`StatefulSet validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(statefulSets, statefulSet(c.spec, c.objName))).causes), c.causes);
  });
}

const forbiddenMessage = "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

const updateCases: { name: string; change: Record<string, unknown>; causes: string[] }[] = [
  { name: 'replicas may change', change: { replicas: 5 }, causes: [] },
  { name: 'the template may change', change: { template: { ...template, spec: { containers: [{ name: 'pg', image: 'postgres:18' }] } } }, causes: [] },
  { name: 'the update strategy may change', change: { updateStrategy: { type: 'OnDelete' } }, causes: [] },
  { name: 'revisionHistoryLimit may change', change: { revisionHistoryLimit: 3 }, causes: [] },
  { name: 'the retention policy may change', change: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' } }, causes: [] },
  { name: 'minReadySeconds may change', change: { minReadySeconds: 10 }, causes: [] },
  { name: 'serviceName may not change', change: { serviceName: 'other' }, causes: [forbiddenMessage] },
  { name: 'podManagementPolicy may not change', change: { podManagementPolicy: 'Parallel' }, causes: [forbiddenMessage] },
  {
    name: 'volumeClaimTemplates may not change',
    change: { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } }] },
    causes: [forbiddenMessage],
  },
];

for (const c of updateCases) {
  test(`StatefulSet update: ${c.name}`, async () => {
    const { obj: old } = await storeCreate(statefulSets, statefulSet(minimal));
    const { obj, causes } = await storeUpdate(statefulSets, statefulSet({ ...minimal, ...c.change }), old);
    assert.deepEqual(fields(causes), c.causes);
    if (c.causes.length === 0) assert.equal(obj.metadata.generation, 2);
  });
}

test('statefulsets/status keeps the spec, serialises zero counters and refuses impossible counts', async () => {
  const { obj: old } = await storeCreate(statefulSets, statefulSet(minimal));
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).replicas = 9;
  next.status = { readyReplicas: 0, collisionCount: 1 };
  const { obj, causes } = await storeUpdate(statefulSets, next, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, old.spec);
  // readyReplicas is omitempty (a zero is not stored); replicas and availableReplicas are not.
  assert.deepEqual(obj.status, { collisionCount: 1, replicas: 0, availableReplicas: 0 });

  const bad = structuredClone(obj);
  bad.status = { replicas: 1, readyReplicas: 1, availableReplicas: 2, collisionCount: 0 };
  assert.deepEqual(fields((await storeUpdate(statefulSets, bad, obj, 'status')).causes), [
    'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas',
    'status.collisionCount: Invalid value: 0: cannot be decremented',
  ]);
});
