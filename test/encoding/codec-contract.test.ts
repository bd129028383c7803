// The codec contract: an object of every served built-in kind, with every field of its
// schema set to a non-zero value, round-trips through every codec that supports it
// (JSON, YAML, Protobuf, CBOR) unchanged, lists included.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { decodeCbor } from '../../src/encoding/cbor.ts';
import { encodeCborObject } from '../../src/encoding/cbor-objects.ts';
import { decodeBody, encodeYaml } from '../../src/encoding/decode.ts';
import { decodeProtobufObject, encodeProtobufObject, hasProtobufDescriptor } from '../../src/encoding/protobuf/index.ts';
import { upstreamResources } from '../../src/registry/builtin/generated/resources.ts';
import { builtinDefinitions } from '../../src/schema/index.ts';
import { loadYaml } from '../../src/api/yaml.ts';

// The YAML library loads on first need; these tests decode and encode YAML synchronously.
await loadYaml();

type Schema = Record<string, any>;

const refPrefix = '#/components/schemas/';

/** Values for the types whose JSON form is their own (a string, a number or a string). */
const specialSamples: Record<string, unknown> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': '2024-01-02T03:04:05Z',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': '2024-01-02T03:04:05.123456Z',
  'io.k8s.apimachinery.pkg.api.resource.Quantity': '1536Mi',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'embedded' }, data: { a: 'b' } },
};

const apiextensions = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

/** A CRD schema inside the sampled one: small, non-zero, and not recursive again. */
const leafSchema = { type: 'string', description: 'leaf', maxLength: 5_000_000_000, 'x-kubernetes-list-type': 'atomic' };

/** Types with several forms alternate between them (IntOrString: a number, a string), so each is covered. */
const turns = new Map<string, number>();
const alternatives: Record<string, () => unknown[]> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': () => [8080, 'http'],
  // A CRD schema's `default`, `example` and `enum` values: any JSON.
  [`${apiextensions}JSON`]: () => [{ a: [1, 'x', true, null, 2.5], b: { c: {} } }, 'text'],
  [`${apiextensions}JSONSchemaPropsOrArray`]: () => [structuredClone(leafSchema), [structuredClone(leafSchema), { type: 'integer' }]],
  [`${apiextensions}JSONSchemaPropsOrBool`]: () => [structuredClone(leafSchema), true],
  [`${apiextensions}JSONSchemaPropsOrStringArray`]: () => [['a', 'b'], structuredClone(leafSchema)],
};

/**
 * A value for a schema with every property set, non-zero: strings name their path,
 * integers are 7 (int32) or beyond 2^32 (int64), booleans true, maps and lists hold one entry.
 * A CRD's schema (JSONSchemaProps, recursive many times over) is sampled in full once, at
 * its root; the schemas in it are small leaves.
 */
function sample(schema: Schema, path: string, depth: number): unknown {
  if (schema.$ref !== undefined) {
    const name = String(schema.$ref).slice(refPrefix.length);
    if (Object.hasOwn(specialSamples, name)) return structuredClone(specialSamples[name]);
    if (Object.hasOwn(alternatives, name)) {
      const turn = turns.get(name) ?? 0;
      turns.set(name, turn + 1);
      const forms = alternatives[name]!();
      return forms[turn % forms.length];
    }
    if (name === `${apiextensions}JSONSchemaProps` && !path.endsWith('.openAPIV3Schema')) return structuredClone(leafSchema);
    return sample(builtinDefinitions[name] as Schema, path, depth);
  }
  if (depth > 30) return undefined;
  if (schema.type === 'object' || schema.properties !== undefined) {
    const out: Record<string, unknown> = {};
    const embedded = depth > 0 && schema.properties?.metadata !== undefined;
    for (const [key, prop] of Object.entries<Schema>(schema.properties ?? {})) {
      // An object embedded in another (a StatefulSet's volumeClaimTemplates) carries no
      // kind and apiVersion in Protobuf: Go's TypeMeta has no field numbers.
      if (embedded && (key === 'apiVersion' || key === 'kind')) continue;
      const value = sample(prop, `${path}.${key}`, depth + 1);
      if (value !== undefined) out[key] = value;
    }
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
      const value = sample(schema.additionalProperties as Schema, `${path}[k]`, depth + 1);
      if (value !== undefined) out['key-1'] = value;
    }
    if (schema.properties === undefined && schema.additionalProperties === undefined && schema['x-kubernetes-preserve-unknown-fields']) out.free = 'form';
    return out;
  }
  if (schema.type === 'array') {
    const item = sample(schema.items as Schema, `${path}[]`, depth + 1);
    return item === undefined ? undefined : [item];
  }
  switch (schema.type) {
    case 'string':
      if (schema.format === 'byte') return Buffer.from(path).toString('base64');
      if (schema.format === 'date-time') return '2024-01-02T03:04:05Z';
      return Array.isArray(schema.enum) && schema.enum.length > 0 ? schema.enum[0] : `v${path.length}`;
    case 'integer':
      return schema.format === 'int32' ? 7 : 5_000_000_000;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}

/** Every served built-in kind, CustomResourceDefinition included. */
const kinds = upstreamResources
  .filter((r) => r.schemaName !== undefined)
  .map((r) => ({ apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`, kind: r.kind, schemaName: r.schemaName! }))
  .filter((k, i, all) => all.findIndex((o) => o.apiVersion === k.apiVersion && o.kind === k.kind) === i);

function objectOf(k: (typeof kinds)[number]): KubeObject {
  const obj = sample(builtinDefinitions[k.schemaName] as Schema, k.kind, 0) as KubeObject;
  return { ...obj, apiVersion: k.apiVersion, kind: k.kind };
}

/** YAML, CBOR and JSON keep numbers' JSON values; Go drops nothing of a fully set object. */
const codecs: { name: string; roundTrip: (obj: KubeObject) => unknown }[] = [
  { name: 'JSON', roundTrip: (obj) => decodeBody('application/json', Buffer.from(JSON.stringify(obj))).value },
  { name: 'YAML', roundTrip: (obj) => decodeBody('application/yaml', Buffer.from(encodeYaml(obj))).value },
  { name: 'Protobuf', roundTrip: (obj) => decodeProtobufObject(encodeProtobufObject(obj)) },
  { name: 'CBOR', roundTrip: (obj) => decodeCbor(encodeCborObject(obj)) },
];

describe('every served kind round-trips through every codec', () => {
  test('the kinds are all there', () => {
    assert.ok(kinds.length > 60, `${kinds.length} kinds`);
    for (const k of kinds) assert.ok(hasProtobufDescriptor(k.apiVersion, k.kind), `${k.apiVersion} ${k.kind} has a Protobuf message`);
  });
  for (const k of kinds) {
    test(`${k.apiVersion} ${k.kind}`, () => {
      const obj = objectOf(k);
      for (const codec of codecs) assert.deepEqual(codec.roundTrip(obj), obj, `${codec.name}`);
      const list = { apiVersion: k.apiVersion, kind: `${k.kind}List`, metadata: { resourceVersion: '12', continue: 'abc', remainingItemCount: 3 }, items: [obj, obj] };
      if (hasProtobufDescriptor(list.apiVersion, list.kind)) {
        // A list's items are messages without an envelope: their kind and apiVersion are the list's.
        const { apiVersion: _a, kind: _k, ...item } = obj;
        assert.deepEqual(decodeProtobufObject(encodeProtobufObject(list as never)), { ...list, items: [item, item] }, 'Protobuf list');
      }
    });
  }
});
