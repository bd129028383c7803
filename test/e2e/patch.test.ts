// PATCH by Content-Type: JSON Patch, merge patch, strategic merge patch; kubectl's client-side apply.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const patch = (p: string, contentType: string, body: unknown) =>
  server.request('PATCH', p, { raw: JSON.stringify(body), headers: { 'content-type': contentType } });

const deployment = (name: string) => ({
  metadata: { name, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'busybox' }] } },
  },
});

test('JSON Patch applies its operations; a failing test op is 422 and nothing changes', async () => {
  const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'jp' }, data: { a: '1' } } });
  assert.equal(created.status, 201);
  const ok = await patch('/api/v1/namespaces/default/configmaps/jp', 'application/json-patch+json', [
    { op: 'test', path: '/data/a', value: '1' },
    { op: 'add', path: '/data/b', value: '2' },
    { op: 'remove', path: '/data/a' },
  ]);
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.json.data, { b: '2' });
  const failed = await patch('/api/v1/namespaces/default/configmaps/jp', 'application/json-patch+json', [
    { op: 'test', path: '/data/b', value: 'nope' },
    { op: 'add', path: '/data/c', value: '3' },
  ]);
  assert.equal(failed.status, 422, failed.text);
  const bad = await patch('/api/v1/namespaces/default/configmaps/jp', 'application/json-patch+json', { op: 'add' });
  assert.equal(bad.status, 400, bad.text);
  assert.deepEqual((await server.request('GET', '/api/v1/namespaces/default/configmaps/jp')).json.data, { b: '2' });
});

test('strategic merge patch merges containers by name and honours $patch: delete', async () => {
  assert.equal((await server.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('smp') })).status, 201);
  const res = await patch('/apis/apps/v1/namespaces/default/deployments/smp', 'application/strategic-merge-patch+json', {
    spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }, { name: 'side', $patch: 'delete' }] } } },
  });
  assert.equal(res.status, 200, res.text);
  const containers = res.json.spec.template.spec.containers;
  assert.deepEqual(containers.map((c: any) => `${c.name}=${c.image}`), ['web=nginx:2']);
  assert.equal(containers[0].ports[0].containerPort, 80, 'fields not in the patch are kept');
  assert.equal(res.json.metadata.generation, 2);
});

test('metadata keeps no empty labels, annotations, finalizers or owner references: Go\'s omitempty drops them', async () => {
  const ns = await server.newNamespace('empty-meta');
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  // Created with them empty: absent.
  const created = await server.request('POST', base, { body: { metadata: { name: 'e', labels: {}, annotations: {}, finalizers: [], ownerReferences: [] } } });
  assert.equal(created.status, 201);
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences']) assert.equal(field in created.json.metadata, false, `${field} on create`);
  // The last label and annotation removed by a merge patch, the last finalizer by a JSON Patch: absent, not empty.
  assert.equal((await patch(`${base}/e`, 'application/merge-patch+json', { metadata: { labels: { a: 'b' }, annotations: { c: 'd' }, finalizers: ['x.io/y'] } })).status, 200);
  const cleared = await patch(`${base}/e`, 'application/merge-patch+json', { metadata: { labels: { a: null }, annotations: { c: null } } });
  assert.equal(cleared.status, 200);
  assert.equal('labels' in cleared.json.metadata, false);
  assert.equal('annotations' in cleared.json.metadata, false);
  const released = await patch(`${base}/e`, 'application/json-patch+json', [{ op: 'remove', path: '/metadata/finalizers/0' }]);
  assert.equal(released.status, 200);
  assert.equal('finalizers' in released.json.metadata, false);
  assert.deepEqual((await server.request('GET', `${base}/e`)).json, released.json);
});

test('zero values and empty lists and maps of omitempty fields are not stored, as Go\'s encoding leaves them out; pointers keep theirs', async () => {
  const ns = await server.newNamespace('omit-zero');
  const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const body = deployment('z') as any;
  Object.assign(body.spec, { replicas: 0, minReadySeconds: 0, paused: false });
  body.spec.template.spec.containers[0].ports[0].hostPort = 0;
  body.spec.template.spec.containers[0].terminationMessagePath = '';
  body.spec.template.spec.containers[0].volumeMounts = [{ name: 'v', mountPath: '/v', readOnly: false, subPath: '' }];
  body.spec.template.spec.volumes = [{ name: 'v', emptyDir: {} }];
  Object.assign(body.spec.template.spec, { nodeSelector: {}, tolerations: [] });
  body.spec.template.spec.containers[0].env = [];
  const created = await server.request('POST', base, { body });
  assert.equal(created.status, 201, created.text);
  const spec = created.json.spec;
  assert.equal(spec.replicas, 0, 'a pointer keeps its zero');
  assert.equal('minReadySeconds' in spec, false);
  assert.equal('paused' in spec, false);
  assert.equal('hostPort' in spec.template.spec.containers[0].ports[0], false);
  assert.equal(spec.template.spec.containers[0].ports[0].containerPort, 80, 'no omitempty: kept');
  assert.deepEqual(spec.template.spec.containers[0].volumeMounts, [{ name: 'v', mountPath: '/v' }]);
  // Empty omitempty maps and lists neither; a struct stays even empty (emptyDir: {}).
  assert.equal('nodeSelector' in spec.template.spec, false);
  assert.equal('tolerations' in spec.template.spec, false);
  assert.equal('env' in spec.template.spec.containers[0], false);
  assert.deepEqual(spec.template.spec.volumes, [{ name: 'v', emptyDir: {} }]);
  // An empty omitempty string the type defaults gets its default, as Go's defaulting of a zero value.
  assert.equal(spec.template.spec.containers[0].terminationMessagePath, '/dev/termination-log');
  // A status written with zero counters keeps only what Go writes.
  const status = await server.request('PUT', `${base}/z/status`, { body: { ...created.json, status: { replicas: 0, observedGeneration: 1 } } });
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.status, { observedGeneration: 1 });
  assert.deepEqual((await server.request('GET', `${base}/z`)).json, status.json);
});

test('what Go writes though the client left it out is stored and answered, dry runs too; writing it back changes nothing', async () => {
  const ns = await server.newNamespace('go-zero');
  const cronJobs = `/apis/batch/v1/namespaces/${ns}/cronjobs`;
  const cronJob = { metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } } };
  const dryRun = await server.request('POST', `${cronJobs}?dryRun=All`, { body: cronJob });
  assert.equal(dryRun.status, 201, dryRun.text);
  assert.deepEqual(dryRun.json.spec.jobTemplate.metadata, {}, 'a value struct, written even empty');
  const created = await server.request('POST', cronJobs, { body: cronJob });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec.jobTemplate.metadata, {});
  assert.deepEqual(created.json.spec.jobTemplate.spec.template.metadata, {});
  assert.deepEqual((await server.request('GET', `${cronJobs}/c`)).json, created.json);

  // A scalar without omitempty, a value Time (null) and a value struct of an Event.
  const events = `/api/v1/namespaces/${ns}/events`;
  const event = await server.request('POST', events, { body: { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', type: 'Normal' } });
  assert.equal(event.status, 201, event.text);
  for (const [field, value] of [['reportingComponent', ''], ['reportingInstance', ''], ['firstTimestamp', null], ['lastTimestamp', null], ['eventTime', null], ['source', {}]] as const) {
    assert.deepEqual(event.json[field], value, field);
  }
  // Written back as read (a null Time included), or with them left out again: no new revision.
  const same = await server.request('PUT', `${events}/e`, { body: event.json });
  assert.equal(same.status, 200, same.text);
  assert.equal(same.json.metadata.resourceVersion, event.json.metadata.resourceVersion);
  const { reportingComponent: _r, firstTimestamp: _f, source: _s, ...leftOut } = event.json;
  const again = await server.request('PUT', `${events}/e`, { body: leftOut });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.metadata.resourceVersion, event.json.metadata.resourceVersion);
  assert.deepEqual(again.json, event.json);

  // An update through a patch: the new condition gets its null times, the new status its struct.
  const nodeName = `go-zero-${ns}`;
  const node = await server.request('POST', '/api/v1/nodes', { body: { metadata: { name: nodeName } } });
  assert.equal(node.status, 201, node.text);
  assert.deepEqual(node.json.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.equal(node.json.status.nodeInfo.kubeletVersion, '');
  const patched = await patch(`/api/v1/nodes/${nodeName}/status`, 'application/merge-patch+json', { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(patched.json.status.conditions, [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: null, lastTransitionTime: null }]);
  await server.request('DELETE', `/api/v1/nodes/${nodeName}`);
});

test('the zero values Go gives what the writer left out are no one\'s; a required field left out is still refused', async () => {
  const ns = await server.newNamespace('go-zero-owned');
  const cronJob = { metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } } };
  const created = await server.request('POST', `/apis/batch/v1/namespaces/${ns}/cronjobs?fieldManager=creator`, { body: cronJob });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec.jobTemplate.metadata, {});
  // Upstream's create handler compares the object with a new Go object of its type, which
  // holds the same zero values: the empty value structs are not the creator's, nor is the
  // pod spec's containers list itself (a nil slice, null, in the new object), only its items.
  const [cronJobEntry] = created.json.metadata.managedFields;
  assert.deepEqual(Object.keys(cronJobEntry.fieldsV1['f:spec']['f:jobTemplate']), ['f:spec']);
  assert.deepEqual(Object.keys(cronJobEntry.fieldsV1['f:spec']['f:jobTemplate']['f:spec']['f:template']), ['f:spec']);
  assert.deepEqual(Object.keys(cronJobEntry.fieldsV1['f:spec']['f:jobTemplate']['f:spec']['f:template']['f:spec']['f:containers']), ['k:{"name":"c"}']);
  // An Event's scalars without omitempty and value Times, as upstream's field manager sees its Go object.
  const event = await server.request('POST', `/api/v1/namespaces/${ns}/events?fieldManager=creator`, {
    body: { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', type: 'Normal' },
  });
  assert.equal(event.status, 201, event.text);
  assert.equal(event.json.eventTime, null);
  assert.equal(event.json.reportingComponent, '');
  assert.deepEqual(Object.keys(event.json.metadata.managedFields[0].fieldsV1).sort(), ['f:involvedObject', 'f:reason', 'f:type']);
  // What the client left out is still refused where it is required, with the type's own words
  // (the schema's `required` alone would say only `Required value`, for the struct as well).
  for (const spec of [{ priorityLevelConfiguration: {} }, {}]) {
    const flowSchema = await server.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas?dryRun=All', { body: { metadata: { name: 'f' }, spec } });
    assert.equal(flowSchema.status, 422, flowSchema.text);
    assert.deepEqual(flowSchema.json.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: must reference a priority level', field: 'spec.priorityLevelConfiguration.name' }]);
  }
});

test('a stale resourceVersion in a strategic merge patch is 409', async () => {
  assert.equal((await server.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('stale') })).status, 201);
  const res = await patch('/apis/apps/v1/namespaces/default/deployments/stale', 'application/strategic-merge-patch+json', { metadata: { resourceVersion: '1' }, spec: { replicas: 3 } });
  assert.equal(res.status, 409, res.text);
});

test('force on a non-apply patch is 422', async () => {
  const res = await server.request('PATCH', '/api/v1/namespaces/default/configmaps/jp?force=true', { raw: '{}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(res.status, 422, res.text);
});

const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
test('kubectl apply of a Deployment edited three times gives the upstream result', { skip: existsSync(kubectl) ? false : `${kubectl} is not installed` }, async () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'apply-'));
  const file = path.join(dir, 'd.yaml');
  const manifest = (image: string, extra: string, ports: string, labels: string, strategy: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: edited
  namespace: default
  labels: {app: edited${labels}}
spec:
  selector: {matchLabels: {app: edited}}
${strategy}  template:
    metadata: {labels: {app: edited}}
    spec:
      containers:
      - name: web
        image: ${image}
${ports}${extra}`;
  const apply = async (text: string) => {
    writeFileSync(file, text);
    await run(kubectl, ['--kubeconfig', server.kubeconfigPath, 'apply', '-f', file]);
    return (await server.request('GET', '/apis/apps/v1/namespaces/default/deployments/edited')).json;
  };
  try {
    const ports = '        ports:\n        - containerPort: 80\n        - containerPort: 443\n';
    await apply(manifest('nginx:1', '', ports, ', tier: web', ''));
    const first = await apply(manifest('nginx:2', '', ports, ', tier: web', ''));
    assert.equal(first.spec.template.spec.containers[0].image, 'nginx:2');
    const sidecar = '        env:\n        - {name: MODE, value: fast}\n      - name: side\n        image: busybox\n';
    const second = await apply(manifest('nginx:2', sidecar, ports, ', tier: web', ''));
    assert.deepEqual(second.spec.template.spec.containers.map((c: any) => c.name), ['web', 'side']);
    assert.deepEqual(second.spec.template.spec.containers[0].env, [{ name: 'MODE', value: 'fast' }]);
    const third = await apply(manifest('nginx:2', sidecar, '        ports:\n        - containerPort: 80\n', '', '  strategy: {type: Recreate}\n'));
    assert.deepEqual(third.spec.template.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.equal(third.metadata.labels.tier, undefined);
    assert.deepEqual(third.spec.strategy, { type: 'Recreate' }, 'retainKeys drops rollingUpdate');
    assert.equal(third.spec.template.spec.containers[1].imagePullPolicy, 'Always');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
