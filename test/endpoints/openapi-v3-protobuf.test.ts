import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

// gnostic's openapi.v3 messages (github.com/google/gnostic-models, openapiv3/OpenAPIv3.proto),
// those a Kubernetes document uses and what they hold, by upstream's field numbers.
const root = protobuf.parse(`
syntax = "proto3";
package openapi.v3;
import "google/protobuf/any.proto";
message AdditionalPropertiesItem { oneof oneof { SchemaOrReference schema_or_reference = 1; bool boolean = 2; } }
message Any { google.protobuf.Any value = 1; string yaml = 2; }
message Components {
  SchemasOrReferences schemas = 1; SecuritySchemesOrReferences security_schemes = 7;
  repeated NamedAny specification_extension = 10;
}
message DefaultType { oneof oneof { double number = 1; bool boolean = 2; string string = 3; } }
message Document {
  string openapi = 1; Info info = 2; Paths paths = 4; Components components = 5;
  repeated SecurityRequirement security = 6; repeated NamedAny specification_extension = 9;
}
message Info { string title = 1; string description = 2; string version = 6; repeated NamedAny specification_extension = 7; }
message ItemsItem { repeated SchemaOrReference schema_or_reference = 1; }
message MediaType { SchemaOrReference schema = 1; Any example = 2; repeated NamedAny specification_extension = 5; }
message MediaTypes { repeated NamedMediaType additional_properties = 1; }
message NamedAny { string name = 1; Any value = 2; }
message NamedMediaType { string name = 1; MediaType value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponseOrReference { string name = 1; ResponseOrReference value = 2; }
message NamedSchemaOrReference { string name = 1; SchemaOrReference value = 2; }
message NamedSecuritySchemeOrReference { string name = 1; SecuritySchemeOrReference value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated ParameterOrReference parameters = 6; RequestBodyOrReference request_body = 7; Responses responses = 8;
  bool deprecated = 10; repeated SecurityRequirement security = 11; repeated NamedAny specification_extension = 13;
}
message Parameter {
  string name = 1; string in = 2; string description = 3; bool required = 4; bool deprecated = 5;
  bool allow_empty_value = 6; string style = 7; bool explode = 8; bool allow_reserved = 9;
  SchemaOrReference schema = 10; Any example = 11; MediaTypes content = 13; repeated NamedAny specification_extension = 14;
}
message ParameterOrReference { oneof oneof { Parameter parameter = 1; Reference reference = 2; } }
message PathItem {
  string _ref = 1; string summary = 2; string description = 3;
  Operation get = 4; Operation put = 5; Operation post = 6; Operation delete = 7; Operation options = 8;
  Operation head = 9; Operation patch = 10; Operation trace = 11;
  repeated ParameterOrReference parameters = 13; repeated NamedAny specification_extension = 14;
}
message Paths { repeated NamedPathItem path = 1; repeated NamedAny specification_extension = 2; }
message Properties { repeated NamedSchemaOrReference additional_properties = 1; }
message Reference { string _ref = 1; string summary = 2; string description = 3; }
message RequestBody { string description = 1; MediaTypes content = 2; bool required = 3; repeated NamedAny specification_extension = 4; }
message RequestBodyOrReference { oneof oneof { RequestBody request_body = 1; Reference reference = 2; } }
message Response { string description = 1; MediaTypes content = 3; repeated NamedAny specification_extension = 5; }
message ResponseOrReference { oneof oneof { Response response = 1; Reference reference = 2; } }
message Responses {
  ResponseOrReference default = 1; repeated NamedResponseOrReference response_or_reference = 2;
  repeated NamedAny specification_extension = 3;
}
message Schema {
  bool nullable = 1; bool read_only = 3; bool write_only = 4; Any example = 7; bool deprecated = 8; string title = 9;
  double multiple_of = 10; double maximum = 11; bool exclusive_maximum = 12; double minimum = 13; bool exclusive_minimum = 14;
  int64 max_length = 15; int64 min_length = 16; string pattern = 17; int64 max_items = 18; int64 min_items = 19;
  bool unique_items = 20; int64 max_properties = 21; int64 min_properties = 22; repeated string required = 23;
  repeated Any enum = 24; string type = 25; repeated SchemaOrReference all_of = 26; repeated SchemaOrReference one_of = 27;
  repeated SchemaOrReference any_of = 28; Schema not = 29; ItemsItem items = 30; Properties properties = 31;
  AdditionalPropertiesItem additional_properties = 32; DefaultType default = 33; string description = 34; string format = 35;
  repeated NamedAny specification_extension = 36;
}
message SchemaOrReference { oneof oneof { Schema schema = 1; Reference reference = 2; } }
message SchemasOrReferences { repeated NamedSchemaOrReference additional_properties = 1; }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message SecurityScheme {
  string type = 1; string description = 2; string name = 3; string in = 4; string scheme = 5; string bearer_format = 6;
  string open_id_connect_url = 8; repeated NamedAny specification_extension = 9;
}
message SecuritySchemeOrReference { oneof oneof { SecurityScheme security_scheme = 1; Reference reference = 2; } }
message SecuritySchemesOrReferences { repeated NamedSecuritySchemeOrReference additional_properties = 1; }
message StringArray { repeated string value = 1; }
`, { keepCase: true }).root;
root.addJSON(protobuf.common.get('google/protobuf/any.proto')!.nested!);
const DocumentMessage = root.lookupType('openapi.v3.Document');

const protobufAccept = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
const protobufType = 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf';

function decode(bytes: Uint8Array): Json {
  return DocumentMessage.toObject(DocumentMessage.decode(bytes), { longs: Number }) as Json;
}

// The decoded message turned back into the JSON members gnostic's compiler read it from.

/** A value JSON has only when it is not proto3's default. */
function set(out: Json, key: string, value: unknown): void {
  if (value === undefined || value === '' || value === false || value === 0) return;
  if (Array.isArray(value) && value.length === 0) return;
  out[key] = value;
}

function withExtensions(out: Json, list: Json[] | undefined): Json {
  for (const pair of list ?? []) out[pair.name] = parseYaml(pair.value.yaml);
  return out;
}

function pairs<T>(list: Json[] | undefined, value: (v: Json) => T): Record<string, T> {
  return Object.fromEntries((list ?? []).map((p) => [p.name, value(p.value)]));
}

function reference(r: Json): Json {
  const out: Json = { $ref: r._ref };
  set(out, 'summary', r.summary);
  set(out, 'description', r.description);
  return out;
}

function orReference(m: Json, key: string, value: (v: Json) => Json): Json {
  if (m.reference !== undefined) return reference(m.reference);
  assert.ok(m[key] !== undefined, `a ${key} or a reference`);
  return value(m[key]);
}

/** Non-scalar defaults have no DefaultType member: both sides say so with this. */
const noDefaultType = '<no DefaultType member>';

function schema(s: Json): Json {
  const out: Json = {};
  for (const [json, proto] of [['nullable', 'nullable'], ['readOnly', 'read_only'], ['writeOnly', 'write_only'], ['deprecated', 'deprecated'], ['title', 'title'],
    ['multipleOf', 'multiple_of'], ['maximum', 'maximum'], ['exclusiveMaximum', 'exclusive_maximum'], ['minimum', 'minimum'], ['exclusiveMinimum', 'exclusive_minimum'],
    ['maxLength', 'max_length'], ['minLength', 'min_length'], ['pattern', 'pattern'], ['maxItems', 'max_items'], ['minItems', 'min_items'], ['uniqueItems', 'unique_items'],
    ['maxProperties', 'max_properties'], ['minProperties', 'min_properties'], ['required', 'required'], ['type', 'type'], ['description', 'description'], ['format', 'format']]) {
    set(out, json!, s[proto!]);
  }
  if (s.example !== undefined) out.example = parseYaml(s.example.yaml);
  if (s.enum !== undefined) out.enum = s.enum.map((a: Json) => parseYaml(a.yaml));
  for (const [json, proto] of [['allOf', 'all_of'], ['oneOf', 'one_of'], ['anyOf', 'any_of']]) {
    if (s[proto!] !== undefined) out[json!] = s[proto!].map(schemaOrReference);
  }
  if (s.not !== undefined) out.not = schema(s.not);
  if (s.items !== undefined) {
    assert.equal(s.items.schema_or_reference.length, 1);
    out.items = schemaOrReference(s.items.schema_or_reference[0]);
  }
  if (s.properties !== undefined) out.properties = pairs(s.properties.additional_properties, schemaOrReference);
  const additional = s.additional_properties;
  if (additional !== undefined) out.additionalProperties = additional.boolean ?? schemaOrReference(additional.schema_or_reference);
  if (s.default !== undefined) out.default = s.default.number ?? s.default.boolean ?? s.default.string ?? noDefaultType;
  return withExtensions(out, s.specification_extension);
}

function schemaOrReference(m: Json): Json {
  return orReference(m, 'schema', schema);
}

function mediaTypes(m: Json): Json {
  return pairs(m.additional_properties, (media) => {
    const out: Json = {};
    if (media.schema !== undefined) out.schema = schemaOrReference(media.schema);
    return withExtensions(out, media.specification_extension);
  });
}

function parameter(p: Json): Json {
  const out: Json = {};
  for (const key of ['name', 'in', 'description', 'required', 'deprecated', 'style', 'explode']) set(out, key, p[key]);
  set(out, 'allowEmptyValue', p.allow_empty_value);
  set(out, 'allowReserved', p.allow_reserved);
  if (p.schema !== undefined) out.schema = schemaOrReference(p.schema);
  return withExtensions(out, p.specification_extension);
}

function response(r: Json): Json {
  const out: Json = { description: r.description };
  if (r.content !== undefined) out.content = mediaTypes(r.content);
  return withExtensions(out, r.specification_extension);
}

function operation(op: Json): Json {
  const out: Json = {};
  for (const key of ['tags', 'summary', 'description', 'deprecated']) set(out, key, op[key]);
  set(out, 'operationId', op.operation_id);
  if (op.parameters !== undefined) out.parameters = op.parameters.map((p: Json) => orReference(p, 'parameter', parameter));
  if (op.request_body !== undefined) {
    out.requestBody = orReference(op.request_body, 'request_body', (b) => {
      const body: Json = { content: mediaTypes(b.content) };
      set(body, 'required', b.required);
      set(body, 'description', b.description);
      return withExtensions(body, b.specification_extension);
    });
  }
  if (op.responses !== undefined) {
    const rs: Json = pairs(op.responses.response_or_reference, (r) => orReference(r, 'response', response));
    if (op.responses.default !== undefined) rs.default = orReference(op.responses.default, 'response', response);
    out.responses = withExtensions(rs, op.responses.specification_extension);
  }
  return withExtensions(out, op.specification_extension);
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function securityRequirement(r: Json): Json {
  return pairs(r.additional_properties, (scopes) => scopes.value ?? []);
}

/** The JSON document a decoded openapi.v3.Document stands for. */
function documentJson(d: Json): Json {
  const info = withExtensions({ title: d.info.title, version: d.info.version }, d.info.specification_extension);
  const paths = pairs(d.paths.path, (item) => {
    const out: Json = {};
    for (const method of methods) if (item[method] !== undefined) out[method] = operation(item[method]);
    if (item.parameters !== undefined) out.parameters = item.parameters.map((p: Json) => orReference(p, 'parameter', parameter));
    return withExtensions(out, item.specification_extension);
  });
  const out: Json = { openapi: d.openapi, info, paths };
  if (d.components !== undefined) {
    const components: Json = {};
    if (d.components.schemas !== undefined) components.schemas = pairs(d.components.schemas.additional_properties, schemaOrReference);
    if (d.components.security_schemes !== undefined) {
      components.securitySchemes = pairs(d.components.security_schemes.additional_properties, (s) => orReference(s, 'security_scheme', (scheme) => {
        const o: Json = {};
        for (const key of ['type', 'description', 'name', 'in', 'scheme']) set(o, key, scheme[key]);
        return withExtensions(o, scheme.specification_extension);
      }));
    }
    out.components = components;
  }
  if (d.security !== undefined) out.security = d.security.map(securityRequirement);
  return withExtensions(out, d.specification_extension);
}

/** Members whose keys are names (of properties, paths, media types, ...), not fields. */
const maps = new Set(['properties', 'schemas', 'paths', 'content', 'responses', 'securitySchemes', 'security']);

/** The JSON document with what the Protobuf form cannot tell apart made the same. */
function comparable(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => comparable(v, key === 'security' ? key : undefined));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (key !== undefined && maps.has(key)) out[k] = comparable(v);
    // Extension values keep everything (YAML text).
    else if (k.startsWith('x-')) out[k] = v;
    // DefaultType is a oneof of a number, a boolean or a string: written even at proto3's default, and nothing else fits.
    else if (k === 'default' && key !== 'responses') out[k] = v === null || typeof v === 'object' ? noDefaultType : v;
    // Proto3 scalars at their default are not on the wire.
    else if (v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0 && k !== 'enum')) continue;
    else out[k] = comparable(v, k);
  }
  return out;
}

/** The names of each map (properties, paths, ...) in document order, by where the map is: the Protobuf's pairs keep the JSON's order. */
function nameOrders(value: unknown, at = '', key?: string, out: Record<string, string[]> = {}): Record<string, string[]> {
  if (Array.isArray(value)) value.forEach((v, i) => nameOrders(v, `${at}/${i}`, undefined, out));
  else if (value !== null && typeof value === 'object') {
    const names = key !== undefined && maps.has(key);
    if (names) out[at] = Object.keys(value);
    for (const [k, v] of Object.entries(value)) if (!k.startsWith('x-')) nameOrders(v, `${at}/${k}`, names ? undefined : k, out);
  }
  return out;
}

const group = 'protos.example.com';
let server: TestServer;

before(async () => {
  server = await startServer();
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object', required: ['size'],
                'x-kubernetes-validations': [{ rule: 'self.size <= 10', message: 'too big' }],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
                  ratio: { type: 'number', multipleOf: 0.5 },
                  color: { type: 'string', enum: ['red', 'green'], default: 'red', pattern: '^[a-z]+$', maxLength: 10 },
                  port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  enabled: { type: 'boolean', default: false },
                  labels: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
                  ports: {
                    type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, number: { type: 'integer', format: 'int32' } } },
                  },
                  blob: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, nullable: true },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      }],
    },
  };
  const res = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  assert.equal(res.status, 201, res.text);
  await eventually(async () => {
    const index = await server.request('GET', '/openapi/v3');
    assert.ok(index.json.paths[`apis/${group}/v1`], 'the CRD\'s document is listed');
  }, { what: 'the CRD in /openapi/v3' });
});

after(async () => {
  await server?.stop();
});

async function documentUrl(key: string): Promise<string> {
  const index = await server.request('GET', '/openapi/v3');
  const url = index.json.paths[key]?.serverRelativeURL;
  assert.ok(url, `${key} is listed`);
  return url;
}

describe('OpenAPI v3 documents as gnostic Protobuf (openapi.v3.Document)', () => {
  for (const key of ['api/v1', 'apis/apps/v1', `apis/${group}/v1`]) {
    test(`${key}: decodes to the JSON document, its paths, operations, schemas, references and extensions`, async () => {
      const url = await documentUrl(key);
      const json = await server.request('GET', url, { headers: { accept: 'application/json' } });
      assert.equal(json.status, 200);
      assert.equal(json.headers['content-type'], 'application/json');
      const answer = await server.request('GET', url, { headers: { accept: protobufAccept } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-type'], protobufType);
      assert.equal(answer.headers.etag, json.headers.etag, 'the ETag is the JSON document\'s hash');
      assert.equal(answer.headers.vary, 'Accept');
      const decoded = decode(answer.bytes);
      const back = documentJson(decoded);
      assert.deepEqual(back, comparable(json.json));
      assert.deepEqual(nameOrders(back), nameOrders(json.json), 'maps keep the JSON\'s order');
    });
  }

  test('the CRD\'s schema: properties, defaults, enum, int-or-string, list-map keys and CEL rules as extensions', async () => {
    const answer = await server.request('GET', await documentUrl(`apis/${group}/v1`), { headers: { accept: protobufAccept } });
    const decoded = decode(answer.bytes);
    const schemas = new Map(decoded.components.schemas.additional_properties.map((p: Json) => [p.name, p.value]));
    const gadget = (schemas.get('com.example.protos.v1.Gadget') as Json).schema;
    const gvk = gadget.specification_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(parseYaml(gvk.value.yaml), [{ group, kind: 'Gadget', version: 'v1' }]);
    const properties = new Map(gadget.properties.additional_properties.map((p: Json) => [p.name, p.value]));
    const metadata = (properties.get('metadata') as Json).schema;
    assert.equal(metadata.all_of[0].reference._ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const spec = (properties.get('spec') as Json).schema;
    assert.deepEqual(spec.required, ['size']);
    const field = (name: string) => (spec.properties.additional_properties.find((p: Json) => p.name === name).value.schema as Json);
    assert.deepEqual(field('size').default, { number: 1 });
    assert.deepEqual([field('size').minimum, field('size').maximum], [1, 100]);
    assert.deepEqual(field('color').default, { string: 'red' });
    assert.deepEqual(field('color').enum.map((a: Json) => parseYaml(a.yaml)), ['red', 'green']);
    assert.deepEqual(field('enabled').default, { boolean: false }, 'a oneof member is written at its default');
    assert.deepEqual(field('labels').default, {}, 'an object default matches no DefaultType member');
    assert.equal(field('labels').additional_properties.schema_or_reference.schema.type, 'string');
    assert.deepEqual(field('port').any_of.map((s: Json) => s.schema.type), ['integer', 'string']);
    assert.equal(field('blob').nullable, true);
    const ports = field('ports');
    assert.deepEqual(Object.fromEntries(ports.specification_extension.map((e: Json) => [e.name, parseYaml(e.value.yaml)])), {
      'x-kubernetes-list-map-keys': ['name'], 'x-kubernetes-list-type': 'map',
    });
    assert.equal(ports.items.schema_or_reference[0].schema.type, 'object');
    const rules = spec.specification_extension.find((e: Json) => e.name === 'x-kubernetes-validations');
    assert.deepEqual(parseYaml(rules.value.yaml), [{ rule: 'self.size <= 10', message: 'too big' }]);
  });

  test('PATCH of a pod: fieldValidation parameter, its GVK and the request body\'s schema reference', async () => {
    const answer = await server.request('GET', await documentUrl('api/v1'), { headers: { accept: protobufType } });
    assert.equal(answer.headers['content-type'], protobufType, 'the spelling without "@" too');
    const decoded = decode(answer.bytes);
    const item = decoded.paths.path.find((p: Json) => p.name === '/api/v1/namespaces/{namespace}/pods/{name}').value;
    const patch = item.patch;
    assert.equal(patch.operation_id, 'patchCoreV1NamespacedPod');
    assert.ok(patch.parameters.some((p: Json) => p.parameter?.name === 'fieldValidation' && p.parameter.in === 'query'));
    const gvk = patch.specification_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(parseYaml(gvk.value.yaml), { group: '', kind: 'Pod', version: 'v1' });
    const body = patch.request_body.request_body.content.additional_properties;
    assert.equal(body[0].value.schema.reference._ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    const ok = patch.responses.response_or_reference.find((r: Json) => r.name === '200').value.response;
    assert.equal(ok.content.additional_properties[0].value.schema.reference._ref, '#/components/schemas/io.k8s.api.core.v1.Pod');
  });
});

describe('OpenAPI v3 Protobuf negotiation and caching (kube-openapi handler3)', () => {
  test('with its current ?hash= the Protobuf answer never expires; a stale one is a 301 to the current', async () => {
    const url = await documentUrl('apis/apps/v1');
    const fresh = await server.request('GET', url, { headers: { accept: protobufAccept } });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers['cache-control'], 'public, immutable');
    assert.ok(Date.parse(String(fresh.headers.expires)) > Date.now() + 360 * 24 * 3600 * 1000);
    const stale = await server.request('GET', '/openapi/v3/apis/apps/v1?hash=0123', { headers: { accept: protobufAccept } });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
    assert.equal(stale.headers['content-type'], protobufType);
    assert.equal(stale.bytes.length, 0);
  });

  test('without ?hash= it is not cached for long, and its ETag answers 304', async () => {
    const first = await server.request('GET', '/openapi/v3/apis/apps/v1', { headers: { accept: protobufAccept } });
    assert.equal(first.status, 200);
    assert.equal(first.headers['cache-control'], 'no-cache, private');
    const again = await server.request('GET', '/openapi/v3/apis/apps/v1', { headers: { accept: protobufAccept, 'if-none-match': String(first.headers.etag) } });
    assert.equal(again.status, 304);
    assert.equal(again.bytes.length, 0);
  });

  test('Accept picks the first clause handler3 offers: JSON, the Protobuf, or a bare 406', async () => {
    const cases: [accept: string, status: number, type: string | undefined][] = [
      [`${protobufAccept}, application/json`, 200, protobufType],
      [`application/json, ${protobufAccept}`, 200, 'application/json'],
      [`application/json;q=0.5, ${protobufAccept}`, 200, protobufType],
      ['*/*', 200, 'application/json'],
      ['application/*', 200, 'application/json'],
      ['application/yaml', 406, undefined],
      ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 406, undefined],
    ];
    for (const [accept, status, type] of cases) {
      const answer = await server.request('GET', '/openapi/v3/api/v1', { headers: { accept } });
      assert.equal(answer.status, status, accept);
      assert.equal(answer.headers['content-type'], type, accept);
      if (status === 406) assert.equal(answer.bytes.length, 0, accept);
      if (type === protobufType) assert.equal(decode(answer.bytes).openapi, '3.0.0', accept);
    }
  });
});
