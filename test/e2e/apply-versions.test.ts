// Managed fields of managers that wrote through different API versions of one object:
// HPAs' autoscaling/v1 and v2, core and events.k8s.io Events, a CRD's versions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';

type Json = Record<string, any>;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const applyHeaders = { 'content-type': 'application/apply-patch+yaml' };
const apply = (path: string, body: Json, manager: string, force = false) =>
  server.request('PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, { raw: JSON.stringify(body), headers: applyHeaders });
const managers = (obj: Json): Record<string, Json> =>
  Object.fromEntries((obj.metadata.managedFields ?? []).map((e: Json) => [`${e.manager}@${e.apiVersion}`, e.fieldsV1]));

describe('HorizontalPodAutoscalers through autoscaling/v1 and v2', () => {
  const hpaPath = (version: string, name: string) => `/apis/autoscaling/${version}/namespaces/default/horizontalpodautoscalers/${name}`;
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  const v2 = (name: string, utilization: number) => ({
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name },
    spec: { scaleTargetRef: target, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } }] },
  });
  const v1 = (name: string, utilization: number) => ({
    apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name },
    spec: { scaleTargetRef: target, maxReplicas: 5, targetCPUUtilizationPercentage: utilization },
  });

  test('changing through v1 what a v2 applier owns is a conflict naming the field as v2 names it; force takes it', async () => {
    assert.equal((await apply(hpaPath('v2', 'web'), v2('web', 50), 'v2-applier')).status, 201);
    const clash = await apply(hpaPath('v1', 'web'), v1('web', 80), 'v1-applier');
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "v2-applier"', field: '.spec.metrics' }]);
    assert.equal((await server.request('GET', hpaPath('v1', 'web'))).json.spec.targetCPUUtilizationPercentage, 50, 'the conflict changed nothing');

    const forced = await apply(hpaPath('v1', 'web'), v1('web', 80), 'v1-applier', true);
    assert.equal(forced.status, 200, forced.text);
    assert.equal(forced.json.spec.targetCPUUtilizationPercentage, 80);
    const owners = managers(forced.json);
    assert.deepEqual(Object.keys(owners).sort(), ['v1-applier@autoscaling/v1', 'v2-applier@autoscaling/v2']);
    assert.equal(owners['v2-applier@autoscaling/v2']!['f:spec']['f:metrics'], undefined, 'the v2 applier lost the metrics');
    assert.deepEqual(owners['v2-applier@autoscaling/v2']!['f:spec']['f:maxReplicas'], {}, 'and shares what both applied');
    assert.deepEqual(owners['v1-applier@autoscaling/v1']!['f:spec']['f:targetCPUUtilizationPercentage'], {});
  });

  test('an update through v1 takes from a v2 applier what it changed, as v2 names it', async () => {
    assert.equal((await apply(hpaPath('v2', 'edit'), v2('edit', 50), 'v2-applier')).status, 201);
    const current = (await server.request('GET', hpaPath('v1', 'edit'))).json;
    current.spec.targetCPUUtilizationPercentage = 70;
    const put = await server.request('PUT', `${hpaPath('v1', 'edit')}?fieldManager=editor`, { body: current });
    assert.equal(put.status, 200, put.text);
    const owners = managers(put.json);
    assert.deepEqual(owners['editor@autoscaling/v1'], { 'f:spec': { 'f:targetCPUUtilizationPercentage': {} } });
    assert.equal(owners['v2-applier@autoscaling/v2']!['f:spec']['f:metrics'], undefined);
    // The v2 applier applying its own value again is now the conflict.
    const clash = await apply(hpaPath('v2', 'edit'), v2('edit', 50), 'v2-applier');
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "editor" using autoscaling/v1', field: '.spec.targetCPUUtilizationPercentage' }]);
  });
});

describe('Events through the core API and events.k8s.io', () => {
  test('changing through events.k8s.io the note a core writer set is a conflict naming its message', async () => {
    const event = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'started', type: 'Normal', source: { component: 'kubelet' },
    };
    const created = await server.request('POST', '/api/v1/namespaces/default/events?fieldManager=kubelet', { body: event });
    assert.equal(created.status, 201, created.text);
    const read = (await server.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/e1')).json;
    assert.equal(read.note, 'started');
    const configuration = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' }, note: 'restarted' };
    const clash = await apply('/apis/events.k8s.io/v1/namespaces/default/events/e1', configuration, 'reporter');
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubelet" using v1', field: '.message' }]);
  });
});

describe('a CRD\'s versions', () => {
  const group = 'versions.apply.example.com';
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`;
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } } } } };
  const version = (name: string, storage: boolean) => ({ name, served: true, storage, schema });
  const gadgetPath = (v: string, name: string) => `/apis/${group}/${v}/namespaces/default/gadgets/${name}`;
  const gadget = (v: string, name: string, spec: Json) => ({ apiVersion: `${group}/${v}`, kind: 'Gadget', metadata: { name }, spec });

  test('a manager of a version the CRD no longer serves is dropped at the next write', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, versions: [version('v1', false), version('v2', true)] },
    };
    assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    await eventually(async () => {
      for (const v of ['v1', 'v2']) assert.equal((await server.request('GET', `/apis/${group}/${v}/namespaces/default/gadgets`)).status, 200);
    });
    assert.equal((await apply(gadgetPath('v1', 'g'), gadget('v1', 'g', { size: 1 }), 'old')).status, 201);
    const both = await apply(gadgetPath('v2', 'g'), gadget('v2', 'g', { size: 1, color: 'red' }), 'new');
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(Object.keys(managers(both.json)).sort(), [`new@${group}/v2`, `old@${group}/v1`], 'both versions served: both kept');

    const current = (await server.request('GET', crdPath)).json;
    current.spec.versions = [version('v2', true)];
    assert.equal((await server.request('PUT', crdPath, { body: current })).status, 200);
    await eventually(async () => assert.equal((await server.request('GET', gadgetPath('v1', 'g'))).status, 404));

    const after = await apply(gadgetPath('v2', 'g'), gadget('v2', 'g', { size: 1, color: 'red' }), 'new');
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(Object.keys(managers(after.json)), [`new@${group}/v2`]);
    assert.deepEqual(after.json.spec, { size: 1, color: 'red' }, 'the dropped manager\'s fields stay');
  });
});
