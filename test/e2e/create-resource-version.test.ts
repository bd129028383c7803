// POST with metadata.resourceVersion set: upstream's storage refuses it with a plain 500
// (no reason), after validation and admission, before the name is checked; a dry run and
// a resourceVersion of "0" or one that is no unsigned number pass.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const refused = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'resourceVersion should not be set on objects to be created',
  code: 500,
};

function configMap(name: string, resourceVersion?: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion }, data: { a: '1' } };
}

describe('POST with metadata.resourceVersion', () => {
  test('a built-in object answers 500 with upstream\'s Status and is not created', async () => {
    const ns = await server.newNamespace('create-rv');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c', '5') });
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.json, refused);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 404);
  });

  test('a cluster-scoped object answers the same', async () => {
    const res = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'create-rv-cluster', resourceVersion: '12' } } });
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.json, refused);
  });

  test('a taken name answers the resourceVersion error, not 409', async () => {
    const ns = await server.newNamespace('create-rv');
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('taken') })).status, 201);
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('taken', '1') });
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.json, refused);
  });

  test('an invalid object answers 422 first', async () => {
    const ns = await server.newNamespace('create-rv');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('Not_Valid', '5') });
    assert.equal(res.status, 422, res.text);
  });

  for (const resourceVersion of ['0', 'abc', '-1', '18446744073709551616']) {
    test(`resourceVersion "${resourceVersion}" is no error (upstream ignores what is not a non-zero uint64)`, async () => {
      const ns = await server.newNamespace('create-rv');
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c', resourceVersion) });
      assert.equal(res.status, 201, res.text);
      assert.match(res.json.metadata.resourceVersion, /^[1-9][0-9]*$/);
    });
  }

  test('a dry run passes, as upstream\'s dry-run storage does not check it', async () => {
    const ns = await server.newNamespace('create-rv');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: configMap('c', '5') });
    assert.equal(res.status, 201, res.text);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 404);
  });

  test('a custom resource answers the same 500', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.create-rv.example.com' },
      spec: {
        group: 'create-rv.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const ns = await server.newNamespace('create-rv');
    const path = `/apis/create-rv.example.com/v1/namespaces/${ns}/widgets`;
    const body = { apiVersion: 'create-rv.example.com/v1', kind: 'Widget', metadata: { name: 'w', resourceVersion: '3' } };
    const res = await eventually(async () => {
      const answer = await server.request('POST', path, { body });
      assert.notEqual(answer.status, 404, 'widgets not served yet');
      return answer;
    });
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.json, refused);
  });
});
