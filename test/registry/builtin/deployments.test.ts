import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate, withoutServerMeta } from '../../helpers/store.ts';

const deployments = builtinType('deployments');

function deployment(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec };
}

const minimal = {
  selector: { matchLabels: { app: 'web' } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
};

test('a created Deployment gets upstream defaults, generation 1 and an empty status', async () => {
  const input = deployment(structuredClone(minimal));
  input.status = { replicas: 5 };
  const { obj, causes } = await storeCreate(deployments, input);
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [{
            name: 'nginx',
            image: 'nginx',
            imagePullPolicy: 'Always',
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            resources: {},
          }],
          restartPolicy: 'Always',
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          schedulerName: 'default-scheduler',
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {},
  });
});

test('a Recreate strategy gets no rolling update defaults', async () => {
  const { obj, causes } = await storeCreate(deployments, deployment({ ...structuredClone(minimal), strategy: { type: 'Recreate' } }));
  assert.deepEqual(causes, []);
  assert.deepEqual((obj.spec as Record<string, unknown>).strategy, { type: 'Recreate' });
});

test('pod templates do not get the Pod-only defaults', async () => {
  const { obj } = await storeCreate(deployments, deployment(structuredClone(minimal)));
  const podSpec = ((obj.spec as Record<string, { spec: Record<string, unknown> }>).template!).spec;
  assert.equal(podSpec.enableServiceLinks, undefined);
});

const invalidCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'a selector is required',
    spec: { template: minimal.template },
    // A missing selector matches nothing (LabelSelectorAsSelector(nil)), so the labels check fails too, as upstream.
    causes: ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
  },
  {
    name: 'the selector must match the template labels',
    spec: { ...minimal, selector: { matchLabels: { app: 'db' } } },
    causes: ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
  },
  {
    name: 'the template labels are reported as a Go map, keys sorted',
    spec: { ...minimal, selector: { matchLabels: { app: 'db' } }, template: { ...minimal.template, metadata: { labels: { tier: 'fe', app: 'web' } } } },
    causes: ['spec.template.metadata.labels: Invalid value: {"app":"web","tier":"fe"}: `selector` does not match template `labels`'],
  },
  {
    name: 'a template without labels is reported as null',
    spec: { ...minimal, template: { spec: minimal.template.spec } },
    causes: ['spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`'],
  },
  {
    name: 'an empty selector is refused',
    spec: { ...minimal, selector: {} },
    causes: ['spec.selector: Invalid value: {}: empty selector is invalid for deployment'],
  },
  {
    name: 'replicas may not be negative',
    spec: { ...minimal, replicas: -1 },
    causes: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'the template must restart Always',
    spec: { ...minimal, template: { ...minimal.template, spec: { ...minimal.template.spec, restartPolicy: 'Never' } } },
    causes: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
  },
  {
    name: 'template containers are validated under spec.template.spec',
    spec: { ...minimal, template: { metadata: minimal.template.metadata, spec: { containers: [{ name: 'nginx' }] } } },
    causes: ['spec.template.spec.containers[0].image: Required value'],
  },
  {
    name: 'maxSurge and maxUnavailable may not both be zero',
    spec: { ...minimal, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } },
    causes: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0'],
  },
  {
    // Upstream reads a string that is not a percentage as strconv.Atoi does: "x" is 0, "5" is 5.
    name: 'a string that is not a percentage counts as its number, or 0',
    spec: { ...minimal, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'x', maxUnavailable: '0' } } },
    causes: [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0": a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')',
      'spec.strategy.rollingUpdate.maxSurge: Invalid value: "x": a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')',
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0": may not be 0 when `maxSurge` is 0',
    ],
  },
  {
    name: 'maxUnavailable is a number or a percentage',
    spec: { ...minimal, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 'half' } } },
    causes: ["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"half\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"],
  },
  {
    name: 'maxUnavailable is at most 100%',
    spec: { ...minimal, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '101%' } } },
    causes: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%'],
  },
  {
    name: 'the strategy is Recreate or RollingUpdate, reported whole',
    spec: { ...minimal, strategy: { type: 'Blue' } },
    causes: ['spec.strategy: Unsupported value: {"Type":"Blue","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"'],
  },
  {
    name: 'an unknown strategy with a rollingUpdate has its unset int-or-strings 0',
    spec: { ...minimal, strategy: { type: 'Blue', rollingUpdate: { maxSurge: 2 } } },
    causes: ['spec.strategy: Unsupported value: {"Type":"Blue","RollingUpdate":{"MaxUnavailable":0,"MaxSurge":2}}: supported values: "Recreate", "RollingUpdate"'],
  },
  {
    name: 'Recreate takes no rollingUpdate',
    spec: { ...minimal, strategy: { type: 'Recreate', rollingUpdate: {} } },
    causes: ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
  },
  {
    name: 'progressDeadlineSeconds exceeds minReadySeconds',
    spec: { ...minimal, minReadySeconds: 700 },
    causes: ['spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds'],
  },
  {
    name: 'selector expressions are checked',
    spec: { ...minimal, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In' }] } },
    causes: ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'", 'spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In"}]}: invalid label selector'],
  },
];

for (const c of invalidCases) {
  test(`Deployment validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(deployments, deployment(structuredClone(c.spec)))).causes), c.causes);
  });
}

async function stored(): Promise<KubeObject> {
  const { obj } = await storeCreate(deployments, deployment(structuredClone(minimal)));
  obj.status = { replicas: 1, observedGeneration: 1 };
  return obj;
}

test('a spec change bumps the generation and keeps the stored status', async () => {
  const old = await stored();
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).replicas = 3;
  next.status = {};
  const { obj, causes } = await storeUpdate(deployments, next, old);
  assert.deepEqual(causes, []);
  assert.equal(obj.metadata.generation, 2);
  assert.deepEqual(obj.status, { replicas: 1, observedGeneration: 1 });
});

test('an annotation change bumps the generation, a label change does not', async () => {
  const old = await stored();
  const annotated = structuredClone(old);
  annotated.metadata.annotations = { note: 'x' };
  assert.equal((await storeUpdate(deployments, annotated, old)).obj.metadata.generation, 2);
  const labelled = structuredClone(old);
  labelled.metadata.labels = { team: 'a' };
  assert.equal((await storeUpdate(deployments, labelled, old)).obj.metadata.generation, 1);
});

test('a PUT omitting defaulted fields is defaulted again and changes nothing', async () => {
  const old = await stored();
  const next = deployment(structuredClone(minimal));
  Object.assign(next.metadata, { uid: old.metadata.uid, resourceVersion: old.metadata.resourceVersion });
  const { obj } = await storeUpdate(deployments, next, old);
  assert.equal(obj.metadata.generation, 1);
  assert.deepEqual(obj.spec, old.spec);
});

test('the selector is immutable', async () => {
  const old = await stored();
  const next = structuredClone(old);
  const spec = next.spec as Record<string, Record<string, unknown>>;
  spec.selector = { matchLabels: { app: 'web', tier: 'fe' } };
  (spec.template!.metadata as Record<string, unknown>).labels = { app: 'web', tier: 'fe' };
  assert.deepEqual(fields((await storeUpdate(deployments, next, old)).causes), [
    'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"fe"}}: field is immutable',
  ]);
});

test('deployments/status changes status only, keeping spec and labels', async () => {
  const old = await stored();
  old.metadata.labels = { app: 'web' };
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).replicas = 9;
  next.metadata.labels = { hacked: 'yes' };
  next.status = { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1, observedGeneration: 1 };
  const { obj, causes } = await storeUpdate(deployments, next, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, old.spec);
  assert.deepEqual(obj.metadata.labels, { app: 'web' });
  assert.deepEqual(obj.status, next.status);
});

test('deployments/status refuses impossible counts', async () => {
  const old = await stored();
  const next = structuredClone(old);
  next.status = { replicas: 1, readyReplicas: 2, availableReplicas: -1 };
  assert.deepEqual(fields((await storeUpdate(deployments, next, old, 'status')).causes), [
    'status.availableReplicas: Invalid value: -1: must be greater than or equal to 0',
    'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
  ]);
});

test('the scale subresource reads replicas and the selector, and writes replicas', async () => {
  const d = await stored();
  (d.spec as Record<string, unknown>).selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] };
  assert.deepEqual(deployments.strategy.scale!.get(d), { replicas: 1, statusReplicas: 1, selector: 'app=web,tier notin (db)' });
  deployments.strategy.scale!.set(d, 4);
  assert.equal((d.spec as Record<string, unknown>).replicas, 4);
});
