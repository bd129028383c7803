// PATCH Content-Types as kube-apiserver refuses them: go-restful's route match for built-in types, the patch handler's exact list for custom resources and their subresources.
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

const customList = 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

const patch = (path: string, contentType: string, raw = '{"data":{"a":"1"}}') =>
  server.request('PATCH', path, { raw, headers: { 'content-type': contentType } });

test('a built-in type\'s PATCH of another media type is go-restful\'s 415, before its options and its object', async () => {
  const ns = await server.newNamespace('ct');
  for (const type of ['application/json', 'Application/Merge-Patch+JSON', 'text/plain']) {
    const res = await patch(`/api/v1/namespaces/${ns}/configmaps/missing?dryRun=Foo&fieldValidation=Bogus`, type);
    assert.equal(res.status, 415, type);
    assert.deepEqual([res.json.reason, res.json.message, res.json.details], ['UnsupportedMediaType', '415: Unsupported Media Type', {}], type);
  }
  const noBody = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/missing`, { raw: '', headers: { 'content-type': 'application/json' } });
  assert.equal(noBody.status, 406, noBody.text);
  assert.equal(noBody.json.message, '406: Not Acceptable\n\nAvailable representations: ');
});

test('parameters after ; are ignored; a space before ; is not, nor a list of types', async () => {
  const ns = await server.newNamespace('ct');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
  assert.equal(created.status, 201, created.text);
  const ok = await patch(`/api/v1/namespaces/${ns}/configmaps/c`, 'application/merge-patch+json; charset=utf-8');
  assert.equal(ok.status, 200, ok.text);
  for (const type of ['application/merge-patch+json ; charset=utf-8', 'text/plain, application/merge-patch+json']) {
    const res = await patch(`/api/v1/namespaces/${ns}/configmaps/c`, type);
    assert.equal(res.status, 415, type);
    assert.match(res.json.message, /^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml$/, type);
  }
});

test('a custom resource and its status and scale take no strategic merge patch, and compare the media type exactly', async () => {
  const group = 'ct.example.com';
  const crd = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `dials.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'dials', singular: 'dial', kind: 'Dial' },
      versions: [{
        name: 'v1', served: true, storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } } },
      }],
    },
  } });
  assert.equal(crd.status, 201, crd.text);
  const ns = await server.newNamespace('ct');
  const base = `/apis/${group}/v1/namespaces/${ns}/dials`;
  for (let i = 0; ; i++) {
    const res = await server.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Dial', metadata: { name: 'd' }, spec: { replicas: 1 } } });
    if (res.status === 201) break;
    if (i === 50) assert.fail(res.text);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const sub of ['', '/status', '/scale']) {
    const strategic = await patch(`${base}/d${sub}`, 'application/strategic-merge-patch+json', '{"spec":{"replicas":2}}');
    assert.equal(strategic.status, 415, `strategic ${sub}`);
    assert.equal(strategic.json.message, customList, `strategic ${sub}`);
  }
  for (const type of ['Application/Merge-Patch+JSON', 'application/merge-patch+json ;charset=utf-8']) {
    const res = await patch(`${base}/d`, type, '{"spec":{"replicas":2}}');
    assert.equal(res.status, 415, type);
    assert.equal(res.json.message, customList, type);
  }
  const merged = await patch(`${base}/d/scale`, 'application/merge-patch+json', '{"spec":{"replicas":3}}');
  assert.equal(merged.status, 200, merged.text);
  assert.equal(merged.json.spec.replicas, 3);
});

test('a /scale PATCH of another media type is refused before its options, as the object\'s', async () => {
  const ns = await server.newNamespace('ct');
  const res = await patch(`/apis/apps/v1/namespaces/${ns}/deployments/missing/scale?dryRun=Foo`, 'text/plain');
  assert.equal(res.status, 415, res.text);
  assert.equal(res.json.message, '415: Unsupported Media Type');
});
