// The smaller core/v1 types against kube-apiserver v1.36 (pkg/apis/core/validation and
// pkg/registry/core/*): Secrets' docker config JSON checked in Go's words, and the order of
// an update's causes for Secrets and ConfigMaps.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const secrets = (ns: string, name = '') => `/api/v1/namespaces/${ns}/secrets${name === '' ? '' : `/${name}`}`;
const configMaps = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`;
const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);
const base64 = (text: string) => Buffer.from(text).toString('base64');

// ---- Secrets: docker config JSON as Go's json.Unmarshal into map[string]interface{} reads it ----

const dockerConfigCases: { name: string; text: string; error?: string }[] = [
  { name: 'an object', text: '{"auths":{}}' },
  { name: 'null (Go leaves the map nil)', text: 'null' },
  { name: 'an array', text: '[]', error: 'json: cannot unmarshal array into Go value of type map[string]interface {}' },
  { name: 'a string', text: '"x"', error: 'json: cannot unmarshal string into Go value of type map[string]interface {}' },
  { name: 'a number', text: '5', error: 'json: cannot unmarshal number into Go value of type map[string]interface {}' },
  { name: 'a bool', text: 'true', error: 'json: cannot unmarshal bool into Go value of type map[string]interface {}' },
  { name: 'nothing', text: '', error: 'unexpected end of JSON input' },
  { name: 'a bad key', text: '{x', error: "invalid character 'x' looking for beginning of object key string" },
  { name: 'a trailing comma', text: '{"a":1,}', error: "invalid character '}' looking for beginning of object key string" },
  { name: 'text after the value', text: '{} x', error: "invalid character 'x' after top-level value" },
];

for (const c of dockerConfigCases) {
  test(`a kubernetes.io/dockerconfigjson Secret holding ${c.name} ${c.error === undefined ? 'is valid' : 'is refused in Go\'s words'}`, async () => {
    const ns = await server.newNamespace('docker-json');
    const res = await server.request('POST', secrets(ns), {
      body: { metadata: { name: 's' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': base64(c.text) } },
    });
    if (c.error === undefined) {
      assert.equal(res.status, 201, res.text);
      return;
    }
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), [`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": ${c.error}`]);
  });
}

test('a kubernetes.io/dockercfg Secret written through stringData is checked the same way', async () => {
  const ns = await server.newNamespace('dockercfg');
  const res = await server.request('POST', secrets(ns), {
    body: { metadata: { name: 's' }, type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': '[{}]' } },
  });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), ['data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}']);
});

// ---- the order of an update's causes: upstream's ValidateXUpdate checks immutability, then the new object ----

test('an update of an immutable Secret lists the type and immutability errors before the new data\'s', async () => {
  const ns = await server.newNamespace('secret-order');
  const created = await server.request('POST', secrets(ns), { body: { metadata: { name: 's' }, data: { a: base64('x') }, immutable: true } });
  assert.equal(created.status, 201, created.text);
  const res = await server.request('PUT', secrets(ns, 's'), {
    body: { metadata: { name: 's' }, type: 'kubernetes.io/tls', data: { 'a/b': base64('x') } },
  });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res).map((line: string) => line.slice(0, line.indexOf(':'))), [
    'type', 'immutable', 'data', 'data[a/b]', 'data[tls.crt]', 'data[tls.key]',
  ]);
});

test('an update of an immutable ConfigMap lists the immutability errors before the new data\'s', async () => {
  const ns = await server.newNamespace('cm-order');
  const created = await server.request('POST', configMaps(ns), { body: { metadata: { name: 'c' }, data: { a: 'x' }, immutable: true } });
  assert.equal(created.status, 201, created.text);
  const res = await server.request('PUT', configMaps(ns, 'c'), {
    body: { metadata: { name: 'c' }, data: { 'a/b': 'x' }, binaryData: { b: base64('y') }, immutable: false },
  });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res).map((line: string) => line.slice(0, line.indexOf(':'))), ['immutable', 'data', 'binaryData', 'data[a/b]']);
});

test('a bad finalizer on an update still comes first, with the metadata', async () => {
  const ns = await server.newNamespace('cm-finalizer');
  const created = await server.request('POST', configMaps(ns), { body: { metadata: { name: 'c' }, data: { a: 'x' }, immutable: true } });
  assert.equal(created.status, 201, created.text);
  const res = await server.request('PUT', configMaps(ns, 'c'), { body: { metadata: { name: 'c', finalizers: ['foo'] }, data: { a: 'y' }, immutable: true } });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(causeLines(res), [
    'metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
    'data: Forbidden: field is immutable when `immutable` is set',
  ]);
});
