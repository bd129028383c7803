// Types served in two versions from one stored object: autoscaling/v1 and v2
// HorizontalPodAutoscalers (stored as v2), core/v1 and events.k8s.io/v1 Events (stored as core/v1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const hpas = (version: string, ns: string, name = '') => `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers${name === '' ? '' : `/${name}`}`;
const hpaV1 = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, ...extra },
});

test('an HPA created through autoscaling/v1 reads through v2 with the CPU metric, and back unchanged', async () => {
  const ns = await server.newNamespace('mv-hpa');
  const created = await server.request('POST', hpas('v1', ns), { body: hpaV1('web', { targetCPUUtilizationPercentage: 60 }) });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.apiVersion, 'autoscaling/v1');
  assert.equal(created.json.spec.minReplicas, 1);
  assert.equal(created.json.spec.targetCPUUtilizationPercentage, 60);
  assert.deepEqual(created.json.status, { currentReplicas: 0, desiredReplicas: 0 });

  const v2 = await server.request('GET', hpas('v2', ns, 'web'));
  assert.equal(v2.status, 200, v2.text);
  assert.equal(v2.json.apiVersion, 'autoscaling/v2');
  assert.equal(v2.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
  assert.deepEqual(v2.json.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
  assert.equal(v2.json.spec.minReplicas, 1);

  const v1 = await server.request('GET', hpas('v1', ns, 'web'));
  assert.deepEqual(v1.json, created.json);
});

test('a v2 HPA with metrics v1 cannot hold keeps them through a v1 read-modify-write', async () => {
  const ns = await server.newNamespace('mv-hpa');
  const created = await server.request('POST', hpas('v2', ns), {
    body: {
      metadata: { name: 'mem' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 4,
        metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec.behavior.scaleUp.policies, [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]);
  assert.equal(created.json.spec.behavior.scaleDown.stabilizationWindowSeconds, 60);

  const v1 = (await server.request('GET', hpas('v1', ns, 'mem'))).json;
  assert.equal(v1.spec.targetCPUUtilizationPercentage, undefined);
  const annotations = v1.metadata.annotations;
  assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics']), [{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '100Mi' } }]);
  assert.equal(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/behavior']).ScaleDown.StabilizationWindowSeconds, 60);

  v1.spec.maxReplicas = 8;
  const updated = await server.request('PUT', hpas('v1', ns, 'mem'), { body: v1 });
  assert.equal(updated.status, 200, updated.text);
  const v2 = (await server.request('GET', hpas('v2', ns, 'mem'))).json;
  assert.equal(v2.spec.maxReplicas, 8);
  assert.deepEqual(v2.spec.metrics, created.json.spec.metrics);
  assert.deepEqual(v2.spec.behavior, created.json.spec.behavior);
  assert.equal(v2.metadata.annotations, undefined);
  assert.equal(v2.metadata.generation, 2);
});

test('HPA validation answers 422 in either version with the v2 field paths', async () => {
  const ns = await server.newNamespace('mv-hpa');
  const cases: [string, unknown, string[]][] = [
    ['v1', hpaV1('low', { minReplicas: 0 }), ['spec.minReplicas', 'spec.metrics']],
    ['v1', hpaV1('inverted', { minReplicas: 6 }), ['spec.maxReplicas']],
    ['v1', { metadata: { name: 'noref' }, spec: { scaleTargetRef: { kind: '', name: '' }, maxReplicas: 1 } }, ['spec.scaleTargetRef.kind', 'spec.scaleTargetRef.name', 'spec.scaleTargetRef.apiVersion']],
    ['v2', { metadata: { name: 'badmetric' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 1, metrics: [{ type: 'Pods' }] } }, ['spec.metrics[0].pods']],
  ];
  for (const [version, body, fields] of cases) {
    const res = await server.request('POST', hpas(version, ns), { body });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: any) => c.field), fields, res.text);
  }
});

test('a watch through v2 sees a write through v1, with the shared resourceVersion', async () => {
  const ns = await server.newNamespace('mv-watch');
  const list = await server.request('GET', hpas('v2', ns));
  const stream = await openStream(server, `${hpas('v2', ns)}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`);
  try {
    const created = await server.request('POST', hpas('v1', ns), { body: hpaV1('watched') });
    assert.equal(created.status, 201, created.text);
    const event = await stream.next();
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.apiVersion, 'autoscaling/v2');
    assert.equal(event.object.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.equal(event.object.spec.metrics[0].resource.target.averageUtilization, 80);
  } finally {
    stream.close();
  }
});

test('discovery names autoscaling/v2 and core/v1 as the storage versions of both served versions', async () => {
  const hash = async (path: string, resource: string) => (await server.request('GET', path)).json.resources.find((r: any) => r.name === resource).storageVersionHash;
  assert.equal(await hash('/apis/autoscaling/v1', 'horizontalpodautoscalers'), await hash('/apis/autoscaling/v2', 'horizontalpodautoscalers'));
  assert.equal(await hash('/apis/events.k8s.io/v1', 'events'), await hash('/api/v1', 'events'));
});

const coreEvents = (ns: string, name = '') => `/api/v1/namespaces/${ns}/events${name === '' ? '' : `/${name}`}`;
const newEvents = (ns: string, name = '') => `/apis/events.k8s.io/v1/namespaces/${ns}/events${name === '' ? '' : `/${name}`}`;

test('an Event created through core/v1 lists through events.k8s.io/v1, converted', async () => {
  const ns = await server.newNamespace('mv-ev');
  const created = await server.request('POST', coreEvents(ns), {
    body: {
      metadata: { name: 'old' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', message: 'started it',
      source: { component: 'kubelet', host: 'n1' }, firstTimestamp: '2024-01-01T00:00:00Z', lastTimestamp: '2024-01-01T00:00:05Z', count: 2, type: 'Normal',
    },
  });
  assert.equal(created.status, 201, created.text);
  const list = await server.request('GET', newEvents(ns));
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.kind, 'EventList');
  assert.equal(list.json.apiVersion, 'events.k8s.io/v1');
  const [event] = list.json.items;
  assert.equal(event.apiVersion, 'events.k8s.io/v1');
  assert.equal(event.note, 'started it');
  assert.deepEqual(event.regarding, { kind: 'Pod', name: 'p', namespace: ns });
  assert.deepEqual(event.deprecatedSource, { component: 'kubelet', host: 'n1' });
  assert.equal(event.deprecatedFirstTimestamp, '2024-01-01T00:00:00Z');
  assert.equal(event.deprecatedLastTimestamp, '2024-01-01T00:00:05Z');
  assert.equal(event.deprecatedCount, 2);
  assert.equal(event.metadata.resourceVersion, created.json.metadata.resourceVersion);
  assert.equal(event.message, undefined);
});

test('an Event created through events.k8s.io/v1 reads through core/v1; the new API validates strictly', async () => {
  const ns = await server.newNamespace('mv-ev');
  const body = {
    metadata: { name: 'new' }, eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'example.com/ctl', reportingInstance: 'ctl-1',
    action: 'Scale', reason: 'Scaled', regarding: { kind: 'Deployment', name: 'web', namespace: ns }, note: 'scaled up', type: 'Normal',
  };
  const created = await server.request('POST', newEvents(ns), { body });
  assert.equal(created.status, 201, created.text);
  const core = (await server.request('GET', coreEvents(ns, 'new'))).json;
  assert.equal(core.apiVersion, 'v1');
  assert.equal(core.message, 'scaled up');
  assert.equal(core.reportingComponent, 'example.com/ctl');
  assert.deepEqual(core.involvedObject, body.regarding);

  const cases: [string, Record<string, unknown>, string[]][] = [
    ['no reporting fields', { reportingController: undefined, reportingInstance: undefined, action: undefined }, ['reportingController', 'reportingController', 'reportingController', 'reportingInstance', 'action']],
    ['a deprecated field set', { deprecatedCount: 3 }, ['count']],
    ['an unknown type', { type: 'Odd' }, ['type']],
  ];
  for (const [name, change, fields] of cases) {
    const res = await server.request('POST', newEvents(ns), { body: { ...body, metadata: { generateName: 'bad-' }, ...change } });
    assert.equal(res.status, 422, `${name}: ${res.text}`);
    assert.deepEqual(res.json.details.causes.map((c: any) => c.field), fields, `${name}: ${res.text}`);
  }
  // core/v1 keeps upstream's legacy rules only: the same deprecated count is fine there.
  const legacy = await server.request('POST', coreEvents(ns), { body: { ...eventToCoreBody(body, ns), metadata: { name: 'legacy' }, count: 3 } });
  assert.equal(legacy.status, 201, legacy.text);
});

function eventToCoreBody(body: Record<string, unknown>, _ns: string) {
  return {
    eventTime: body.eventTime, reportingComponent: body.reportingController, reportingInstance: body.reportingInstance, action: body.action,
    reason: body.reason, involvedObject: body.regarding, message: body.note, type: body.type,
  };
}

const kubectlBin = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const skipKubectl = existsSync(kubectlBin) ? false : `${kubectlBin} is not installed`;
const run = promisify(execFile);
const kubectl = async (...args: string[]) => (await run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, ...args])).stdout;

test('kubectl apply --server-side works in each version on one object', { skip: skipKubectl }, async () => {
  const ns = await server.newNamespace('mv-ssa');
  const manifest = (version: string, body: string) => `apiVersion: autoscaling/${version}
kind: HorizontalPodAutoscaler
metadata: {name: applied, namespace: ${ns}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
${body}`;
  const apply = (yaml: string, manager: string) => new Promise<string>((resolve, reject) => {
    const child = execFile(kubectlBin, ['--kubeconfig', server.kubeconfigPath, 'apply', '--server-side', `--field-manager=${manager}`, '-f', '-'], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    child.stdin!.end(yaml);
  });
  await apply(manifest('v1', '  maxReplicas: 3\n  targetCPUUtilizationPercentage: 70\n'), 'v1-applier');
  await apply(manifest('v2', '  maxReplicas: 3\n  minReplicas: 2\n'), 'v2-applier');
  const v2 = (await server.request('GET', hpas('v2', ns, 'applied'))).json;
  assert.equal(v2.spec.minReplicas, 2);
  assert.equal(v2.spec.metrics[0].resource.target.averageUtilization, 70);
  const managers = v2.metadata.managedFields.map((f: any) => `${f.manager} ${f.apiVersion}`).sort();
  assert.deepEqual(managers, ['v1-applier autoscaling/v1', 'v2-applier autoscaling/v2']);
});

test('kubectl get hpa shows REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS', { skip: skipKubectl }, async () => {
  const ns = await server.newNamespace('mv-table');
  assert.equal((await server.request('POST', hpas('v1', ns), { body: hpaV1('web') })).status, 201);
  const out = await kubectl('-n', ns, 'get', 'hpa');
  const [header, row] = out.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
  assert.deepEqual(header, ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
  assert.deepEqual(row!.slice(0, 6), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '1', '5', '0']);
});

test('kubectl get events.k8s.io events prints the core Event columns', { skip: skipKubectl }, async () => {
  const ns = await server.newNamespace('mv-table');
  const created = await server.request('POST', newEvents(ns), {
    body: {
      metadata: { name: 'e' }, eventTime: new Date().toISOString().replace('Z', '000Z'), reportingController: 'ctl', reportingInstance: 'ctl-1',
      action: 'Scale', reason: 'Scaled', regarding: { kind: 'Deployment', name: 'web', namespace: ns }, note: 'scaled up', type: 'Normal',
    },
  });
  assert.equal(created.status, 201, created.text);
  const out = await kubectl('-n', ns, 'get', 'events.v1.events.k8s.io');
  const [header, row] = out.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
  assert.deepEqual(header, ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
  assert.deepEqual(row!.slice(1), ['Normal', 'Scaled', 'deployment/web', 'scaled up']);
});
