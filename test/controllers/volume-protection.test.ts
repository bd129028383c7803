// Claims and volumes are protected while in use, as upstream's StorageObjectInUseProtection
// admission and protection controllers do: created with their finalizer, kept while a
// scheduled pod uses the claim or the volume is bound, gone once not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => void (server = await startServer({ enableGarbageCollector: false })));
after(() => server.stop());

const claim = (name: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: '1Gi' } } } });
const status = async (path: string) => (await server.request('GET', path)).status;

test('a claim is created with kubernetes.io/pvc-protection and a volume with kubernetes.io/pv-protection', async () => {
  const ns = await server.newNamespace('prot');
  const pvc = await server.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('c') });
  assert.deepEqual(pvc.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  const pv = await server.request('POST', '/api/v1/persistentvolumes', { body: { metadata: { name: 'prot-pv-a' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/a' } } } });
  assert.equal(pv.status, 201, pv.text);
  assert.deepEqual(pv.json.metadata.finalizers, ['kubernetes.io/pv-protection']);
  await server.request('DELETE', '/api/v1/persistentvolumes/prot-pv-a');
  await eventually(async () => assert.equal(await status('/api/v1/persistentvolumes/prot-pv-a'), 404));
});

test('a claim a scheduled pod uses stays while the pod does; an unused claim goes at once', async () => {
  const ns = await server.newNamespace('prot');
  const base = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  for (const name of ['used', 'free']) assert.equal((await server.request('POST', base, { body: claim(name) })).status, 201);
  const pod = await eventually(async () => {
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name: 'user' }, spec: { nodeName: 'some-node', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'used' } }] } },
    });
    assert.equal(res.status, 201, res.text);
    return res.json;
  });
  await server.request('DELETE', `${base}/free`);
  await eventually(async () => assert.equal(await status(`${base}/free`), 404));
  const deleting = await server.request('DELETE', `${base}/used`);
  assert.ok(deleting.json.metadata.deletionTimestamp, deleting.text);
  // Still there a while later: the pod uses it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(await status(`${base}/used`), 200);
  await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/user?gracePeriodSeconds=0`, { body: { preconditions: { uid: pod.metadata.uid } } });
  await eventually(async () => assert.equal(await status(`${base}/used`), 404));
});

test('a bound volume stays until it is released', async () => {
  const created = await server.request('POST', '/api/v1/persistentvolumes', { body: { metadata: { name: 'prot-pv-b' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/b' } } } });
  const bound = await server.request('PUT', '/api/v1/persistentvolumes/prot-pv-b/status', { body: { ...created.json, status: { phase: 'Bound' } } });
  assert.equal(bound.status, 200, bound.text);
  await server.request('DELETE', '/api/v1/persistentvolumes/prot-pv-b');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const kept = await server.request('GET', '/api/v1/persistentvolumes/prot-pv-b');
  assert.equal(kept.status, 200);
  const released = await server.request('PUT', '/api/v1/persistentvolumes/prot-pv-b/status', { body: { ...kept.json, status: { phase: 'Released' } } });
  assert.equal(released.status, 200, released.text);
  await eventually(async () => assert.equal(await status('/api/v1/persistentvolumes/prot-pv-b'), 404));
});
