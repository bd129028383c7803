// A custom resource's integer written `2.0`: upstream decodes it into a float64 where `2` is
// an int64, and tells them apart where they meet: its validation rules' conversion (an
// error value where a rule reads it), ratcheting's equality (the stored `2` reads back as
// an int64: not unchanged) and the generation's (Semantic.DeepEqual: a change). Written
// `2`, or in a YAML body, it is an integer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { replaceCrdSchema } from '../../helpers/crds.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
const group = 'floats.example.com';
const crdName = `widgets.${group}`;
const widgets = '/apis/floats.example.com/v1/namespaces/default/widgets';

const schemaWith = (sizeMaximum: number) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.replicas >= 0' }],
        properties: {
          replicas: { type: 'integer' },
          count: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] },
          port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self != "x"' }] },
          ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self >= 0.0' }] },
          size: { type: 'integer', maximum: sizeMaximum },
          note: { type: 'string' },
        },
      },
    },
  },
});

before(async () => {
  server = await startServer();
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crdName },
    spec: { group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: schemaWith(10) }] },
  };
  const res = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  assert.equal(res.status, 201, res.text);
  await eventually(async () => assert.equal((await server.request('GET', widgets)).status, 200), { what: 'widgets served' });
});
after(async () => {
  await server?.stop();
});

const body = (name: string, spec: string) => `{"apiVersion":"floats.example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":${spec}}`;
const post = (raw: string) => server.request('POST', widgets, { raw, headers: { 'content-type': 'application/json' } });
const causes = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

test('a rule reading an integer written with a fraction meets upstream\'s conversion error; one not reading it passes', async () => {
  const res = await post(body('a', '{"replicas":1.0,"count":2e0,"port":3.0,"ratio":1.0}'));
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causes(res), [
    'spec: Invalid value: "object": invalid data, expected int, got float64 evaluating rule: self.replicas >= 0',
    'spec.count: Invalid value: "integer": invalid data, expected int, got float64 evaluating rule: self >= 0',
    'spec.port: Invalid value: "": invalid data, expected XIntOrString value to be either a string or integer evaluating rule: self != "x"',
  ]);
  const plain = await post(body('a', '{"replicas":1,"count":2,"port":3,"ratio":1.0,"size":5}'));
  assert.equal(plain.status, 201, plain.text);
  assert.equal(plain.json.metadata.generation, 1);
  const yaml = await server.request('POST', widgets, { raw: 'apiVersion: floats.example.com/v1\nkind: Widget\nmetadata: {name: yaml}\nspec: {replicas: 1.0, count: 2.0}\n', headers: { 'content-type': 'application/yaml' } });
  assert.equal(yaml.status, 201, `YAML writes 1.0 back as 1 before decoding: ${yaml.text}`);
});

test('an update writing a stored integer as 2.0 changes the generation; written as it was, it does not', async () => {
  const stored = (await server.request('GET', `${widgets}/a`)).json;
  const put = (spec: string) => server.request('PUT', `${widgets}/a`, {
    raw: JSON.stringify({ ...stored, spec: {} }).replace('"spec":{}', `"spec":${spec}`), headers: { 'content-type': 'application/json' },
  });
  const same = await put('{"replicas":1,"count":2,"port":3,"ratio":1,"size":5}');
  assert.equal(same.status, 200, same.text);
  assert.equal(same.json.metadata.generation, 1, 'ratio written 1.0 at create was stored as 1, an int64 read back');
  const floatSize = await put('{"replicas":1,"count":2,"port":3,"ratio":1,"size":5.0}');
  assert.equal(floatSize.status, 200, floatSize.text);
  assert.equal(floatSize.json.metadata.generation, 2);
  assert.equal(floatSize.json.spec.size, 5, 'stored and answered as Go writes a float64 5: 5');
  const merged = await server.request('PATCH', `${widgets}/a`, { raw: '{"spec":{"size":5.0}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(merged.json.metadata.generation, 3, 'a merge patch keeps the text too');
  const mergedPlain = await server.request('PATCH', `${widgets}/a`, { raw: '{"spec":{"size":5}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(mergedPlain.json.metadata.generation, 3);
});

test('ratcheting: a value stored under a looser schema is unchanged written as it was, changed written 5.0', async () => {
  await replaceCrdSchema(server, crdName, schemaWith(3), { path: widgets, body: JSON.parse(body('probe', '{"size":5}')) });
  const put = async (size: string) => {
    const stored = (await server.request('GET', `${widgets}/a`)).json;
    return server.request('PUT', `${widgets}/a`, {
      raw: JSON.stringify({ ...stored, spec: { ...stored.spec, size: 0, note: 'x' } }).replace('"size":0', `"size":${size}`), headers: { 'content-type': 'application/json' },
    });
  };
  const asStored = await put('5');
  assert.equal(asStored.status, 200, asStored.text);
  const asFloat = await put('5.0');
  assert.equal(asFloat.status, 422, asFloat.text);
  assert.deepEqual(causes(asFloat), ['spec.size: Invalid value: 5: spec.size in body should be less than or equal to 3']);
});
