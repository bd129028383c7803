// Subresources of built-in types: status (pods, deployments, services, namespaces),
// namespaces/finalize and deployments/scale, over HTTP and with kubectl scale.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, startServerProcess, type ServerProcess, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const namespace = () => server.newNamespace('sub');

const merge = { 'content-type': 'application/merge-patch+json' };

function deployment(name: string, replicas = 1) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

describe('pods/status', () => {
  test('PUT of status changes status only; the main resource ignores status; generation moves with spec only', async () => {
    const ns = await namespace();
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(created.status, 201);
    const pod = created.json;
    assert.equal(pod.metadata.generation, 1);

    const viaStatus = await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p/status`, {
      body: { ...pod, spec: { ...pod.spec, activeDeadlineSeconds: 5, containers: [{ ...pod.spec.containers[0], image: 'changed' }] }, status: { ...pod.status, phase: 'Running', podIP: '10.0.0.5' } },
    });
    assert.equal(viaStatus.status, 200, viaStatus.text);
    assert.equal(viaStatus.json.status.phase, 'Running');
    assert.equal(viaStatus.json.spec.containers[0].image, 'nginx', 'spec changes through status are ignored');
    assert.equal(viaStatus.json.spec.activeDeadlineSeconds, undefined);
    assert.equal(viaStatus.json.metadata.generation, 1);

    const viaMain = await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p`, {
      body: { ...viaStatus.json, spec: { ...viaStatus.json.spec, containers: [{ ...viaStatus.json.spec.containers[0], image: 'nginx:2' }] }, status: { phase: 'Failed' } },
    });
    assert.equal(viaMain.status, 200, viaMain.text);
    assert.equal(viaMain.json.status.phase, 'Running', 'status changes through the main resource are ignored');
    assert.equal(viaMain.json.spec.containers[0].image, 'nginx:2');
    assert.equal(viaMain.json.metadata.generation, 2);

    const get = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/status`);
    assert.equal(get.status, 200);
    assert.equal(get.json.kind, 'Pod');
    assert.equal(get.json.status.podIP, '10.0.0.5');
  });

  test('PATCH of status: merge, JSON Patch and strategic merge patches', async () => {
    const ns = await namespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    const mergeRes = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/status`, { raw: JSON.stringify({ status: { phase: 'Running' }, spec: { nodeName: 'ignored' } }), headers: merge });
    assert.equal(mergeRes.status, 200, mergeRes.text);
    assert.equal(mergeRes.json.status.phase, 'Running');
    assert.equal(mergeRes.json.spec.nodeName, undefined);

    const jsonRes = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/status`, {
      raw: JSON.stringify([{ op: 'add', path: '/status/conditions', value: [{ type: 'Ready', status: 'True' }] }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(jsonRes.status, 200, jsonRes.text);
    // The condition's times are Go values: null when not given, as upstream answers.
    assert.deepEqual(jsonRes.json.status.conditions, [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }]);

    const strategic = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/status`, {
      raw: JSON.stringify({ status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(strategic.status, 200, strategic.text);
    assert.deepEqual(strategic.json.status.conditions.map((c: any) => c.type).sort(), ['PodScheduled', 'Ready'], 'conditions merge by type');

    const stale = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/status`, { raw: JSON.stringify({ metadata: { resourceVersion: '1' }, status: { phase: 'Failed' } }), headers: merge });
    assert.equal(stale.status, 409);
  });

  test('a missing pod is 404; an unknown subresource is 404; a verb a subresource does not take is 405', async () => {
    const ns = await namespace();
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/none/status`)).status, 404);
    assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/pods/none/status`, { body: { metadata: { name: 'none' } } })).status, 404);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/x/status`)).status, 404);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/x/logs`)).status, 404);
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/x/status`)).status, 405);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/x/eviction`)).status, 405);
  });

  test('the body must name the object on the URL', async () => {
    const ns = await namespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    const res = await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p/status`, { body: { metadata: { name: 'q' }, status: {} } });
    assert.equal(res.status, 400);
    assert.equal(res.json.message, 'the name of the object (q) does not match the name on the URL (p)');
  });
});

describe('deployments/status', () => {
  test('status writes keep spec and labels; spec writes bump the generation and keep status', async () => {
    const ns = await namespace();
    const d = (await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web') })).json;
    assert.equal(d.metadata.generation, 1);
    const status = await server.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/web/status`, {
      body: { ...d, metadata: { ...d.metadata, labels: { changed: 'yes' } }, spec: { ...d.spec, replicas: 7 }, status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 } },
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.spec.replicas, 1);
    assert.equal(status.json.metadata.labels, undefined);
    assert.equal(status.json.status.readyReplicas, 1);
    assert.equal(status.json.metadata.generation, 1);

    const invalid = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/status`, { raw: '{"status":{"readyReplicas":5}}', headers: merge });
    assert.equal(invalid.status, 422);
    assert.match(invalid.json.message, /status.readyReplicas: Invalid value: 5: cannot be greater than status.replicas/);

    const spec = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web`, { raw: '{"spec":{"replicas":2},"status":{"replicas":9}}', headers: merge });
    assert.equal(spec.status, 200);
    assert.equal(spec.json.metadata.generation, 2);
    assert.equal(spec.json.status.replicas, 1);
  });
});

describe('services/status', () => {
  test('the load balancer status is written through status only', async () => {
    const ns = await namespace();
    const svc = (await server.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } } })).json;
    const viaMain = await server.request('PATCH', `/api/v1/namespaces/${ns}/services/lb`, { raw: '{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}', headers: merge });
    assert.equal(viaMain.status, 200);
    assert.deepEqual(viaMain.json.status, svc.status);
    const viaStatus = await server.request('PATCH', `/api/v1/namespaces/${ns}/services/lb/status`, { raw: '{"spec":{"ports":[{"port":81}]},"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}', headers: merge });
    assert.equal(viaStatus.status, 200, viaStatus.text);
    assert.equal(viaStatus.json.status.loadBalancer.ingress[0].ip, '1.2.3.4');
    assert.equal(viaStatus.json.status.loadBalancer.ingress[0].ipMode, 'VIP');
    assert.equal(viaStatus.json.spec.ports[0].port, 80);
    const bad = await server.request('PATCH', `/api/v1/namespaces/${ns}/services/lb/status`, { raw: '{"status":{"loadBalancer":{"ingress":[{"ip":"nope"}]}}}', headers: merge });
    assert.equal(bad.status, 422);
  });
});

describe('namespaces/status and namespaces/finalize', () => {
  test('status changes the phase rules; finalize changes spec.finalizers only', async () => {
    const ns = await namespace();
    const wrongPhase = await server.request('PATCH', `/api/v1/namespaces/${ns}/status`, { raw: '{"status":{"phase":"Terminating"}}', headers: merge });
    assert.equal(wrongPhase.status, 422);
    assert.match(wrongPhase.json.message, /status.Phase: Invalid value: "Terminating": may only be 'Active' if `deletionTimestamp` is empty/);

    const current = (await server.request('GET', `/api/v1/namespaces/${ns}`)).json;
    const finalize = await server.request('PUT', `/api/v1/namespaces/${ns}/finalize`, {
      body: { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, extra: 'x' } }, spec: { finalizers: ['example.com/hold'] }, status: { phase: 'Terminating' } },
    });
    assert.equal(finalize.status, 200, finalize.text);
    assert.deepEqual(finalize.json.spec.finalizers, ['example.com/hold']);
    assert.equal(finalize.json.status.phase, 'Active');

    const viaMain = await server.request('PATCH', `/api/v1/namespaces/${ns}`, { raw: '{"spec":{"finalizers":[]}}', headers: merge });
    assert.deepEqual(viaMain.json.spec.finalizers, ['example.com/hold'], 'spec.finalizers change through finalize only');
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/finalize`)).status, 405);
    assert.equal((await server.request('PATCH', `/api/v1/namespaces/${ns}/finalize`, { raw: '{}', headers: merge })).status, 405);
    await server.request('PUT', `/api/v1/namespaces/${ns}/finalize`, { body: { ...finalize.json, spec: { finalizers: [] } } });
  });
});

describe('deployments/scale', () => {
  test('GET answers an autoscaling/v1 Scale', async () => {
    const ns = await namespace();
    const d = (await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', 2) })).json;
    const res = await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      kind: 'Scale', apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: ns, uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion, creationTimestamp: d.metadata.creationTimestamp },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
    assert.equal((await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/none/scale`)).status, 404);
  });

  test('PUT and PATCH set spec.replicas through the deployment\'s update rules', async () => {
    const ns = await namespace();
    const d = (await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web') })).json;
    const put = await server.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, {
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', resourceVersion: d.metadata.resourceVersion }, spec: { replicas: 4 } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.kind, 'Scale');
    assert.equal(put.json.spec.replicas, 4);
    const after = (await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`)).json;
    assert.equal(after.spec.replicas, 4);
    assert.equal(after.metadata.generation, 2);
    assert.equal(after.metadata.resourceVersion, put.json.metadata.resourceVersion);

    const stale = await server.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { body: { metadata: { name: 'web', resourceVersion: d.metadata.resourceVersion }, spec: { replicas: 5 } } });
    assert.equal(stale.status, 409);
    assert.match(stale.json.message, /Operation cannot be fulfilled on deployments.apps "web": the object has been modified/);

    const patched = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { raw: '{"spec":{"replicas":0}}', headers: merge });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.spec, {}, 'autoscaling/v1 omits zero replicas');

    const negative = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { raw: '{"spec":{"replicas":-1}}', headers: merge });
    assert.equal(negative.status, 422);
    assert.equal(negative.json.message, 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');

    const dry = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale?dryRun=All`, { raw: '{"spec":{"replicas":9}}', headers: merge });
    assert.equal(dry.json.spec.replicas, 9);
    assert.equal((await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`)).json.spec.replicas, undefined);

    const wrongKind = await server.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { body: deployment('web', 3) });
    assert.equal(wrongKind.status, 400);
  });

  test('a Scale is decoded as a Scale: an int32 out of range names ScaleSpec (400 for a PUT, the patch\'s 422), and nothing changes', async () => {
    const ns = await namespace();
    await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', 2) });
    const scale = `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`;
    const message = 'json: cannot unmarshal number 3000000000 into Go struct field ScaleSpec.spec.replicas of type int32';
    const put = await server.request('PUT', scale, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 3000000000 } } });
    assert.equal(put.status, 400, put.text);
    assert.equal(put.json.message, `Scale in version "v1" cannot be handled as a Scale: ${message}`);
    const patched = await server.request('PATCH', scale, { raw: '{"spec":{"replicas":3000000000}}', headers: merge });
    assert.equal(patched.status, 422, patched.text);
    assert.ok(patched.json.message.startsWith(' "" is invalid: patch: Invalid value: ') && patched.json.message.endsWith(message), patched.json.message);
    assert.equal((await server.request('GET', scale)).json.spec.replicas, 2);
  });

  test('replicas of the wrong kind fail decoding as a Scale: 400 in Go\'s words for a PUT, the patch\'s 422, and nothing changes', async () => {
    const ns = await namespace();
    await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', 2) });
    const scale = `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`;
    const message = 'json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32';
    const put = await server.request('PUT', scale, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: '3' } } });
    assert.equal(put.status, 400, put.text);
    assert.equal(put.json.message, `Scale in version "v1" cannot be handled as a Scale: ${message}`);
    const patched = await server.request('PATCH', scale, { raw: '{"spec":{"replicas":"3"}}', headers: merge });
    assert.equal(patched.status, 422, patched.text);
    assert.ok(patched.json.message.startsWith(' "" is invalid: patch: Invalid value: ') && patched.json.message.endsWith(message), patched.json.message);
    assert.equal((await server.request('GET', scale)).json.spec.replicas, 2);
  });

  test('fieldValidation holds for a Scale: Strict refuses an unknown field (400 for a PUT, the patch\'s 422), Warn warns, Ignore is silent', async () => {
    const ns = await namespace();
    await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', 2) });
    const scale = `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`;
    const body = (replicas: number) => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas, bogus: 1 } });
    const strictPut = await server.request('PUT', `${scale}?fieldValidation=Strict`, { body: body(3) });
    assert.equal(strictPut.status, 400, strictPut.text);
    assert.equal(strictPut.json.message, 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.bogus"');
    const duplicate = await server.request('PUT', `${scale}?fieldValidation=Strict`, { raw: '{"metadata":{"name":"web"},"spec":{"replicas":3,"replicas":4}}', headers: { 'content-type': 'application/json' } });
    assert.equal(duplicate.status, 400, duplicate.text);
    assert.equal(duplicate.json.message, 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: duplicate field "spec.replicas"');
    const strictPatch = await server.request('PATCH', `${scale}?fieldValidation=Strict`, { raw: '{"spec":{"replicas":3,"bogus":1}}', headers: merge });
    assert.equal(strictPatch.status, 422, strictPatch.text);
    assert.ok(strictPatch.json.message.endsWith('strict decoding error: unknown field "spec.bogus"'), strictPatch.json.message);
    assert.equal((await server.request('GET', scale)).json.spec.replicas, 2, 'nothing refused was written');

    const warnPut = await server.request('PUT', `${scale}?fieldValidation=Warn`, { body: body(3) });
    assert.equal(warnPut.status, 200, warnPut.text);
    assert.equal(warnPut.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
    const warnPatch = await server.request('PATCH', `${scale}?fieldValidation=Warn`, { raw: '{"spec":{"replicas":4,"bogus":1}}', headers: merge });
    assert.equal(warnPatch.status, 200, warnPatch.text);
    assert.equal(warnPatch.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
    const ignored = await server.request('PUT', `${scale}?fieldValidation=Ignore`, { body: body(5) });
    assert.equal(ignored.status, 200, ignored.text);
    assert.equal(ignored.headers.warning, undefined);
    assert.equal(ignored.json.spec.replicas, 5);
  });

  test('a PUT without Content-Type is read as JSON, as client-go\'s scale client sends it', async () => {
    const ns = await namespace();
    await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web') });
    const res = await server.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { raw: JSON.stringify({ metadata: { name: 'web' }, spec: { replicas: 2 } }) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.spec.replicas, 2);
  });
});

describe('managed fields through deployments/scale', () => {
  const applying = { 'content-type': 'application/apply-patch+yaml' };
  const scaleBody = (replicas: number) => JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas } });
  const entries = (obj: any) => obj.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.subresource ?? '', e.fieldsV1]);
  const others = { 'f:spec': { 'f:selector': {}, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } };
  const replicas = { 'f:spec': { 'f:replicas': {} } };

  async function applied(ns: string): Promise<string> {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
    const res = await server.request('PATCH', `${path}?fieldManager=alice`, { raw: JSON.stringify(deployment('web', 2)), headers: applying });
    assert.equal(res.status, 201, res.text);
    return `${path}/scale`;
  }

  test('an apply to /scale conflicts with the applier of the replicas; forced, it takes them as a scale entry of the object\'s version', async () => {
    const scale = await applied(await namespace());
    const clash = await server.request('PATCH', `${scale}?fieldManager=bob`, { raw: scaleBody(5), headers: applying });
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }]);
    const forced = await server.request('PATCH', `${scale}?fieldManager=bob&force=true`, { raw: scaleBody(5), headers: applying });
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual([forced.json.kind, forced.json.spec.replicas, forced.json.metadata.managedFields], ['Scale', 5, undefined], 'a Scale answers no managed fields, as upstream\'s');
    const obj = (await server.request('GET', scale.replace(/\/scale$/, ''))).json;
    assert.equal(obj.spec.replicas, 5);
    // Upstream's scale handler gives a new manager of the Scale no time: it sorts first.
    assert.deepEqual(entries(obj), [
      ['bob', 'Apply', 'apps/v1', 'scale', replicas],
      ['alice', 'Apply', 'apps/v1', '', others],
    ]);
    // Applying the same replicas again through /scale changes nothing.
    const again = await server.request('PATCH', `${scale}?fieldManager=bob`, { raw: scaleBody(5), headers: applying });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.metadata.resourceVersion, forced.json.metadata.resourceVersion);
  });

  test('an update through /scale takes the replicas from their applier, who then conflicts with it', async () => {
    const scale = await applied(await namespace());
    const put = await server.request('PUT', `${scale}?fieldManager=hpa`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 7 } } });
    assert.equal(put.status, 200, put.text);
    const obj = (await server.request('GET', scale.replace(/\/scale$/, ''))).json;
    // Upstream's scale handler gives a new manager of the Scale no time.
    assert.deepEqual(obj.metadata.managedFields.map((e: any) => [e.manager, e.time === undefined]), [['alice', false], ['hpa', true]]);
    assert.deepEqual(entries(obj)[1], ['hpa', 'Update', 'apps/v1', 'scale', replicas]);
    const clash = await server.request('PATCH', `${scale.replace(/\/scale$/, '')}?fieldManager=alice`, { raw: JSON.stringify(deployment('web', 2)), headers: applying });
    assert.equal(clash.status, 409, clash.text);
    assert.match(clash.json.message, /conflict with "hpa" with subresource "scale" using apps\/v1: \.spec\.replicas/);
  });

  test('apply to /scale: a configuration of another kind or name is 400, fieldManager is required, a missing object 404', async () => {
    const scale = await applied(await namespace());
    const wrongKind = await server.request('PATCH', `${scale}?fieldManager=bob`, { raw: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }), headers: applying });
    assert.equal(wrongKind.status, 400, wrongKind.text);
    assert.equal(wrongKind.json.message, 'invalid object type: apps/v1, Kind=Deployment');
    const wrongName = await server.request('PATCH', `${scale}?fieldManager=bob`, { raw: JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'other' } }), headers: applying });
    assert.equal(wrongName.status, 400, wrongName.text);
    assert.equal((await server.request('PATCH', scale, { raw: scaleBody(3), headers: applying })).status, 422);
    const missing = await server.request('PATCH', `${scale.replace('/web/', '/none/')}?fieldManager=bob`, { raw: JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'none' }, spec: { replicas: 1 } }), headers: applying });
    assert.equal(missing.status, 404, missing.text);
    const negative = await server.request('PATCH', `${scale}?fieldManager=bob&force=true`, { raw: scaleBody(-1), headers: applying });
    assert.equal(negative.status, 422, negative.text);
  });
});

describe('Tables of subresources', () => {
  const asTable = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
  test('status answers the type\'s row; scale answers Name, Desired, Available (kubectl get --subresource)', async () => {
    const ns = await namespace();
    await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', 3) });
    const scale = await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { headers: asTable });
    assert.equal(scale.json.kind, 'Table');
    assert.deepEqual(scale.json.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Desired', 'integer'], ['Available', 'integer']]);
    assert.deepEqual(scale.json.rows[0].cells, ['web', 3, 0]);
    const status = await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web/status`, { headers: asTable });
    assert.equal(status.json.kind, 'Table');
    assert.equal(status.json.rows[0].cells[0], 'web');
  });
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
describe('kubectl scale', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  const run = promisify(execFile);
  let proc: ServerProcess;
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
  before(async () => {
    proc = await startServerProcess(['--storage', 'memory']);
  });
  after(async () => {
    await proc?.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const kubectl = async (...args: string[]) => {
    try {
      return (await run(kubectl133, ['--kubeconfig', proc.kubeconfigPath, '--cache-dir', cacheDir, ...args], { timeout: 30_000 })).stdout;
    } catch (err) {
      throw new Error(`kubectl ${args.join(' ')} failed: ${(err as { stderr?: string }).stderr ?? String(err)}`);
    }
  };

  test('scale, with and without preconditions', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=1');
    assert.match(await kubectl('scale', 'deployment', 'web', '--replicas=3'), /deployment.apps\/web scaled/);
    assert.equal(await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'), '3');
    // --current-replicas reads the Scale, then PUTs it.
    await kubectl('scale', 'deployment', 'web', '--replicas=5', '--current-replicas=3');
    assert.equal(await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'), '5');
    await assert.rejects(kubectl('scale', 'deployment', 'web', '--replicas=6', '--current-replicas=1'), /Expected replicas to be 1, was 5/);
    assert.match(await kubectl('get', 'deployment', 'web', '--subresource=scale'), /^NAME\s+DESIRED\s+AVAILABLE\nweb\s+5\s+0\n$/);
  });
});
