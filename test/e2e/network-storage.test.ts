// Ingresses, network policies, volumes and claims, storage classes and priority classes over
// HTTP: their Table columns, immutable fields, and the Priority admission plugin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';

async function columns(path: string): Promise<{ names: string[]; cells: unknown[][] }> {
  const res = await server.request('GET', path, { headers: { accept: tableAccept } });
  assert.equal(res.status, 200, res.text);
  return { names: res.json.columnDefinitions.map((c: { name: string }) => c.name), cells: res.json.rows.map((r: { cells: unknown[] }) => r.cells) };
}

async function create(path: string, body: object): Promise<any> {
  const res = await server.request('POST', path, { body });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

describe('Table columns', () => {
  test('ingresses, ingress classes and network policies', async () => {
    const ns = await server.newNamespace('netcols');
    await create(`/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, {
      metadata: { name: 'web' },
      spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
    });
    const ing = await columns(`/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`);
    assert.deepEqual(ing.names, ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    assert.deepEqual(ing.cells[0]!.slice(0, 5), ['web', 'nginx', 'a.example.com', '', '80']);
    await create('/apis/networking.k8s.io/v1/ingressclasses', { metadata: { name: 'netcols-nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } });
    const ic = await columns('/apis/networking.k8s.io/v1/ingressclasses');
    assert.deepEqual(ic.names, ['Name', 'Controller', 'Parameters', 'Age']);
    assert.deepEqual(ic.cells.find((c) => c[0] === 'netcols-nginx')!.slice(0, 3), ['netcols-nginx', 'k8s.io/ingress-nginx', '<none>']);
    const np = await create(`/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`, { metadata: { name: 'deny' }, spec: { podSelector: { matchLabels: { app: 'db' } }, egress: [{}] } });
    assert.deepEqual(np.spec.policyTypes, ['Ingress', 'Egress']);
    const pol = await columns(`/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`);
    assert.deepEqual(pol.names, ['Name', 'Pod-Selector', 'Age']);
    assert.deepEqual(pol.cells[0]!.slice(0, 2), ['deny', 'app=db']);
  });

  test('volumes, claims, storage classes and priority classes', async () => {
    const ns = await server.newNamespace('storcols');
    await create('/api/v1/persistentvolumes', { metadata: { name: 'storcols-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, storageClassName: 'fast' } });
    const pv = await columns('/api/v1/persistentvolumes');
    assert.deepEqual(pv.names, ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
    const pvRow = pv.cells.find((c) => c[0] === 'storcols-pv')!;
    assert.deepEqual([...pvRow.slice(0, 9), pvRow[10]], ['storcols-pv', '1Gi', 'RWO', 'Retain', 'Pending', '', 'fast', '<unset>', '', 'Filesystem']);
    await create(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' } });
    const pvc = await columns(`/api/v1/namespaces/${ns}/persistentvolumeclaims`);
    assert.deepEqual(pvc.names, ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
    assert.deepEqual(pvc.cells[0]!.slice(0, 7), ['data', 'Pending', '', '', '', 'fast', '<unset>']);
    await create('/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'storcols-std', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'csi.example.com' });
    const sc = await columns('/apis/storage.k8s.io/v1/storageclasses');
    assert.deepEqual(sc.names, ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    assert.deepEqual(sc.cells.find((c) => c[0] === 'storcols-std (default)')!.slice(0, 5), ['storcols-std (default)', 'csi.example.com', 'Delete', 'Immediate', false]);
    const pc = await columns('/apis/scheduling.k8s.io/v1/priorityclasses');
    assert.deepEqual(pc.names, ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
    const system = pc.cells.filter((c) => String(c[0]).startsWith('system-')).map((c) => [c[0], c[1], c[2], c[4]]);
    assert.deepEqual(system.sort(), [
      ['system-cluster-critical', 2000000000, false, 'PreemptLowerPriority'],
      ['system-node-critical', 2000001000, false, 'PreemptLowerPriority'],
    ]);
  });
});

describe('immutable fields answer 422 with upstream\'s messages', () => {
  async function updateCauses(path: string, change: (obj: any) => void): Promise<string[]> {
    const current = (await server.request('GET', path)).json;
    change(current);
    const res = await server.request('PUT', path, { body: current });
    assert.equal(res.status, 422, res.text);
    return res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
  }

  test('a claim\'s access modes, a storage class\'s provisioner, a priority class\'s value', async () => {
    const ns = await server.newNamespace('immutable');
    await create(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.deepEqual(await updateCauses(`/api/v1/namespaces/${ns}/persistentvolumeclaims/data`, (o) => { o.spec.accessModes = ['ReadOnlyMany']; }), [
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    ]);
    await create('/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'immutable-sc' }, provisioner: 'a.example.com' });
    assert.deepEqual(await updateCauses('/apis/storage.k8s.io/v1/storageclasses/immutable-sc', (o) => { o.provisioner = 'b.example.com'; }), [
      'provisioner: Forbidden: updates to provisioner are forbidden.',
    ]);
    await create('/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'immutable-pc' }, value: 5 });
    assert.deepEqual(await updateCauses('/apis/scheduling.k8s.io/v1/priorityclasses/immutable-pc', (o) => { o.value = 6; }), [
      'value: Forbidden: may not be changed in an update.',
    ]);
  });
});

describe('the Priority admission plugin', () => {
  const pod = (name: string, spec: object) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

  test('a pod gets its class\'s priority; an unknown class is refused', async () => {
    const ns = await server.newNamespace('priority');
    await create('/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'priority-high' }, value: 1000, preemptionPolicy: 'Never' });
    const high = await create(`/api/v1/namespaces/${ns}/pods`, pod('high', { priorityClassName: 'priority-high' }));
    assert.equal(high.spec.priority, 1000);
    assert.equal(high.spec.preemptionPolicy, 'Never');
    const critical = await create(`/api/v1/namespaces/${ns}/pods`, pod('critical', { priorityClassName: 'system-node-critical' }));
    assert.equal(critical.spec.priority, 2000001000);
    const plain = await create(`/api/v1/namespaces/${ns}/pods`, pod('plain', {}));
    assert.equal(plain.spec.priority, 0);
    const unknown = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('x', { priorityClassName: 'foo' }) });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.json.message, 'pods "x" is forbidden: no PriorityClass with name foo was found');
    const own = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('y', { priorityClassName: 'priority-high', priority: 7 }) });
    assert.equal(own.status, 403);
    assert.match(own.json.message, /the integer value of priority \(7\) must not be provided in pod spec/);
  });

  test('only one class may be the global default', async () => {
    await create('/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'default-one' }, value: 1, globalDefault: true });
    const second = await server.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { metadata: { name: 'default-two' }, value: 2, globalDefault: true } });
    assert.equal(second.status, 403);
    assert.equal(second.json.message, 'priorityclasses.scheduling.k8s.io "default-two" is forbidden: PriorityClass default-one is already marked as default. Only one default can exist');
    assert.equal((await server.request('DELETE', '/apis/scheduling.k8s.io/v1/priorityclasses/default-one')).status, 200);
  });
});
