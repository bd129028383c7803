// Built-in types over HTTP: defaulting, validation, immutability, Service allocation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ serviceClusterIPRange: '10.0.0.0/29', serviceNodePortRange: '30000-30002' });
});
after(async () => {
  await server.stop();
});

const post = (path: string, body: unknown) => server.request('POST', path, { body });

test('a Pod without containers answers 422 naming spec.containers', async () => {
  const res = await post('/api/v1/namespaces/default/pods', { metadata: { name: 'empty' }, spec: { containers: [] } });
  assert.equal(res.status, 422);
  assert.ok(res.json.details.causes.some((c: any) => c.field === 'spec.containers'), res.text);
});

test('a Pod is created Pending with defaults, its client-set status dropped', async () => {
  const res = await post('/api/v1/namespaces/default/pods', {
    metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] }, status: { phase: 'Running' },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.status.phase, 'Pending');
  assert.equal(res.json.spec.dnsPolicy, 'ClusterFirst');
  assert.equal(res.json.spec.terminationGracePeriodSeconds, 30);
  assert.equal(res.json.spec.containers[0].terminationMessagePath, '/dev/termination-log');
  assert.equal(res.json.spec.containers[0].imagePullPolicy, 'IfNotPresent');
});

for (const kind of ['ConfigMap', 'Secret'] as const) {
  test(`an immutable ${kind} refuses data changes with 422`, async () => {
    const plural = kind === 'ConfigMap' ? 'configmaps' : 'secrets';
    const data = kind === 'ConfigMap' ? { a: '1' } : { a: 'MQ==' };
    const created = await post(`/api/v1/namespaces/default/${plural}`, { metadata: { name: `frozen-${plural}` }, data, immutable: true });
    assert.equal(created.status, 201, created.text);
    const changed = { ...created.json, data: kind === 'ConfigMap' ? { a: '2' } : { a: 'Mg==' } };
    const res = await server.request('PUT', `/api/v1/namespaces/default/${plural}/frozen-${plural}`, { body: changed });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    const merge = await server.request('PATCH', `/api/v1/namespaces/default/${plural}/frozen-${plural}`, {
      raw: JSON.stringify({ immutable: false }), headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(merge.status, 422, merge.text);
  });
}

test('Services get distinct ClusterIPs from the range, released on delete; a taken one is refused', async () => {
  const svc = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { ports: [{ port: 80 }], ...extra } });
  const ips = new Set<string>();
  // 10.0.0.0/29: network, broadcast and the first address (the kubernetes service's) are not handed out.
  for (const name of ['s1', 's2', 's3', 's4', 's5']) {
    const res = await post('/api/v1/namespaces/default/services', svc(name));
    assert.equal(res.status, 201, res.text);
    assert.match(res.json.spec.clusterIP, /^10\.0\.0\.[2-6]$/);
    assert.deepEqual(res.json.spec.clusterIPs, [res.json.spec.clusterIP]);
    assert.equal(res.json.spec.ports[0].targetPort, 80);
    assert.equal(res.json.spec.ports[0].protocol, 'TCP');
    ips.add(res.json.spec.clusterIP);
  }
  assert.equal(ips.size, 5);
  // Upstream answers an exhausted range with a 500 "range is full".
  const full = await post('/api/v1/namespaces/default/services', svc('s6'));
  assert.equal(full.status, 500);
  assert.match(full.json.message, /failed to allocate a serviceIP: range is full/);
  const taken = [...ips][0]!;
  await server.request('DELETE', '/api/v1/namespaces/default/services/s1');
  const freed = (await server.request('GET', '/api/v1/namespaces/default/services')).json.items.map((s: any) => s.spec.clusterIP);
  const free = [...ips].find((ip) => !freed.includes(ip))!;
  const again = await post('/api/v1/namespaces/default/services', svc('s7', { clusterIP: free }));
  assert.equal(again.status, 201, again.text);
  assert.equal(again.json.spec.clusterIP, free);
  const clash = await post('/api/v1/namespaces/default/services', svc('s8', { clusterIP: taken === free ? [...ips][1] : taken }));
  assert.equal(clash.status, 422, clash.text);
  assert.match(clash.text, /already allocated/);
  const headless = await post('/api/v1/namespaces/default/services', svc('headless', { clusterIP: 'None' }));
  assert.equal(headless.status, 201, headless.text);
  assert.equal(headless.json.spec.clusterIP, 'None');
  for (const name of ['s2', 's3', 's4', 's5', 's7', 'headless']) await server.request('DELETE', `/api/v1/namespaces/default/services/${name}`);
});

test('NodePort services get distinct ports in range; a requested port that is taken is refused', async () => {
  const np = (name: string, nodePort?: number) => ({ metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] } });
  const a = await post('/api/v1/namespaces/default/services', np('np-a'));
  assert.equal(a.status, 201, a.text);
  const b = await post('/api/v1/namespaces/default/services', np('np-b', 30002));
  assert.equal(b.status, 201, b.text);
  assert.equal(b.json.spec.ports[0].nodePort, 30002);
  const portA = a.json.spec.ports[0].nodePort;
  assert.ok(portA >= 30000 && portA <= 30002 && portA !== 30002);
  const clash = await post('/api/v1/namespaces/default/services', np('np-c', portA));
  assert.equal(clash.status, 422, clash.text);
  assert.match(clash.text, /already allocated/);
  await server.request('DELETE', '/api/v1/namespaces/default/services/np-a');
  const reuse = await post('/api/v1/namespaces/default/services', np('np-d', portA));
  assert.equal(reuse.status, 201, reuse.text);
});

test('a Deployment whose selector does not match its template labels is 422', async () => {
  const res = await post('/apis/apps/v1/namespaces/default/deployments', {
    metadata: { name: 'bad' },
    spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
  });
  assert.equal(res.status, 422, res.text);
});

test('a Namespace gets its finalizer, phase and name label', async () => {
  const res = await post('/api/v1/namespaces', { metadata: { name: 'fresh' } });
  assert.equal(res.status, 201);
  assert.deepEqual(res.json.spec.finalizers, ['kubernetes']);
  assert.equal(res.json.status.phase, 'Active');
  assert.equal(res.json.metadata.labels['kubernetes.io/metadata.name'], 'fresh');
});

test('a Lease round-trips its MicroTime fields', async () => {
  const spec = { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2024-01-02T03:04:05.123456Z' };
  const res = await post('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { metadata: { name: 'node-1' }, spec });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.json.spec, spec);
});

test('PUT of an existing Lease without a resourceVersion is 422, as upstream', async () => {
  const created = await post('/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'l' }, spec: { holderIdentity: 'a' } });
  assert.equal(created.status, 201, created.text);
  const { resourceVersion: _rv, ...meta } = created.json.metadata;
  const res = await server.request('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l', { body: { ...created.json, metadata: meta } });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.details.causes[0].field, 'metadata.resourceVersion');
  const ok = await server.request('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l', { body: created.json });
  assert.equal(ok.status, 200, ok.text);
});

test('a dry-run Service create shows a ClusterIP but reserves and stores nothing', async () => {
  const body = { metadata: { name: 'dry' }, spec: { clusterIP: '10.0.0.6', ports: [{ port: 80 }] } };
  const dry = await server.request('POST', '/api/v1/namespaces/default/services?dryRun=All', { body });
  assert.equal(dry.status, 201, dry.text);
  assert.equal(dry.json.spec.clusterIP, '10.0.0.6');
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/services/dry')).status, 404);
  const real = await post('/api/v1/namespaces/default/services', body);
  assert.equal(real.status, 201, real.text);
  await server.request('DELETE', '/api/v1/namespaces/default/services/dry');
});

test('deleting a namespace: Terminating, its contents deleted, then it is gone; no new content meanwhile', async () => {
  assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
  for (let i = 0; i < 3; i++) assert.equal((await post('/api/v1/namespaces/doomed/configmaps', { metadata: { name: `c${i}` } })).status, 201);
  const deleted = await server.request('DELETE', '/api/v1/namespaces/doomed');
  assert.ok(deleted.status === 200 || deleted.status === 202, deleted.text);
  assert.equal(deleted.json.status.phase, 'Terminating');
  assert.ok(deleted.json.metadata.deletionTimestamp);
  await eventually(async () => assert.equal((await server.request('GET', '/api/v1/namespaces/doomed')).status, 404, 'the namespace is removed'));
  assert.equal((await server.request('GET', '/api/v1/namespaces/doomed/configmaps')).json.items.length, 0);
  // A namespace of the same name starts empty.
  assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
  assert.equal((await server.request('GET', '/api/v1/namespaces/doomed/configmaps')).json.items.length, 0);
});

test('creating in a terminating namespace is 403 Forbidden', async () => {
  assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'held' } })).status, 201);
  // A finalizer nobody removes keeps a configmap, and so the namespace, around.
  assert.equal((await post('/api/v1/namespaces/held/configmaps', { metadata: { name: 'kept', finalizers: ['example.com/hold'] } })).status, 201);
  await server.request('DELETE', '/api/v1/namespaces/held');
  const res = await post('/api/v1/namespaces/held/configmaps', { metadata: { name: 'new' } });
  assert.equal(res.status, 403, res.text);
  assert.equal(res.json.message, 'configmaps "new" is forbidden: unable to create new content in namespace held because it is being terminated');
  // The cause kube-controller-manager's controllers look for before they give up on the namespace.
  assert.deepEqual(res.json.details, { name: 'new', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace held is being terminated', field: 'metadata.namespace' }] });
  // Checked first, as upstream's Admit: a pod naming a ServiceAccount that does not exist gets the namespace's answer.
  const pod = await post('/api/v1/namespaces/held/pods', { metadata: { name: 'p' }, spec: { serviceAccountName: 'missing', containers: [{ name: 'c', image: 'busybox' }] } });
  assert.equal(pod.status, 403, pod.text);
  assert.match(pod.json.message, /^pods "p" is forbidden: unable to create new content in namespace held because it is being terminated$/);
  // Releasing the finalizer lets the controller finish.
  await server.request('PATCH', '/api/v1/namespaces/held/configmaps/kept', { raw: JSON.stringify({ metadata: { finalizers: null } }), headers: { 'content-type': 'application/merge-patch+json' } });
  await eventually(async () => assert.equal((await server.request('GET', '/api/v1/namespaces/held')).status, 404, 'the namespace is removed'));
});

test('Secret data that is not base64 is refused as the Go decoder refuses it, on every write', async () => {
  const ns = await server.newNamespace('b64');
  const base = `/api/v1/namespaces/${ns}/secrets`;
  const created = await post(base, { metadata: { name: 'plain' }, data: { k: 'not base64!' } });
  assert.equal(created.status, 400, created.text);
  assert.deepEqual(created.json, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3', reason: 'BadRequest', code: 400,
  });
  // Bad padding, as Go counts it.
  const padding = await post(base, { metadata: { name: 'padding' }, data: { k: 'YQ=' } });
  assert.equal(padding.json.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');

  // Line breaks are skipped and the value is kept in canonical form, as upstream stores bytes.
  const ok = await post(base, { metadata: { name: 'ok' }, data: { k: 'YW\nJj', t: 'YR==' } });
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual(ok.json.data, { k: 'YWJj', t: 'YQ==' });

  const put = await server.request('PUT', `${base}/ok`, { body: { ...ok.json, data: { k: 'a-b_' } } });
  assert.equal(put.status, 400, put.text);
  assert.equal(put.json.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 1');

  // A patch's result is decoded: 422 naming the patched object, as upstream's patcher.
  const merge = await server.request('PATCH', `${base}/ok`, { raw: JSON.stringify({ data: { k: 'no!' } }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(merge.status, 422, merge.text);
  assert.equal(merge.json.reason, 'Invalid');
  assert.equal(merge.json.details.causes[0].field, 'patch');
  assert.match(merge.json.details.causes[0].message, /: illegal base64 data at input byte 2$/);

  const apply = await server.request('PATCH', `${base}/applied?fieldManager=test`, {
    raw: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'applied' }, data: { k: 'YQ==YQ==' } }),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assert.equal(apply.status, 422, apply.text);
  assert.match(apply.json.details.causes[0].message, /: illegal base64 data at input byte 4$/);
  assert.equal((await server.request('GET', `${base}/ok`)).json.data.k, 'YWJj');
});

test('ConfigMap binaryData that is not base64 answers 400 as upstream', async () => {
  const res = await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'binary' }, binaryData: { b: 'AA==', c: '!!' } });
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0');
});

test('annotations over 256 KiB in all answer 422 in upstream\'s current wording', async () => {
  const res = await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'annotated', annotations: { a: 'x'.repeat(262144) } } });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.message, 'ConfigMap "annotated" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
  assert.deepEqual(res.json.details.causes, [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes', field: 'metadata.annotations' }]);
});
