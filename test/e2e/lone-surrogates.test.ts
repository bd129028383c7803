// JSON bodies escaping a lone UTF-16 surrogate (`\ud800` with no low surrogate after it,
// or a low one alone): kube-apiserver's decoder, Go's encoding/json, reads each as U+FFFD
// and keeps a valid pair, in keys as in values, in objects as in patches. An object named
// with a lone surrogate would otherwise be stored under a name no URL reaches.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const json = { 'content-type': 'application/json' };

test('a ClusterRole named "\\ud800x" is named "\\uFFFDx", and read and deleted at %EF%BF%BDx', async () => {
  const raw = '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"\\ud800x"}}';
  const created = await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { raw, headers: json });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.metadata.name, '\uFFFDx');
  const read = await server.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/%EF%BF%BDx');
  assert.equal(read.status, 200, read.text);
  assert.equal(read.json.metadata.name, '\uFFFDx');
  assert.equal((await server.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/%EF%BF%BDx')).status, 200);
});

test('annotation values: a lone low surrogate is U+FFFD, a valid pair is kept', async () => {
  const ns = await server.newNamespace('values');
  const raw = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"values","annotations":{"lone":"v\\udc00","pair":"\\ud83d\\ude00"}}}`;
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { raw, headers: json });
  assert.equal(created.status, 201, created.text);
  const read = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/values`);
  assert.deepEqual(read.json.metadata.annotations, { lone: 'v\uFFFD', pair: '😀' });
});

test('an annotation key of a lone low surrogate is U+FFFD, the key the 422 names', async () => {
  const ns = await server.newNamespace('keys');
  const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keys","annotations":{"\\udc00":"v"}}}';
  const refused = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { raw, headers: json });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.details.causes[0].field, 'metadata.annotations');
  assert.match(refused.json.details.causes[0].message, /^Invalid value: "\uFFFD": /);
});

const patches: [type: string, body: string][] = [
  ['application/merge-patch+json', '{"metadata":{"annotations":{"a":"\\ud800","b":"\\ud83d\\ude00"}}}'],
  ['application/strategic-merge-patch+json', '{"metadata":{"annotations":{"a":"\\ud800","b":"\\ud83d\\ude00"}}}'],
  ['application/json-patch+json', '[{"op":"add","path":"/metadata/annotations","value":{"a":"\\ud800","b":"\\ud83d\\ude00"}}]'],
];

for (const [type, raw] of patches) {
  test(`${type}: a patch reads a lone high surrogate as U+FFFD and keeps a valid pair`, async () => {
    const ns = await server.newNamespace('patch');
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patched' } } });
    assert.equal(created.status, 201, created.text);
    const patched = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/patched`, { raw, headers: { 'content-type': type } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.metadata.annotations, { a: '\uFFFD', b: '😀' });
  });
}
