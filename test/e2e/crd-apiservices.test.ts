// Every version a CRD serves gets its local APIService, as kube-apiserver's autoregistration
// makes them (`kubectl get apiservices` lists CRD groups in any cluster); a version no longer
// served, or a CRD deleted, takes its APIService with it; the built-in groups' stay.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
const crd = (served: Record<string, boolean>) => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.stable.example.com' },
  spec: {
    group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: Object.entries(served).map(([name, isServed], i) => ({ name, served: isServed, storage: i === 0, schema })),
  },
});
const apiService = (name: string) => server.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);

test('a CRD\'s served versions get local APIServices, which go with them', async () => {
  const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd({ v1: true, v2: true, v3: false }) });
  assert.equal(created.status, 201, created.text);
  const v1 = await eventually(async () => {
    const res = await apiService('v1.stable.example.com');
    assert.equal(res.json.status?.conditions?.[0]?.reason, 'Local', res.text);
    return res.json;
  });
  assert.deepEqual(v1.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
  assert.deepEqual(v1.spec, { group: 'stable.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
  assert.deepEqual(v1.status.conditions.map((c: { type: string; status: string; message: string }) => [c.type, c.status, c.message]), [['Available', 'True', 'Local APIServices are always available']]);
  await eventually(async () => assert.equal((await apiService('v2.stable.example.com')).status, 200));
  assert.equal((await apiService('v3.stable.example.com')).status, 404);

  // v2 no longer served: its APIService goes.
  const current = (await server.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.stable.example.com')).json;
  const updated = await server.request('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.stable.example.com', {
    body: { ...current, spec: { ...current.spec, versions: current.spec.versions.map((v: { name: string }) => ({ ...v, served: v.name === 'v1' })) } },
  });
  assert.equal(updated.status, 200, updated.text);
  await eventually(async () => assert.equal((await apiService('v2.stable.example.com')).status, 404));
  assert.equal((await apiService('v1.stable.example.com')).status, 200);

  // The CRD deleted: the rest go; a built-in group's stays.
  assert.equal((await server.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.stable.example.com')).status, 200);
  await eventually(async () => assert.equal((await apiService('v1.stable.example.com')).status, 404));
  assert.equal((await apiService('v1.apps')).status, 200);
});
