import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const daemonSets = builtinType('daemonsets');

const template = { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } };
const minimal = { selector: { matchLabels: { app: 'agent' } }, template };

function daemonSet(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'default' }, spec: structuredClone(spec) };
}

test('a created DaemonSet gets upstream defaults, template generation 1 and the four zero counters', async () => {
  const { obj, causes } = await storeCreate(daemonSets, daemonSet(minimal));
  assert.deepEqual(causes, []);
  const spec = obj.spec as Record<string, unknown>;
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal((spec.template as { spec: Record<string, unknown> }).spec.dnsPolicy, 'ClusterFirst');
  assert.deepEqual(obj.metadata.annotations, { 'deprecated.daemonset.template.generation': '1' });
  assert.deepEqual(obj.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
});

test('an OnDelete DaemonSet gets no rolling update defaults', async () => {
  const { obj } = await storeCreate(daemonSets, daemonSet({ ...minimal, updateStrategy: { type: 'OnDelete' } }));
  assert.deepEqual((obj.spec as Record<string, unknown>).updateStrategy, { type: 'OnDelete' });
});

const invalidCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'the selector must match the template labels',
    spec: { ...minimal, selector: { matchLabels: { app: 'other' } } },
    causes: ['spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`'],
  },
  {
    name: 'an empty selector is refused',
    spec: { ...minimal, selector: {} },
    causes: ['spec.selector: Invalid value: {}: empty selector is invalid for daemonset'],
  },
  {
    name: 'maxUnavailable and maxSurge may not both be set',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } } },
    causes: ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero'],
  },
  {
    name: 'maxUnavailable and maxSurge may not both be zero',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } } },
    causes: ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0'],
  },
  {
    // A string that is not a percentage counts as its number (strconv.Atoi): "2" is non-zero.
    name: 'a numeric string is not a percentage, but counts as its number',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '2' } } },
    causes: ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "2": a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')'],
  },
  {
    name: 'percentages are at most 100%',
    spec: { ...minimal, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%' } } },
    causes: ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%'],
  },
  {
    name: 'the update strategy is RollingUpdate or OnDelete',
    spec: { ...minimal, updateStrategy: { type: 'Later' } },
    causes: ['spec.updateStrategy: Unsupported value: {"Type":"Later","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"'],
  },
  {
    name: 'an unknown update strategy is reported whole, its unset int-or-strings 0',
    spec: { ...minimal, updateStrategy: { type: 'Later', rollingUpdate: { maxUnavailable: '10%' } } },
    causes: ['spec.updateStrategy: Unsupported value: {"Type":"Later","RollingUpdate":{"MaxUnavailable":"10%","MaxSurge":0}}: supported values: "RollingUpdate", "OnDelete"'],
  },
  {
    name: 'pods must restart Always and have no deadline',
    spec: { ...minimal, template: { ...template, spec: { ...template.spec, restartPolicy: 'OnFailure', activeDeadlineSeconds: 3 } } },
    causes: [
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
    ],
  },
];

for (const c of invalidCases) {
  test(`DaemonSet validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(daemonSets, daemonSet(c.spec))).causes), c.causes);
  });
}

test('a template change counts a template generation and a generation; other spec changes only a generation', async () => {
  const { obj: old } = await storeCreate(daemonSets, daemonSet(minimal));
  const changed = daemonSet({ ...minimal, template: { ...template, spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } });
  changed.metadata.annotations = { 'deprecated.daemonset.template.generation': '7' };
  const { obj } = await storeUpdate(daemonSets, changed, old);
  assert.equal(obj.metadata.generation, 2);
  assert.equal(obj.metadata.annotations?.['deprecated.daemonset.template.generation'], '2');
  const { obj: limited } = await storeUpdate(daemonSets, daemonSet({ ...minimal, revisionHistoryLimit: 3 }), old);
  assert.equal(limited.metadata.generation, 2);
  assert.equal(limited.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
});

test('the DaemonSet selector is immutable', async () => {
  const { obj: old } = await storeCreate(daemonSets, daemonSet(minimal));
  const next = daemonSet({ selector: { matchLabels: { app: 'agent', v: '2' } }, template: { ...template, metadata: { labels: { app: 'agent', v: '2' } } } });
  assert.deepEqual(fields((await storeUpdate(daemonSets, next, old)).causes), [
    'spec.selector: Invalid value: {"matchLabels":{"app":"agent","v":"2"}}: field is immutable',
  ]);
});

test('daemonsets/status keeps the spec and refuses negative counters', async () => {
  const { obj: old } = await storeCreate(daemonSets, daemonSet(minimal));
  const next = structuredClone(old);
  next.status = { desiredNumberScheduled: 2, numberReady: -1 };
  assert.deepEqual(fields((await storeUpdate(daemonSets, next, old, 'status')).causes), ['status.numberReady: Invalid value: -1: must be greater than or equal to 0']);
  next.status = { desiredNumberScheduled: 2, currentNumberScheduled: 2 };
  (next.spec as Record<string, unknown>).minReadySeconds = 30;
  const { obj } = await storeUpdate(daemonSets, next, old, 'status');
  assert.deepEqual(obj.spec, old.spec);
  assert.deepEqual(obj.status, { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberMisscheduled: 0, numberReady: 0 });
});
