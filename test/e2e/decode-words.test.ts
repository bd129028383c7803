// Request bodies that do not decode, answered in upstream's words: create and update bodies
// as the handlers' transformDecodeError wraps the serializer's errors (an empty body is no
// special case; null decodes as an empty object of a built-in kind), and DELETE bodies as
// the delete handler answers its decoding into meta.k8s.io's DeleteOptions (400, unwrapped).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../src/cli/config.ts';
import { encodeProtobufObject, protobufEnvelope } from '../../src/encoding/protobuf/codec.ts';
import type { KubeObject } from '../../src/api/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const json = 'application/json';
const yaml = 'application/yaml';
const protobuf = 'application/vnd.kubernetes.protobuf';
const cbor = 'application/cbor';
const group = 'decode-words.example.com';
const metaScheme = 'k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27';
const typeMetaStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

let server: TestServer;
before(async () => {
  server = await startServer({ featureGates: { ...defaultConfig().featureGates, CBORServingAndStorage: true } });
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
  await eventually(async () => assert.equal((await server.request('GET', `/apis/${group}/v1/widgets`)).status, 200), { what: 'widgets to be served' });
});
after(async () => {
  await server.stop();
});

/** A request with exactly these body bytes (Node sends a body on DELETE only with its length given). */
function send(method: string, url: string, body: string | Buffer, contentType: string) {
  return server.request(method, url, { raw: body, headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) } });
}

const unrecognized = (kind: string, cause: string, summary: string) => `the object provided is unrecognized (must be of type ${kind}): ${cause} (${summary})`;
const sniffing = (error: string) => `couldn't get version/kind; json parse error: ${error}`;
const notAnObject = (what: string) => sniffing(`json: cannot unmarshal ${what} into Go value of type ${typeMetaStruct}`);
const nameRequired = 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required';

interface BodyRow {
  name: string;
  method?: 'POST' | 'PUT';
  /** What is written to: configmaps (default), widgets (the custom resource), or a pod's eviction. */
  target?: 'configmaps' | 'widgets' | 'eviction';
  body: string | Buffer;
  contentType?: string;
  status: number;
  reason: string;
  message: string;
}

const bodyRows: BodyRow[] = [
  { name: 'an empty JSON body', body: '', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing('unexpected end of JSON input'), '<empty>') },
  { name: 'an empty JSON body on update', method: 'PUT', body: '', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing('unexpected end of JSON input'), '<empty>') },
  { name: 'a JSON body of only whitespace', body: '  \n', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing('unexpected end of JSON input'), '20200a') },
  { name: 'JSON null decodes as an empty ConfigMap', body: 'null', status: 422, reason: 'Invalid', message: nameRequired },
  { name: 'a JSON list', body: '[]', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', notAnObject('array'), '5b5d') },
  { name: 'a JSON string', body: '"x"', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', notAnObject('string'), '227822') },
  { name: 'a JSON number', body: '123', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', notAnObject('number'), '313233') },
  { name: 'a JSON boolean', body: 'true', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', notAnObject('bool'), '74727565') },
  { name: 'malformed JSON', body: '{oops', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing("invalid character 'o' looking for beginning of object key string"), '{oops') },
  {
    name: 'malformed JSON of more than 30 bytes is summarised by its first 30',
    body: '{"metadata": {"name": "abcdefghij"},}', status: 400, reason: 'BadRequest',
    message: unrecognized('ConfigMap', sniffing("invalid character '}' looking for beginning of object key string"), '{"metadata": {"name": "abcdefg ...'),
  },
  { name: 'a kind that is not a string', body: '{"kind":1}', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing('json: cannot unmarshal number into Go struct field .kind of type string'), '{"kind":1}') },
  { name: 'an apiVersion that is not a string', body: '{"apiVersion":true}', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing('json: cannot unmarshal bool into Go struct field .apiVersion of type string'), '{"apiVersion":true}') },
  { name: 'of both of the wrong type the first in the body is named', body: '{"kind":[],"apiVersion":1}', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', sniffing('json: cannot unmarshal array into Go struct field .kind of type string'), '{"kind":[],"apiVersion":1}') },
  { name: 'an apiVersion of two slashes', body: '{"apiVersion":"a/b/c"}', status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', 'unexpected GroupVersion string: a/b/c', '{"apiVersion":"a/b/c"}') },
  { name: 'an empty YAML body decodes as null', body: '', contentType: yaml, status: 422, reason: 'Invalid', message: nameRequired },
  { name: 'a YAML body of only whitespace', body: '  \n', contentType: yaml, status: 422, reason: 'Invalid', message: nameRequired },
  { name: 'a YAML body of only a comment', body: '# nothing\n', contentType: yaml, status: 422, reason: 'Invalid', message: nameRequired },
  { name: 'a YAML body of an empty document', body: '---\n', contentType: yaml, status: 422, reason: 'Invalid', message: nameRequired },
  { name: 'a YAML list', body: '- a\n', contentType: yaml, status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', notAnObject('array'), '2d20610a') },
  { name: 'a YAML scalar', body: 'x', contentType: yaml, status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', notAnObject('string'), '78') },
  { name: 'an empty CBOR body', body: '', contentType: cbor, status: 400, reason: 'BadRequest', message: unrecognized('ConfigMap', 'unable to determine group/version/kind: EOF', '<empty>') },
  { name: 'a custom resource: an empty body', target: 'widgets', body: '', status: 400, reason: 'BadRequest', message: unrecognized('Widget', sniffing('unexpected end of JSON input'), '<empty>') },
  {
    name: 'a custom resource: null, which unstructured data refuses for its missing kind', target: 'widgets', body: 'null', status: 400, reason: 'BadRequest',
    message: 'Widget in version "v1" cannot be handled as a Widget: Object \'Kind\' is missing in \'null\'',
  },
  {
    name: 'a custom resource: an empty YAML body', target: 'widgets', body: '', contentType: yaml, status: 400, reason: 'BadRequest',
    message: 'Widget in version "v1" cannot be handled as a Widget: Object \'Kind\' is missing in \'null\'',
  },
  { name: 'a subresource (eviction): an empty body', target: 'eviction', body: '', status: 400, reason: 'BadRequest', message: unrecognized('Eviction', sniffing('unexpected end of JSON input'), '<empty>') },
];

describe('create and update bodies that do not decode', () => {
  for (const row of bodyRows) {
    test(`${row.method ?? 'POST'} ${row.target ?? 'configmaps'}: ${row.name} is ${row.status} ${row.reason}`, async () => {
      const ns = await server.newNamespace('decode-words');
      const target = row.target ?? 'configmaps';
      let url = target === 'widgets' ? `/apis/${group}/v1/namespaces/${ns}/widgets` : `/api/v1/namespaces/${ns}/configmaps`;
      if (target === 'eviction') url = `/api/v1/namespaces/${ns}/pods/p/eviction`;
      if (row.method === 'PUT') {
        assert.equal((await server.request('POST', url, { body: { metadata: { name: 'c' } } })).status, 201);
        url = `${url}/c`;
      }
      const res = await send(row.method ?? 'POST', url, row.body, row.contentType ?? json);
      assert.equal(res.status, row.status, res.text);
      assert.equal(res.json.reason, row.reason);
      assert.equal(res.json.message, row.message);
    });
  }
});

interface DeleteRow {
  name: string;
  body: string | Buffer;
  contentType?: string;
  /** 400's message; undefined: the options decode and the delete goes ahead. */
  message?: string;
}

const envelope = (apiVersion: string, kind: string) => Buffer.from(protobufEnvelope(apiVersion, kind, new Uint8Array()));

const deleteRows: DeleteRow[] = [
  { name: 'malformed JSON', body: '{', message: sniffing('unexpected end of JSON input') },
  { name: 'a JSON list', body: '[1]', message: notAnObject('array') },
  { name: 'another kind the scheme does not know', body: '{"kind":"ConfigMap","apiVersion":"v1"}', message: `no kind "ConfigMap" is registered for version "v1" in scheme "${metaScheme}"` },
  { name: 'an unknown kind of meta.k8s.io', body: '{"kind":"Foo","apiVersion":"meta.k8s.io/v1"}', message: `no kind "Foo" is registered for version "meta.k8s.io/v1" in scheme "${metaScheme}"` },
  { name: 'a kind of an internal version', body: '{"kind":"Foo","apiVersion":"apps/__internal"}', message: `no kind "Foo" is registered for the internal version of group "apps" in scheme "${metaScheme}"` },
  { name: 'an unversioned kind: Status', body: '{"kind":"Status","apiVersion":"v1"}', message: 'converting (v1.Status) to (v1.DeleteOptions): unknown conversion' },
  { name: 'an unversioned kind in any group version: APIResourceList', body: '{"kind":"APIResourceList","apiVersion":"apps/v1"}', message: 'converting (v1.APIResourceList) to (v1.DeleteOptions): unknown conversion' },
  { name: 'another options kind of meta.k8s.io/v1', body: '{"kind":"ListOptions","apiVersion":"meta.k8s.io/v1"}', message: 'converting (v1.ListOptions) to (v1.DeleteOptions): unknown conversion' },
  { name: 'meta.k8s.io/v1beta1\'s own list type', body: '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1"}', message: 'converting (v1beta1.PartialObjectMetadataList) to (v1.DeleteOptions): unknown conversion' },
  { name: 'a group without a version', body: '{"kind":"DeleteOptions","apiVersion":"apps/"}', message: 'Object \'apiVersion\' is missing in \'{"kind":"DeleteOptions","apiVersion":"apps/"}\'' },
  { name: 'an apiVersion of two slashes', body: '{"apiVersion":"a/b/c"}', message: 'unexpected GroupVersion string: a/b/c' },
  { name: 'a YAML body of another kind', body: 'kind: Pod\napiVersion: v1\n', contentType: yaml, message: `no kind "Pod" is registered for version "v1" in scheme "${metaScheme}"` },
  { name: 'Protobuf without its prefix', body: Buffer.from([1, 2, 3]), contentType: protobuf, message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' },
  { name: 'Protobuf cut short', body: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a]), contentType: protobuf, message: 'unexpected EOF' },
  { name: 'Protobuf of another kind', body: Buffer.from(encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } as KubeObject)), contentType: protobuf, message: `no kind "ConfigMap" is registered for version "v1" in scheme "${metaScheme}"` },
  { name: 'Protobuf of a kind without a message', body: envelope('v1', 'Foo'), contentType: protobuf, message: `no kind "Foo" is registered for version "v1" in scheme "${metaScheme}"` },
  { name: 'CBOR that does not decode', body: Buffer.from([0xff]), contentType: cbor, message: 'unable to determine group/version/kind: cbor: unexpected "break" code' },
  { name: 'CBOR that is no map', body: Buffer.from([0xd9, 0xd9, 0xf7, 0x82, 0x01, 0x02]), contentType: cbor, message: 'unable to determine group/version/kind: cbor: cannot unmarshal array into Go value of type v1.TypeMeta' },
  { name: 'DeleteOptions of another group version (client-go sends them)', body: '{"kind":"DeleteOptions","apiVersion":"apps/v1"}' },
  { name: 'DeleteOptions of a group version nobody serves', body: '{"kind":"DeleteOptions","apiVersion":"nowhere.example.com/v9"}' },
  { name: 'an empty apiVersion and kind, as left out', body: '{"apiVersion":"","kind":""}' },
  { name: 'JSON null, as empty options', body: 'null' },
];

describe('DELETE bodies that do not decode are 400 in the decoder\'s words', () => {
  for (const target of ['object', 'collection'] as const) {
    for (const row of deleteRows) {
      test(`${target}: ${row.name}${row.message === undefined ? ' is read' : ' is 400'}`, async () => {
        const ns = await server.newNamespace('decode-words');
        const collection = `/api/v1/namespaces/${ns}/configmaps`;
        assert.equal((await server.request('POST', collection, { body: { metadata: { name: 'c' } } })).status, 201);
        const res = await send('DELETE', target === 'object' ? `${collection}/c` : collection, row.body, row.contentType ?? json);
        if (row.message === undefined) {
          assert.equal(res.status, 200, res.text);
          assert.equal((await server.request('GET', `${collection}/c`)).status, 404);
          return;
        }
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.reason, 'BadRequest');
        assert.equal(res.json.message, row.message);
        assert.equal((await server.request('GET', `${collection}/c`)).status, 200, 'nothing is deleted');
      });
    }
  }
});
