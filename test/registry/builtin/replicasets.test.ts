import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate, withoutServerMeta } from '../../helpers/store.ts';

const replicaSets = builtinType('replicasets');
const replicationControllers = builtinType('replicationcontrollers');

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };
const defaultedTemplate = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [{
      name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {},
    }],
    restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler',
  },
};

function replicaSet(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: structuredClone(spec) };
}

function replicationController(spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web', namespace: 'default', labels }, spec: structuredClone(spec) };
}

const minimalRS = { selector: { matchLabels: { app: 'web' } }, template };

test('a created ReplicaSet gets replicas 1, pod template defaults, generation 1 and status {replicas: 0}', async () => {
  const input = replicaSet(minimalRS);
  input.status = { replicas: 4 };
  const { obj, causes } = await storeCreate(replicaSets, input);
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: defaultedTemplate },
    status: { replicas: 0 },
  });
});

const invalidReplicaSets: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'the selector must match the template labels',
    spec: { ...minimalRS, selector: { matchLabels: { app: 'db' } } },
    causes: ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
  },
  {
    name: 'an empty selector is refused, with upstream\'s wording',
    spec: { ...minimalRS, selector: {} },
    causes: ['spec.selector: Invalid value: {}: empty selector is invalid for deployment'],
  },
  {
    name: 'pods must restart Always',
    spec: { ...minimalRS, template: { ...template, spec: { ...template.spec, restartPolicy: 'OnFailure' } } },
    causes: ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
  },
  {
    name: 'pods have no deadline',
    spec: { ...minimalRS, template: { ...template, spec: { ...template.spec, activeDeadlineSeconds: 5 } } },
    causes: ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported'],
  },
  {
    name: 'replicas and minReadySeconds may not be negative',
    spec: { ...minimalRS, replicas: -2, minReadySeconds: -1 },
    causes: ['spec.replicas: Invalid value: -2: must be greater than or equal to 0', 'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'the pod template is validated',
    spec: { ...minimalRS, template: { ...template, spec: { containers: [{ name: 'nginx' }] } } },
    causes: ['spec.template.spec.containers[0].image: Required value'],
  },
];

for (const c of invalidReplicaSets) {
  test(`ReplicaSet validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(replicaSets, replicaSet(c.spec))).causes), c.causes);
  });
}

async function storedReplicaSet(): Promise<KubeObject> {
  const { obj } = await storeCreate(replicaSets, replicaSet(minimalRS));
  obj.status = { replicas: 1, readyReplicas: 1, observedGeneration: 1 };
  return obj;
}

test('a ReplicaSet PUT keeps the stored status and bumps the generation on spec changes only', async () => {
  const old = await storedReplicaSet();
  const same = replicaSet(minimalRS);
  same.status = {};
  const unchanged = await storeUpdate(replicaSets, same, old);
  assert.deepEqual(unchanged.causes, []);
  assert.equal(unchanged.obj.metadata.generation, 1);
  assert.deepEqual(unchanged.obj.status, old.status);
  const scaled = replicaSet({ ...minimalRS, replicas: 3 });
  assert.equal((await storeUpdate(replicaSets, scaled, old)).obj.metadata.generation, 2);
});

test('the ReplicaSet selector is immutable', async () => {
  const old = await storedReplicaSet();
  const next = replicaSet({ selector: { matchLabels: { app: 'web', tier: 'fe' } }, template: { ...template, metadata: { labels: { app: 'web', tier: 'fe' } } } });
  assert.deepEqual(fields((await storeUpdate(replicaSets, next, old)).causes), [
    'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"fe"}}: field is immutable',
  ]);
});

test('a ReplicaSet update repeats the spec causes, as upstream validates the spec twice', async () => {
  const old = await storedReplicaSet();
  const { causes } = await storeUpdate(replicaSets, replicaSet({ ...minimalRS, replicas: -1 }), old);
  assert.deepEqual(fields(causes), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0', 'spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
});

const statusCases: { name: string; status: Record<string, unknown>; causes: string[]; stored?: Record<string, unknown> }[] = [
  // readyReplicas is omitempty: a zero is not stored; replicas has no omitempty: its zero is.
  { name: 'counts are written, zero replicas serialised', status: { readyReplicas: 0, observedGeneration: 1 }, causes: [], stored: { observedGeneration: 1, replicas: 0 } },
  {
    name: 'ready beyond replicas is refused',
    status: { replicas: 1, readyReplicas: 2, availableReplicas: 2 },
    causes: ['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas', 'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas'],
  },
  {
    name: 'available beyond ready is refused',
    status: { replicas: 2, readyReplicas: 1, availableReplicas: 2 },
    causes: ['status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas'],
  },
  {
    // Zero counts then exceed the negative replicas too, as upstream compares them.
    name: 'negative counts are refused',
    status: { replicas: -1 },
    causes: [
      'status.replicas: Invalid value: -1: must be greater than or equal to 0',
      'status.fullyLabeledReplicas: Invalid value: 0: cannot be greater than status.replicas',
      'status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas',
    ],
  },
];

for (const c of statusCases) {
  test(`replicasets/status: ${c.name}`, async () => {
    const old = await storedReplicaSet();
    const next = structuredClone(old);
    (next.spec as Record<string, unknown>).replicas = 7;
    next.status = c.status;
    const { obj, causes } = await storeUpdate(replicaSets, next, old, 'status');
    assert.deepEqual(fields(causes), c.causes);
    if (c.stored !== undefined) {
      assert.deepEqual(obj.status, c.stored);
      assert.deepEqual(obj.spec, old.spec);
    }
  });
}

test('the ReplicaSet scale subresource reads and writes spec.replicas', async () => {
  const rs = await storedReplicaSet();
  assert.deepEqual(replicaSets.strategy.scale!.get(rs), { replicas: 1, statusReplicas: 1, selector: 'app=web' });
});

// ---- ReplicationControllers ----

test('a ReplicationController defaults its selector and labels from the template labels', async () => {
  const { obj, causes } = await storeCreate(replicationControllers, replicationController({ template }));
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'v1', kind: 'ReplicationController',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, generation: 1 },
    spec: { template: defaultedTemplate, selector: { app: 'web' }, replicas: 1 },
    status: { replicas: 0 },
  });
});

test('a ReplicationController keeps the selector and labels it is given', async () => {
  const input = replicationController({ template: { ...template, metadata: { labels: { app: 'web', v: '2' } } }, selector: { app: 'web' } }, { team: 'a' });
  const { obj } = await storeCreate(replicationControllers, input);
  assert.deepEqual(obj.metadata.labels, { team: 'a' });
  assert.deepEqual((obj.spec as Record<string, unknown>).selector, { app: 'web' });
});

const invalidControllers: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'a selector is required when the template has no labels',
    spec: { template: { spec: template.spec } },
    causes: ['spec.selector: Required value'],
  },
  {
    name: 'the selector must match the template labels',
    spec: { template, selector: { app: 'db' } },
    causes: ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
  },
  {
    name: 'a template is required',
    spec: { selector: { app: 'web' } },
    causes: ['spec.template: Required value'],
  },
  {
    name: 'pods must restart Always and have no deadline',
    spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never', activeDeadlineSeconds: 1 } } },
    causes: [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported',
    ],
  },
];

for (const c of invalidControllers) {
  test(`ReplicationController validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(replicationControllers, replicationController(c.spec))).causes), c.causes);
  });
}

test('the ReplicationController selector may change', async () => {
  const { obj: old } = await storeCreate(replicationControllers, replicationController({ template }));
  const next = replicationController({ template: { ...template, metadata: { labels: { app: 'web', v: '2' } } }, selector: { app: 'web', v: '2' } });
  const { obj, causes } = await storeUpdate(replicationControllers, next, old);
  assert.deepEqual(causes, []);
  assert.deepEqual((obj.spec as Record<string, unknown>).selector, { app: 'web', v: '2' });
  assert.equal(obj.metadata.generation, 2);
});

test('the ReplicationController scale reads its map selector', async () => {
  const { obj } = await storeCreate(replicationControllers, replicationController({ template, replicas: 3 }));
  assert.deepEqual(replicationControllers.strategy.scale!.get(obj), { replicas: 3, statusReplicas: 0, selector: 'app=web' });
});
