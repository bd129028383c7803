// Numbers past a float64's range in a JSON body (1e400, which JSON.parse reads as Infinity
// and JSON.stringify writes as null): refused in Go's words where Go's decoding meets them,
// never stored as null.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const json = { 'content-type': 'application/json' };

function crd(plural: string, kind: string, maximum: string): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { m: { type: 'number', maximum: 5 } } } } } } }],
    },
  }).replace('"maximum":5', `"maximum":${maximum}`);
}

test('a custom resource holding 1e400 is 400 as its Go decoding words it, on create and update, and is not stored', async () => {
  assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { raw: crd('widgets', 'Widget', '5'), headers: json })).status, 201);
  const path = '/apis/example.com/v1/namespaces/default/widgets';
  let created;
  for (let i = 0; i < 50; i++) {
    created = await server.request('POST', path, { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { n: 1 } } });
    if (created.status !== 404) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(created!.status, 201, created!.text);
  const message = 'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number 1e400 into Go value of type float64';
  const refused = await server.request('POST', path, { raw: '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"n":1e400}}', headers: json });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.json.message, message);
  assert.equal((await server.request('GET', `${path}/big`)).status, 404);
  const current = (await server.request('GET', `${path}/w`)).json;
  const update = JSON.stringify({ ...current, spec: { n: 7 } }).replace('"n":7', '"n":-1e400');
  const updated = await server.request('PUT', `${path}/w`, { raw: update, headers: json });
  assert.equal(updated.status, 400, updated.text);
  assert.equal(updated.json.message, message.replace('1e400', '-1e400'));
  assert.deepEqual((await server.request('GET', `${path}/w`)).json.spec, { n: 1 });
  // In a YAML body the same text is a string to go-yaml: kept as written.
  const yaml = await server.request('POST', path, { raw: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: from-yaml}\nspec: {size: 1e400}\n', headers: { 'content-type': 'application/yaml' } });
  assert.equal(yaml.status, 201, yaml.text);
  assert.deepEqual(yaml.json.spec, { size: '1e400' });
});

test('a built-in type refuses it in a numeric field with the number as written, and ignores it in a field it does not have', async () => {
  const schema = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { raw: crd('gadgets', 'Gadget', '1e400'), headers: json });
  assert.equal(schema.status, 400, schema.text);
  assert.match(schema.json.message, /^CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal number 1e400 into Go struct field JSONSchemaProps\.spec\.versions\.schema\.openAPIV3Schema\.properties\..*maximum of type float64$/);
  assert.equal((await server.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com')).status, 404);

  const generation = await server.request('POST', '/api/v1/namespaces/default/configmaps', { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g","generation":1e400}}', headers: json });
  assert.equal(generation.status, 400, generation.text);
  assert.equal(generation.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 1e400 into Go struct field ObjectMeta.metadata.generation of type int64');
  // Into a string Go names no number.
  const data = await server.request('POST', '/api/v1/namespaces/default/configmaps', { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"x":1e400}}', headers: json });
  assert.equal(data.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  const unknown = await server.request('POST', '/api/v1/namespaces/default/configmaps', { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"u"},"bogus":1e400,"data":{"text":"1e400"}}', headers: json });
  assert.equal(unknown.status, 201, unknown.text);
  assert.deepEqual(unknown.json.data, { text: '1e400' });
});
