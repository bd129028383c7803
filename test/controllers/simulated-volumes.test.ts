// The simulated provisioner over a real in-process server: the default StorageClass, a
// volume per claim of that class (pre-bound through claimRef, for the persistent volume
// controller to bind), nothing for other classes, and released volumes deleted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedVolumes, simulatedProvisioner } from '../../src/controllers/simulated-volumes.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let volumes: SimulatedVolumes;
before(async () => {
  server = await startServer({ enableGarbageCollector: false });
  const store = (group: string, resource: string) => server.registry.lookup(group, 'v1', resource)!.store;
  volumes = new SimulatedVolumes({ claims: store('', 'persistentvolumeclaims'), volumes: store('', 'persistentvolumes'), storageClasses: store('storage.k8s.io', 'storageclasses'), log: () => {} });
  await volumes.start();
});
after(async () => {
  await volumes.close();
  await server.stop();
});

/** A claim, as the scheduler leaves it once it chose a node for the pod that uses it (the class waits for its first consumer). */
const claim = (name: string, storageClassName?: string, node: string | null = 'sim-node-0') => ({
  metadata: { name, ...(node === null ? {} : { annotations: { 'volume.kubernetes.io/selected-node': node } }) }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, ...(storageClassName === undefined ? {} : { storageClassName }) },
});

test('the simulated StorageClass is the default', async () => {
  const sc = (await server.request('GET', '/apis/storage.k8s.io/v1/storageclasses/standard')).json;
  assert.deepEqual([sc.provisioner, sc.metadata.annotations['storageclass.kubernetes.io/is-default-class'], sc.volumeBindingMode, sc.reclaimPolicy], [simulatedProvisioner, 'true', 'WaitForFirstConsumer', 'Delete']);
});

test('a claim of the simulated class gets a volume of its size on the chosen node, pre-bound to it; a claim of another class, or not yet used by a scheduled pod, does not', async () => {
  const ns = await server.newNamespace('vol');
  const waiting = await server.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('unused', 'standard', null) });
  assert.equal(waiting.status, 201, waiting.text);
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('data', 'standard') });
  assert.equal(created.status, 201, created.text);
  const other = await server.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('elsewhere', 'fast') });
  assert.equal(other.status, 201, other.text);
  const pv = await eventually(async () => {
    const res = await server.request('GET', `/api/v1/persistentvolumes/pvc-${created.json.metadata.uid}`);
    assert.equal(res.status, 200, res.text);
    return res.json;
  });
  assert.deepEqual(pv.spec.capacity, { storage: '2Gi' });
  assert.deepEqual(pv.spec.claimRef, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: ns, name: 'data', uid: created.json.metadata.uid, resourceVersion: created.json.metadata.resourceVersion });
  assert.equal(pv.metadata.annotations['pv.kubernetes.io/provisioned-by'], simulatedProvisioner);
  assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['sim-node-0'] }] }]);
  const all = (await server.request('GET', '/api/v1/persistentvolumes')).json.items;
  assert.equal(all.filter((v: { spec: { claimRef?: { name: string } } }) => v.spec.claimRef?.name === 'elsewhere' || v.spec.claimRef?.name === 'unused').length, 0);
});

test('a claim without a class gets the default one (DefaultStorageClass admission) and a volume', async () => {
  const ns = await server.newNamespace('vol');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('defaulted') });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.spec.storageClassName, 'standard');
  await eventually(async () => assert.equal((await server.request('GET', `/api/v1/persistentvolumes/pvc-${created.json.metadata.uid}`)).status, 200));
});

test('a released volume it provisioned is deleted', async () => {
  const ns = await server.newNamespace('vol');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: claim('tmp', 'standard') });
  const name = `pvc-${created.json.metadata.uid}`;
  const pv = await eventually(async () => {
    const res = await server.request('GET', `/api/v1/persistentvolumes/${name}`);
    assert.equal(res.status, 200);
    return res.json;
  });
  // What the persistent volume controller writes once the claim is gone.
  const released = await server.request('PUT', `/api/v1/persistentvolumes/${name}/status`, { body: { ...pv, status: { phase: 'Released' } } });
  assert.equal(released.status, 200, released.text);
  await eventually(async () => assert.equal((await server.request('GET', `/api/v1/persistentvolumes/${name}`)).status, 404));
});
