// HorizontalPodAutoscalers, PriorityClasses and RuntimeClasses against kube-apiserver v1.36:
// the apiVersion checks of an HPA's references (and their ratcheting on update), scaling to
// zero without an Object or External metric, a container resource's name, a negative
// tolerance; what a PriorityClass update checks; a RuntimeClass's overhead, repeated
// tolerations and deprecated node labels.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { builtinResourceTypes } from '../../../src/registry/builtin/index.ts';
import { fields, memoryStore, putStored, tryUpdate } from '../../helpers/store.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);
const hpas = (version: string, ns: string, name = '') => `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers${name === '' ? '' : `/${name}`}`;
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

let seq = 0;
/** A valid autoscaling/v2 HPA, its spec changed by `spec`. */
function hpaV2(spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: `h${++seq}` }, spec: { scaleTargetRef: deployment, maxReplicas: 3, ...spec } };
}

// ---- HPA: the apiVersion of scaleTargetRef and of Object metrics ----

const apiVersionCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'a scaleTargetRef without apiVersion',
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' } },
    causes: ['spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group'],
  },
  {
    name: 'a scaleTargetRef in the core group',
    spec: { scaleTargetRef: { apiVersion: 'v1', kind: 'Deployment', name: 'web' } },
    causes: ['spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group'],
  },
  {
    name: 'a scaleTargetRef with two slashes',
    spec: { scaleTargetRef: { apiVersion: 'apps/v1/x', kind: 'Deployment', name: 'web' } },
    causes: ['spec.scaleTargetRef.apiVersion: Invalid value: "apps/v1/x": unexpected GroupVersion string: apps/v1/x'],
  },
  {
    name: 'an Object metric whose describedObject has two slashes',
    spec: { metrics: [{ type: 'Object', object: { describedObject: { apiVersion: 'a/b/c', kind: 'Service', name: 's' }, metric: { name: 'm' }, target: { type: 'Value', value: '1' } } }] },
    causes: ['spec.metrics[0].object.describedObject.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
  },
];

for (const c of apiVersionCases) {
  test(`HPA create: ${c.name} answers 422`, async () => {
    const ns = await server.newNamespace('hpa-apiversion');
    const res = await server.request('POST', hpas('v2', ns), { body: hpaV2(c.spec) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), c.causes);
  });
}

const acceptedRefs: { name: string; spec: Record<string, unknown> }[] = [
  { name: 'a ReplicationController scaleTargetRef without apiVersion', spec: { scaleTargetRef: { kind: 'ReplicationController', name: 'rc' } } },
  { name: 'a ReplicationController scaleTargetRef in v1', spec: { scaleTargetRef: { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc' } } },
  {
    name: 'an Object metric describing a core Service',
    spec: { metrics: [{ type: 'Object', object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 's' }, metric: { name: 'm' }, target: { type: 'Value', value: '1' } } }] },
  },
];

for (const c of acceptedRefs) {
  test(`HPA create: ${c.name} is accepted`, async () => {
    const ns = await server.newNamespace('hpa-apiversion-ok');
    const res = await server.request('POST', hpas('v2', ns), { body: hpaV2(c.spec) });
    assert.equal(res.status, 201, res.text);
  });
}

test('HPA create through autoscaling/v1 checks the scaleTargetRef apiVersion too', async () => {
  const ns = await server.newNamespace('hpa-apiversion-v1');
  const body = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'old' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2 } };
  const res = await server.request('POST', hpas('v1', ns), { body });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), ['spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group']);
});

/** A Store of autoscaling/v2 HPAs holding `spec` as an older server may have stored it, past validation. */
async function storedHPA(spec: Record<string, unknown>) {
  const type = builtinResourceTypes().find((t) => t.resource === 'horizontalpodautoscalers' && t.version === 'v2')!;
  const fx = memoryStore(type);
  const old = { ...hpaV2(spec), metadata: { name: 'h', namespace: 'ns' }, status: { desiredReplicas: 0 } } as unknown as KubeObject;
  const stored = await putStored(fx, old);
  // Without a resourceVersion: an unconditional update (HPAs allow one), each against the stored object.
  const { resourceVersion: _rv, ...metadata } = stored.metadata;
  return (next: Record<string, unknown>) => tryUpdate(fx.store, { ...stored, metadata, spec: { ...(stored.spec as object), ...next } } as KubeObject);
}

test('HPA update: an invalid scaleTargetRef apiVersion already stored is not checked while apiVersion and kind stay', async () => {
  const update = await storedHPA({ scaleTargetRef: { kind: 'Deployment', name: 'web' } });
  assert.deepEqual(fields((await update({ maxReplicas: 7 })).causes), []);
  assert.deepEqual(fields((await update({ scaleTargetRef: { kind: 'StatefulSet', name: 'web' } })).causes), [
    'spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group',
  ]);
});

test('HPA update: an invalid Object metric apiVersion already stored lets every Object metric through', async () => {
  const object = (apiVersion: string) => ({ type: 'Object', object: { describedObject: { apiVersion, kind: 'Service', name: 's' }, metric: { name: 'm' }, target: { type: 'Value', value: '1' } } });
  const update = await storedHPA({ metrics: [object('a/b/c')] });
  assert.deepEqual(fields((await update({ metrics: [object('x/y/z'), object('a/b/c')] })).causes), []);
});

test('HPA update: minReplicas 0 already stored may stay 0', async () => {
  const external = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '10' } } };
  const update = await storedHPA({ minReplicas: 0, metrics: [external] });
  assert.deepEqual(fields((await update({ maxReplicas: 9 })).causes), []);
  assert.deepEqual(fields((await update({ minReplicas: -1 })).causes), ['spec.minReplicas: Invalid value: -1: must be greater than or equal to 0']);
});

// ---- HPA: the rest of the spec ----

const specCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'minReplicas 0 with only a CPU metric is also refused for its metrics',
    spec: { minReplicas: 0 },
    causes: [
      'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
      'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
    ],
  },
  {
    name: 'a ContainerResource metric naming no container resource',
    spec: { metrics: [{ type: 'ContainerResource', containerResource: { name: 'pods', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    causes: ['spec.metrics[0].containerResource.name: Invalid value: "pods": must be a standard resource for containers'],
  },
  {
    name: 'a negative scale-up tolerance',
    spec: { behavior: { scaleUp: { tolerance: '-0.1' } } },
    causes: ['spec.behavior.scaleUp.tolerance: Invalid value: "-100m": must be greater than or equal to 0'],
  },
  {
    name: 'an unknown metric type, refused twice as upstream does',
    spec: { metrics: [{ type: 'Foo' }] },
    causes: [
      'spec.metrics[0].type: Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[0].type: Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ],
  },
];

for (const c of specCases) {
  test(`HPA create: ${c.name}`, async () => {
    const ns = await server.newNamespace('hpa-spec');
    const res = await server.request('POST', hpas('v2', ns), { body: hpaV2(c.spec) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), c.causes);
  });
}

test('HPA create: a tolerance of zero and a ContainerResource metric on memory are accepted', async () => {
  const ns = await server.newNamespace('hpa-spec-ok');
  const res = await server.request('POST', hpas('v2', ns), {
    body: hpaV2({
      behavior: { scaleDown: { tolerance: '0' } },
      metrics: [{ type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', target: { type: 'AverageValue', averageValue: '100Mi' } } }],
    }),
  });
  assert.equal(res.status, 201, res.text);
});

// ---- PriorityClasses ----

const priorityClasses = '/apis/scheduling.k8s.io/v1/priorityclasses';

test('PriorityClass update: only what may not change is checked, each error once', async () => {
  const created = await server.request('POST', priorityClasses, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'pc-update' }, value: 5 } });
  assert.equal(created.status, 201, created.text);
  const res = await server.request('PUT', `${priorityClasses}/pc-update`, { body: { ...created.json, value: 2_000_000_000, preemptionPolicy: 'Bad' } });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), ['value: Forbidden: may not be changed in an update.', 'preemptionPolicy: Invalid value: "Bad": field is immutable']);
  const described = await server.request('PUT', `${priorityClasses}/pc-update`, { body: { ...created.json, description: 'five' } });
  assert.equal(described.status, 200, described.text);
});

test('PriorityClass create still checks the value ceiling and the preemption policy', async () => {
  const res = await server.request('POST', priorityClasses, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'pc-big' }, value: 1_000_000_001, preemptionPolicy: 'Bad' } });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), [
    'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    'preemptionPolicy: Unsupported value: "Bad": supported values: "PreemptLowerPriority", "Never"',
  ]);
});

// ---- RuntimeClasses ----

const runtimeClasses = '/apis/node.k8s.io/v1/runtimeclasses';
const runtimeClass = (name: string, extra: Record<string, unknown>) => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'runc', ...extra });

const overheadCases: { name: string; podFixed: Record<string, string>; causes: string[] }[] = [
  { name: 'a negative cpu', podFixed: { cpu: '-1' }, causes: ['overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0'] },
  { name: 'a resource no container has', podFixed: { pods: '1' }, causes: ['overhead.limits[pods]: Invalid value: "pods": must be a standard resource for containers'] },
  { name: 'a fraction of an extended resource', podFixed: { 'example.com/gpu': '1.5' }, causes: ['overhead.limits[example.com/gpu]: Invalid value: "1500m": must be an integer'] },
];

for (const c of overheadCases) {
  test(`RuntimeClass overhead: ${c.name} answers 422`, async () => {
    const res = await server.request('POST', runtimeClasses, { body: runtimeClass(`rc-overhead-${++seq}`, { overhead: { podFixed: c.podFixed } }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), c.causes);
  });
}

test('RuntimeClass overhead of cpu and memory is accepted', async () => {
  const res = await server.request('POST', runtimeClasses, { body: runtimeClass('rc-overhead-ok', { overhead: { podFixed: { cpu: '250m', memory: '120Mi' } } }) });
  assert.equal(res.status, 201, res.text);
});

test('RuntimeClass scheduling: a toleration repeated in key, operator, value and effect is a duplicate', async () => {
  const tolerations = [
    { key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 5 },
    { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' },
    { key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 },
  ];
  const res = await server.request('POST', runtimeClasses, { body: runtimeClass('rc-dup', { scheduling: { tolerations } }) });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), ['scheduling.tolerations[2]: Duplicate value: {"Key":"k","Operator":"Equal","Value":"v","Effect":"NoExecute","TolerationSeconds":30}']);
});

test('RuntimeClass: a deprecated node label in scheduling.nodeSelector is warned of on create and update', async () => {
  const warnings = (res: { headers: Record<string, string | string[] | undefined> }) => {
    const raw = res.headers.warning;
    return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).flatMap((h) => h.split(/,\s*(?=299 )/)).map((h) => h.replace(/^299 - "(.*)"$/, '$1').replace(/\\"/g, '"'));
  };
  const warning = 'scheduling.nodeSelector: deprecated since v1.14; use "kubernetes.io/arch" instead';
  const created = await server.request('POST', runtimeClasses, { body: runtimeClass('rc-warn', { scheduling: { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' } } }) });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(warnings(created), [warning]);
  const updated = await server.request('PUT', `${runtimeClasses}/rc-warn`, { body: created.json });
  assert.equal(updated.status, 200, updated.text);
  assert.deepEqual(warnings(updated), [warning]);
  const plain = await server.request('POST', runtimeClasses, { body: runtimeClass('rc-nowarn', { scheduling: { nodeSelector: { 'kubernetes.io/arch': 'amd64' } } }) });
  assert.deepEqual(warnings(plain), []);
});
