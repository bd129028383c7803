import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { buildOpenApiV2 } from '../../src/endpoints/openapi.ts';
import { toYaml } from '../../src/endpoints/openapi-v2-protobuf.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import { builtinTypes } from './openapi-fixtures.ts';

type Json = Record<string, any>;

const built = buildOpenApiV2(builtinTypes, builtinDefinitions);
const swagger: Json = JSON.parse(built.json);

// A generic Protobuf wire-format reader: a message is its fields by number, each
// occurrence a varint (bigint), a fixed64 (8 bytes) or a length-delimited byte string.

type Field = bigint | Uint8Array;
type Message = Map<number, Field[]>;

function decode(bytes: Uint8Array): Message {
  const fields: Message = new Map();
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      assert.ok(pos < bytes.length, 'truncated varint');
      const b = bytes[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < bytes.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    let value: Field;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = bytes.subarray(pos, pos + 8);
      pos += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      assert.ok(pos + length <= bytes.length, 'truncated field');
      value = bytes.subarray(pos, pos + length);
      pos += length;
    } else assert.fail(`unexpected wire type ${wire}`);
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

const text = new TextDecoder('utf-8', { fatal: true });

function strings(m: Message, field: number): string[] {
  return (m.get(field) ?? []).map((v) => text.decode(v as Uint8Array));
}

function str(m: Message, field: number): string | undefined {
  return strings(m, field)[0];
}

function messages(m: Message, field: number): Message[] {
  return (m.get(field) ?? []).map((v) => decode(v as Uint8Array));
}

function message(m: Message, field: number): Message {
  const list = messages(m, field);
  assert.equal(list.length, 1, `field ${field} present once`);
  return list[0]!;
}

/** Named* pairs (name = 1, value = 2) as a map, in order. */
function namedPairs(list: Message[]): Map<string, Message> {
  return new Map(list.map((pair) => [str(pair, 1)!, message(pair, 2)]));
}

/** vendor_extension (NamedAny list) of a message: name → parsed YAML of Any.yaml (2). */
function extensions(m: Message, field: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, any] of namedPairs(messages(m, field))) out[name] = parseYaml(str(any, 2)!);
  return out;
}

const doc = decode(built.protobuf);
const paths = namedPairs(messages(message(doc, 8), 2)); // Document.paths → Paths.path
const definitions = namedPairs(messages(message(doc, 9), 1)); // Document.definitions → Definitions.additional_properties

// Document.Schema fields used below.
const schemaField = { ref: 1, description: 4, default: 5, required: 19, additionalProperties: 21, type: 22, items: 23, properties: 25, extensions: 31 };

function schemaProperties(schema: Message): Map<string, Message> {
  return namedPairs(messages(message(schema, schemaField.properties), 1));
}

function schemaType(schema: Message): string[] {
  return strings(message(schema, schemaField.type), 1);
}

/** Decoded ParametersItem → the query/path/body parameter's name and location. */
function parameterInfo(item: Message): { name: string; in: string; schemaRef?: string } {
  const parameter = message(item, 1); // ParametersItem.parameter
  if (parameter.has(1)) {
    const body = message(parameter, 1); // BodyParameter
    return { name: str(body, 2)!, in: str(body, 3)!, schemaRef: str(message(body, 5), schemaField.ref) };
  }
  const nonBody = message(parameter, 2);
  const [field] = [...nonBody.keys()];
  const sub = message(nonBody, field!);
  return { name: str(sub, 4)!, in: str(sub, 2)! };
}

describe('Swagger 2.0 JSON', () => {
  test('is Swagger 2.0 titled Kubernetes, with an ETag of its SHA-512', () => {
    assert.equal(swagger.swagger, '2.0');
    assert.equal(swagger.info.title, 'Kubernetes');
    assert.equal(built.etag, createHash('sha512').update(built.json).digest('hex').toUpperCase());
  });

  test('every $ref resolves within definitions and has no type or properties beside it', () => {
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(visit);
      if (value === null || typeof value !== 'object') return;
      const obj = value as Json;
      if (typeof obj.$ref === 'string') {
        assert.match(obj.$ref, /^#\/definitions\//);
        assert.ok(obj.$ref.slice('#/definitions/'.length) in swagger.definitions, obj.$ref);
        assert.equal(obj.type, undefined);
        assert.equal(obj.properties, undefined);
        assert.equal(obj.allOf, undefined);
      }
      for (const v of Object.values(obj)) visit(v);
    };
    visit(swagger);
  });

  test('has no OpenAPI 3 constructs, and publishes Quantity and IntOrString as strings', () => {
    const text = built.json;
    for (const key of ['"oneOf"', '"anyOf"', '"nullable"', '#/components/']) assert.ok(!text.includes(key), key);
    assert.equal(swagger.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'].type, 'string');
    const intOrString = swagger.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
    assert.deepEqual([intOrString.type, intOrString.format], ['string', 'int-or-string']);
  });

  test('PATCH has an inline fieldValidation parameter and the GVK, as kubectl looks for them', () => {
    const patch = swagger.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
    assert.ok(patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query' && p.type === 'string'));
    assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'));
    assert.deepEqual(patch.parameters[0], { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  });

  test('holds the paths of every group-version, sorted', () => {
    const keys = Object.keys(swagger.paths);
    assert.deepEqual(keys, [...keys].sort());
    for (const path of ['/api/', '/api/v1/', '/api/v1/namespaces/{namespace}/pods/{name}', '/apis/apps/v1/deployments', '/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases']) {
      assert.ok(path in swagger.paths, path);
    }
  });
});

describe('Swagger 2.0 Protobuf (gnostic openapi.v2.Document)', () => {
  test('decodes to the same document header', () => {
    assert.equal(str(doc, 1), '2.0');
    const info = message(doc, 2);
    assert.equal(str(info, 1), 'Kubernetes');
    assert.equal(str(info, 2), swagger.info.version);
  });

  test('has the same paths and definitions, in the same order', () => {
    assert.deepEqual([...paths.keys()], Object.keys(swagger.paths));
    assert.deepEqual([...definitions.keys()], Object.keys(swagger.definitions));
  });

  test('every definition keeps its properties, required fields and description', () => {
    for (const [name, schema] of definitions) {
      const json = swagger.definitions[name];
      assert.equal(str(schema, schemaField.description), json.description, name);
      assert.deepEqual(strings(schema, schemaField.required), json.required ?? [], name);
      if (json.properties !== undefined) assert.deepEqual([...schemaProperties(schema).keys()], Object.keys(json.properties), name);
      if (json.type !== undefined) assert.deepEqual(schemaType(schema), [json.type], name);
    }
  });

  test('every operation keeps its ID, action, GVK and parameters', () => {
    const methods: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['patch', 8]];
    for (const [path, item] of paths) {
      for (const [method, field] of methods) {
        const json = swagger.paths[path][method];
        if (json === undefined) {
          assert.ok(!item.has(field), `${method} ${path}`);
          continue;
        }
        const op = message(item, field);
        assert.equal(str(op, 5), json.operationId);
        assert.deepEqual(strings(op, 1), json.tags);
        assert.deepEqual(strings(op, 6), json.produces);
        assert.deepEqual(strings(op, 7), json.consumes);
        const ext = extensions(op, 13);
        assert.equal(ext['x-kubernetes-action'], json['x-kubernetes-action']);
        assert.deepEqual(ext['x-kubernetes-group-version-kind'], json['x-kubernetes-group-version-kind']);
        assert.deepEqual(messages(op, 8).map(parameterInfo).map((p) => p.name), (json.parameters ?? []).map((p: Json) => p.name));
      }
      assert.deepEqual(messages(item, 9).map(parameterInfo).map((p) => [p.name, p.in]), (swagger.paths[path].parameters ?? []).map((p: Json) => [p.name, p.in]));
    }
  });

  test('PATCH of a pod: fieldValidation query parameter, body of kind Patch, GVK extension as YAML', () => {
    const patch = message(paths.get('/api/v1/namespaces/{namespace}/pods/{name}')!, 8);
    assert.equal(str(patch, 5), 'patchCoreV1NamespacedPod');
    const params = messages(patch, 8).map(parameterInfo);
    assert.deepEqual(params[0], { name: 'body', in: 'body', schemaRef: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' });
    assert.ok(params.some((p) => p.name === 'fieldValidation' && p.in === 'query'));
    const gvk = namedPairs(messages(patch, 13)).get('x-kubernetes-group-version-kind')!;
    assert.deepEqual(parseYaml(str(gvk, 2)!), { group: '', kind: 'Pod', version: 'v1' });
    const responses = namedPairs(messages(message(patch, 9), 1));
    const ok = message(message(responses.get('200')!, 1), 2); // ResponseValue.response → Response.schema
    assert.equal(str(message(ok, 1), schemaField.ref), '#/definitions/io.k8s.api.core.v1.Pod');
  });

  test('patch metadata survives as vendor extensions on properties', () => {
    const containers = schemaProperties(definitions.get('io.k8s.api.core.v1.PodSpec')!).get('containers')!;
    assert.deepEqual(schemaType(containers), ['array']);
    assert.deepEqual(extensions(containers, schemaField.extensions), {
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    const item = message(message(containers, schemaField.items), 1);
    assert.equal(str(item, schemaField.ref), '#/definitions/io.k8s.api.core.v1.Container');
    const volumes = schemaProperties(definitions.get('io.k8s.api.core.v1.PodSpec')!).get('volumes')!;
    assert.equal(extensions(volumes, schemaField.extensions)['x-kubernetes-patch-strategy'], 'merge,retainKeys');
    const strategy = schemaProperties(definitions.get('io.k8s.api.apps.v1.DeploymentSpec')!).get('strategy')!;
    assert.equal(str(strategy, schemaField.ref), '#/definitions/io.k8s.api.apps.v1.DeploymentStrategy');
    assert.equal(extensions(strategy, schemaField.extensions)['x-kubernetes-patch-strategy'], 'retainKeys');
  });

  test('definitions carry their GVK, defaults and map values', () => {
    assert.deepEqual(extensions(definitions.get('io.k8s.api.core.v1.Pod')!, schemaField.extensions)['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
    const protocol = schemaProperties(definitions.get('io.k8s.api.core.v1.ServicePort')!).get('protocol')!;
    assert.equal(parseYaml(str(message(protocol, schemaField.default), 2)!), 'TCP');
    const data = schemaProperties(definitions.get('io.k8s.api.core.v1.ConfigMap')!).get('data')!;
    const values = message(message(data, schemaField.additionalProperties), 1); // AdditionalPropertiesItem.schema
    assert.deepEqual(schemaType(values), ['string']);
  });

  test('security definitions name the bearer token', () => {
    const security = namedPairs(messages(message(doc, 13), 1));
    const apiKey = message(security.get('BearerToken')!, 2);
    assert.deepEqual([str(apiKey, 1), str(apiKey, 2), str(apiKey, 3)], ['apiKey', 'authorization', 'header']);
    const requirement = namedPairs(messages(message(doc, 12), 1));
    assert.deepEqual([...requirement.keys()], ['BearerToken']);
  });
});

describe('YAML of vendor extension values', () => {
  const cases: [string, unknown][] = [
    ['plain word', 'merge'],
    ['comma list', 'merge,retainKeys'],
    ['empty string', ''],
    ['string that looks like a boolean', 'true'],
    ['string that looks like a number', '1.0'],
    ['string with quotes and newlines', 'a "b"\nc: d'],
    ['non-ASCII string', 'Größe'],
    ['integer', 42],
    ['boolean', false],
    ['null', null],
    ['list of strings', ['containerPort', 'protocol']],
    ['empty list', []],
    ['list of flat maps', [{ group: '', kind: 'Pod', version: 'v1' }]],
    ['flat map', { group: 'apps', kind: 'Deployment', version: 'v1' }],
    ['nested value', [{ rule: 'self > 0', nested: { a: [1, 2] } }]],
  ];
  for (const [name, value] of cases) {
    test(`${name} reads back unchanged`, () => {
      assert.deepEqual(parseYaml(toYaml(value)), value);
    });
  }
});
