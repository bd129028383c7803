import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StatusCause } from '../../src/api/index.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import { schemaRef } from '../../src/schema/builtin/index.ts';
import type { Definitions, Schema } from '../../src/schema/types.ts';
import { builtinValidation, customResourceValidation, validate, type ValidateOptions } from '../../src/schema/validate.ts';

/** Causes as `field: message` lines (reason checked separately where it matters). */
function lines(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}

const crd = { enums: true, formats: true, listTypes: true };

interface Case {
  name: string;
  schema: Schema;
  value: unknown;
  opts?: ValidateOptions;
  defs?: Definitions;
  want: string[];
}

const obj = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });

describe('validate: types', () => {
  const cases: Case[] = [
    { name: 'a string in an integer field', schema: obj({ spec: obj({ replicas: { type: 'integer' } }) }), value: { spec: { replicas: 'three' } },
      want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'] },
    { name: 'a fraction in an integer field', schema: obj({ n: { type: 'integer' } }), value: { n: 1.5 },
      want: ['n: Invalid value: "number": n in body must be of type integer: "number"'] },
    { name: 'an integer is a number', schema: obj({ n: { type: 'number' } }), value: { n: 2 }, want: [] },
    { name: 'an object where a string belongs', schema: obj({ s: { type: 'string' } }), value: { s: { a: 1 } },
      want: ['s: Invalid value: "object": s in body must be of type string: "object"'] },
    { name: 'a list where an object belongs', schema: obj({ o: obj({}) }), value: { o: [1] },
      want: ['o: Invalid value: "array": o in body must be of type object: "array"'] },
    { name: 'a boolean where a list belongs', schema: obj({ l: { type: 'array', items: { type: 'string' } } }), value: { l: true },
      want: ['l: Invalid value: "boolean": l in body must be of type array: "boolean"'] },
    { name: 'list items are checked with their index', schema: obj({ l: { type: 'array', items: obj({ n: { type: 'integer' } }) } }), value: { l: [{ n: 1 }, { n: 'x' }] },
      want: ['l[1].n: Invalid value: "string": l[1].n in body must be of type integer: "string"'] },
    { name: 'map values are checked under their key', schema: obj({ m: { type: 'object', additionalProperties: { type: 'string' } } }), value: { m: { a: 'x', b: 2 } },
      want: ['m.b: Invalid value: "integer": m.b in body must be of type string: "integer"'] },
    // Decoding drops such a null first; it reaches validation only in apply of a custom resource.
    { name: 'a null in a field that allows none is a type error', schema: obj({ t: { type: 'string' } }), value: { t: null }, opts: { nullsAreValues: true },
      want: ['t: Invalid value: "null": t in body must be of type string: "null"'] },
    { name: "a built-in type's null is its zero value: absent", schema: obj({ t: { type: 'string' } }), value: { t: null }, want: [] },
    { name: 'a null list item is a type error', schema: obj({ l: { type: 'array', items: { type: 'string' } } }), value: { l: [null] },
      want: ['l[0]: Invalid value: "null": l[0] in body must be of type string: "null"'] },
    { name: 'nullable admits null', schema: obj({ l: { type: 'array', items: { type: 'string', nullable: true } } }), value: { l: [null] }, want: [] },
    { name: 'int-or-string takes an integer', schema: obj({ p: { 'x-kubernetes-int-or-string': true } }), value: { p: 80 }, want: [] },
    { name: 'int-or-string takes a string', schema: obj({ p: { 'x-kubernetes-int-or-string': true } }), value: { p: 'http' }, want: [] },
    { name: 'int-or-string refuses a boolean', schema: obj({ p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }), value: { p: true },
      want: ['p: Invalid value: "boolean": p in body must be of type integer,string: "boolean"'] },
    { name: 'a schema without a type takes anything', schema: obj({ any: { 'x-kubernetes-preserve-unknown-fields': true } }), value: { any: [1, 'a', { b: null }] }, want: [] },
    { name: 'with formats, an integer format is named for a non-string of the wrong type (kube-openapi)',
      schema: obj({ n: { type: 'integer', format: 'int32' } }), value: { n: true }, opts: crd,
      want: ['n: Invalid value: "": n in body must be of type int32: ""'] },
    { name: 'without formats, the type is named', schema: obj({ n: { type: 'integer', format: 'int32' } }), value: { n: true },
      want: ['n: Invalid value: "boolean": n in body must be of type integer: "boolean"'] },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(lines(validate(c.defs ?? {}, c.schema, c.value, c.opts)), c.want));
  }

  test('type errors have reason FieldValueTypeInvalid', () => {
    const [cause] = validate({}, obj({ n: { type: 'integer' } }), { n: 'x' });
    assert.deepEqual(cause, {
      reason: 'FieldValueTypeInvalid',
      field: 'n',
      message: 'Invalid value: "string": n in body must be of type integer: "string"',
    });
  });
});

describe('validate: required', () => {
  const cases: Case[] = [
    { name: 'a missing required field', schema: obj({ spec: obj({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['a', 'b'] }) }), value: { spec: { a: 'x' } },
      want: ['spec.b: Required value'] },
    { name: 'a null required field is there, with the wrong type', schema: obj({ a: { type: 'string' } }, { required: ['a'] }), value: { a: null }, opts: { nullsAreValues: true },
      want: ['a: Invalid value: "null": a in body must be of type string: "null"'] },
    { name: "a built-in type's null required field is missing", schema: obj({ a: { type: 'string' } }, { required: ['a'] }), value: { a: null },
      want: ['a: Required value'] },
    { name: 'a null required nullable field is there', schema: obj({ a: { type: 'string', nullable: true } }, { required: ['a'] }), value: { a: null }, want: [] },
    { name: 'required at the root', schema: obj({ spec: obj({}) }, { required: ['spec'] }), value: {}, want: ['spec: Required value'] },
    { name: 'required inside list items', schema: obj({ l: { type: 'array', items: obj({ k: { type: 'string' } }, { required: ['k'] }) } }), value: { l: [{ k: 'a' }, {}] },
      want: ['l[1].k: Required value'] },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(lines(validate(c.defs ?? {}, c.schema, c.value, c.opts)), c.want));
  }

  test('required causes have reason FieldValueRequired', () => {
    assert.equal(validate({}, obj({ a: { type: 'string' } }, { required: ['a'] }), {})[0]!.reason, 'FieldValueRequired');
  });
});

describe('validate: value checks', () => {
  const cases: Case[] = [
    { name: 'enum is enforced when asked', schema: obj({ e: { type: 'string', enum: ['A', 'B'] } }), value: { e: 'C' }, opts: crd,
      want: ['e: Unsupported value: "C": supported values: "A", "B"'] },
    { name: 'enum is documentation for built-in types', schema: obj({ e: { type: 'string', enum: ['A', 'B'] } }), value: { e: 'C' }, want: [] },
    { name: 'non-string enum values are listed as JSON', schema: obj({ e: { type: 'integer', enum: [1, 2] } }), value: { e: 3 }, opts: crd,
      want: ['e: Unsupported value: 3: supported values: "1", "2"'] },
    { name: 'an object enum value matches with its members in another order (maps compare as Go maps)',
      schema: obj({ e: { type: 'object', enum: [{ a: 1, b: 2 }] } }), value: { e: { b: 2, a: 1 } }, opts: crd, want: [] },
    { name: 'an object value not in the enum is written as JSON, keys sorted',
      schema: obj({ e: { type: 'object', enum: [{ a: 1 }] } }), value: { e: { b: ['<x>'], a: 2 } }, opts: crd,
      want: ['e: Unsupported value: {"a":2,"b":["\\u003cx\\u003e"]}: supported values: "{\\"a\\":1}"'] },
    { name: 'pattern', schema: obj({ s: { type: 'string', pattern: '^[a-z]+$' } }), value: { s: 'A1' },
      want: ['s: Invalid value: "A1": s in body should match \'^[a-z]+$\''] },
    { name: 'pattern with (?i) matches either case, as Go\'s regexp', schema: obj({ s: { type: 'string', pattern: '^(?i)(abort|warn)?$' } }), value: { s: 'WARN' }, want: [] },
    { name: 'pattern with (?i) refuses what it does not match', schema: obj({ s: { type: 'string', pattern: '^(?i)(abort|warn)?$' } }), value: { s: 'stop' },
      want: ['s: Invalid value: "stop": s in body should match \'^(?i)(abort|warn)?$\''] },
    { name: 'pattern \\z ends the text', schema: obj({ s: { type: 'string', pattern: '^[a-z]+\\z' } }), value: { s: 'abc\n' },
      want: ['s: Invalid value: "abc\\n": s in body should match \'^[a-z]+\\z\''] },
    { name: 'pattern $ without (?m) is the end of the text only', schema: obj({ s: { type: 'string', pattern: '^[a-z]+$' } }), value: { s: 'abc\nd' },
      want: ['s: Invalid value: "abc\\nd": s in body should match \'^[a-z]+$\''] },
    { name: 'pattern [[:alpha:]] is ASCII letters', schema: obj({ s: { type: 'string', pattern: '^[[:alpha:]]+$' } }), value: { s: 'abé' },
      want: ['s: Invalid value: "abé": s in body should match \'^[[:alpha:]]+$\''] },
    { name: 'pattern \\w is ASCII, as in Go', schema: obj({ s: { type: 'string', pattern: '^\\w+$' } }), value: { s: 'Straße' },
      want: ['s: Invalid value: "Straße": s in body should match \'^\\w+$\''] },
    { name: 'pattern matches anywhere unless anchored', schema: obj({ s: { type: 'string', pattern: '[0-9]' } }), value: { s: 'ab1' }, want: [] },
    { name: 'maxLength counts characters', schema: obj({ s: { type: 'string', maxLength: 3 } }), value: { s: 'ääää' },
      want: ['s: Too long: may not be more than 3 bytes'] },
    { name: 'maxLength met', schema: obj({ s: { type: 'string', maxLength: 3 } }), value: { s: 'äää' }, want: [] },
    { name: 'minLength', schema: obj({ s: { type: 'string', minLength: 2 } }), value: { s: 'a' },
      want: ['s: Invalid value: "a": s in body should be at least 2 chars long'] },
    { name: 'maximum', schema: obj({ n: { type: 'integer', maximum: 10 } }), value: { n: 11 },
      want: ['n: Invalid value: 11: n in body should be less than or equal to 10'] },
    { name: 'exclusive maximum', schema: obj({ n: { type: 'number', maximum: 10, exclusiveMaximum: true } }), value: { n: 10 },
      want: ['n: Invalid value: 10: n in body should be less than 10'] },
    { name: 'minimum', schema: obj({ n: { type: 'number', minimum: 0.5 } }), value: { n: 0.25 },
      want: ['n: Invalid value: 0.25: n in body should be greater than or equal to 0.5'] },
    { name: 'exclusive minimum', schema: obj({ n: { type: 'integer', minimum: 0, exclusiveMinimum: true } }), value: { n: 0 },
      want: ['n: Invalid value: 0: n in body should be greater than 0'] },
    { name: 'multipleOf', schema: obj({ n: { type: 'integer', multipleOf: 5 } }), value: { n: 12 },
      want: ['n: Invalid value: 12: n in body should be a multiple of 5'] },
    { name: 'minItems', schema: obj({ l: { type: 'array', items: { type: 'string' }, minItems: 2 } }), value: { l: ['a'] },
      want: ['l: Invalid value: 1: l in body should have at least 2 items'] },
    { name: 'maxItems', schema: obj({ l: { type: 'array', items: { type: 'string' }, maxItems: 1 } }), value: { l: ['a', 'b'] },
      want: ['l: Too many: 2: must have at most 1 items'] },
    { name: 'minProperties', schema: obj({ m: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 } }), value: { m: {} },
      want: ['m: Invalid value: 0: m in body should have at least 1 properties'] },
    { name: 'maxProperties', schema: obj({ m: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 } }), value: { m: { a: 'x', b: 'y' } },
      want: ['m: Too many: 2: must have at most 1 items'] },
    { name: 'format date-time', schema: obj({ t: { type: 'string', format: 'date-time' } }), value: { t: 'yesterday' }, opts: crd,
      want: ['t: Invalid value: "yesterday": t in body must be of type date-time: "yesterday"'] },
    { name: 'format date-time accepted', schema: obj({ t: { type: 'string', format: 'date-time' } }), value: { t: '2024-02-29T12:00:00.5+01:00' }, opts: crd, want: [] },
    { name: 'format uuid', schema: obj({ u: { type: 'string', format: 'uuid' } }), value: { u: 'not-a-uuid' }, opts: crd,
      want: ['u: Invalid value: "not-a-uuid": u in body must be of type uuid: "not-a-uuid"'] },
    { name: 'format ipv4', schema: obj({ ip: { type: 'string', format: 'ipv4' } }), value: { ip: '10.0.0.300' }, opts: crd,
      want: ['ip: Invalid value: "10.0.0.300": ip in body must be of type ipv4: "10.0.0.300"'] },
    { name: 'format byte', schema: obj({ b: { type: 'string', format: 'byte' } }), value: { b: 'aGVsbG8=' }, opts: crd, want: [] },
    { name: 'an unknown format is ignored', schema: obj({ s: { type: 'string', format: 'colour' } }), value: { s: 'blue' }, opts: crd, want: [] },
    { name: 'formats are not checked unless asked', schema: obj({ t: { type: 'string', format: 'date-time' } }), value: { t: 'yesterday' }, want: [] },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(lines(validate(c.defs ?? {}, c.schema, c.value, c.opts)), c.want));
  }
});

describe('validate: oneOf, anyOf, allOf, not', () => {
  const cases: Case[] = [
    { name: 'oneOf with none valid: the composite error and the closest branch\'s causes',
      schema: obj({ x: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] } }), value: { x: {} },
      want: ['<nil>: Invalid value: "": "x" must validate one and only one schema (oneOf). Found none valid', 'x.a: Required value'] },
    { name: 'oneOf with two valid', schema: obj({ x: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] } }), value: { x: { a: 1, b: 2 } },
      want: ['<nil>: Invalid value: "": "x" must validate one and only one schema (oneOf). Found 2 valid alternatives'] },
    { name: 'oneOf with one valid', schema: obj({ x: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] } }), value: { x: { b: 1 } }, want: [] },
    { name: 'anyOf with none valid', schema: obj({ s: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] } }), value: { s: 'c' },
      want: ['<nil>: Invalid value: "": "s" must validate at least one schema (anyOf)', 's: Invalid value: "c": s in body should match \'^a\''] },
    { name: 'anyOf with one valid', schema: obj({ s: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] } }), value: { s: 'b' }, want: [] },
    { name: 'allOf reports every failing branch', schema: obj({ s: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^a' }] } }), value: { s: 'b' },
      want: [
        's: Invalid value: "b": s in body should be at least 2 chars long',
        's: Invalid value: "b": s in body should match \'^a\'',
        '<nil>: Invalid value: "": "s" must validate all the schemas (allOf). None validated',
      ] },
    { name: 'not', schema: obj({ s: { type: 'string', not: { pattern: '^forbidden$' } } }), value: { s: 'forbidden' },
      want: ['<nil>: Invalid value: "": "s" must not validate the schema (not)'] },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(lines(validate(c.defs ?? {}, c.schema, c.value, c.opts)), c.want));
  }
});

describe('validate: list types', () => {
  const setOf = (items: Schema): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'set' });
  const mapOf = (keys: string[]): Schema => ({
    type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys,
    items: obj({ name: { type: 'string' }, port: { type: 'integer' }, v: { type: 'string' } }),
  });
  const cases: Case[] = [
    { name: 'a set with a repeated item: its second occurrence', schema: obj({ s: setOf({ type: 'string' }) }), value: { s: ['a', 'b', 'a', 'a'] }, opts: crd,
      want: ['s[2]: Duplicate value: "a"'] },
    { name: 'a set of numbers', schema: obj({ s: setOf({ type: 'integer' }) }), value: { s: [1, 2, 2] }, opts: crd, want: ['s[2]: Duplicate value: 2'] },
    { name: 'a map list with a repeated key', schema: obj({ l: mapOf(['name']) }), value: { l: [{ name: 'a', v: '1' }, { name: 'a', v: '2' }] }, opts: crd,
      want: ['l[1]: Duplicate value: {"name":"a"}'] },
    { name: 'a map list with two keys', schema: obj({ l: mapOf(['name', 'port']) }), value: { l: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }, { name: 'a', port: 1 }] }, opts: crd,
      want: ['l[2]: Duplicate value: {"name":"a","port":1}'] },
    { name: 'a set of objects with a repeated item', schema: obj({ s: setOf({ type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { b: { type: 'integer' }, a: { type: 'integer' } } }) }),
      value: { s: [{ b: 1, a: 2 }, { b: 1, a: 2 }] }, opts: crd, want: ['s[1]: Duplicate value: {"a":2,"b":1}'] },
    { name: 'a map list item that is not an object', schema: obj({ l: { ...mapOf(['name']), items: { type: 'string' } } }), value: { l: ['x'] }, opts: { listTypes: true },
      want: ['l[0]: Invalid value: "x": must be an object for an array of list-type map'] },
    { name: 'uniqueness is not checked for built-in types (their own validation does)', schema: obj({ s: setOf({ type: 'string' }) }), value: { s: ['a', 'a'] }, want: [] },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(lines(validate(c.defs ?? {}, c.schema, c.value, c.opts)), c.want));
  }

  test('duplicates have reason FieldValueDuplicate', () => {
    assert.equal(validate({}, obj({ s: setOf({ type: 'string' }) }), { s: ['a', 'a'] }, crd)[0]!.reason, 'FieldValueDuplicate');
  });
});

describe('validate: embedded resources and resource roots', () => {
  const embedded: Schema = obj({
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  });
  const cases: Case[] = [
    { name: 'an embedded resource needs apiVersion and kind', schema: embedded, value: { template: { metadata: {} } },
      want: ['template.apiVersion: Required value: must not be empty', 'template.kind: Required value: must not be empty'] },
    { name: 'an embedded resource with them', schema: embedded, value: { template: { apiVersion: 'v1', kind: 'Pod', spec: {} } }, want: [] },
    { name: 'an embedded kind must be a string', schema: embedded, value: { template: { apiVersion: 'v1', kind: 1 } },
      want: ['template.kind: Invalid value: 1: must be a string'] },
    { name: 'an embedded apiVersion that is an object', schema: embedded, value: { template: { apiVersion: { v: 1 }, kind: 'Pod' } },
      want: ['template.apiVersion: Invalid value: {"v":1}: must be a string'] },
    { name: 'a resource root leaves metadata to ObjectMeta validation', schema: obj({ metadata: obj({ name: { type: 'string' } }) }),
      value: { metadata: { name: 5 } }, opts: { isResourceRoot: true }, want: [] },
    { name: 'elsewhere metadata is a field like any', schema: obj({ metadata: obj({ name: { type: 'string' } }) }),
      value: { metadata: { name: 5 } },
      want: ['metadata.name: Invalid value: "integer": metadata.name in body must be of type string: "integer"'] },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(lines(validate(c.defs ?? {}, c.schema, c.value, c.opts)), c.want));
  }
});

describe('validate: built-in schemas', () => {
  const defs = builtinDefinitions;
  const deployment = { $ref: schemaRef('io.k8s.api.apps.v1.Deployment') };
  const pod = { $ref: schemaRef('io.k8s.api.core.v1.Pod') };
  const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const check = (schema: Schema, value: unknown) => lines(validate(defs, schema, value, builtinValidation));

  test('a valid Deployment as kubectl sends it, creationTimestamp: null included', () => {
    assert.deepEqual(check(deployment, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', creationTimestamp: null },
      spec: { replicas: 2, selector: { matchLabels: { app: 'a' } }, template, strategy: {} }, status: {},
    }), []);
  });

  test('a string replicas is named like upstream', () => {
    assert.deepEqual(check(deployment, { metadata: { name: 'd' }, spec: { replicas: 'string', selector: {}, template } }), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  test('Quantity is a string or a number', () => {
    const withLimits = (cpu: unknown) => ({
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu } } }] },
    });
    assert.deepEqual(check(pod, withLimits('500m')), []);
    assert.deepEqual(check(pod, withLimits(2)), []);
    assert.deepEqual(check(pod, withLimits(true)), [
      'spec.containers[0].resources.limits.cpu: Invalid value: "boolean": spec.containers[0].resources.limits.cpu in body must be of type string,number: "boolean"',
    ]);
  });

  test('IntOrString is an integer or a string', () => {
    const withPort = (port: unknown) => ({
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', readinessProbe: { httpGet: { port } } }] },
    });
    assert.deepEqual(check(pod, withPort(8080)), []);
    assert.deepEqual(check(pod, withPort('http')), []);
    assert.deepEqual(check(pod, withPort(['x'])), [
      'spec.containers[0].readinessProbe.httpGet.port: Invalid value: "array": spec.containers[0].readinessProbe.httpGet.port in body must be of type integer,string: "array"',
    ]);
  });

  test('enum values of built-in types are not enforced (their validation is hand-written)', () => {
    assert.deepEqual(check(deployment, { metadata: { name: 'd' }, spec: { selector: {}, template, strategy: { type: 'Sideways' } } }), []);
  });

  test('required fields of built-in types are', () => {
    assert.deepEqual(check(deployment, { metadata: { name: 'd' }, spec: {} }), ['spec.selector: Required value', 'spec.template: Required value']);
    assert.deepEqual(check(pod, { metadata: { name: 'p' }, spec: { containers: [{ image: 'i' }] } }), ['spec.containers[0].name: Required value']);
  });

  test('RawExtension and FieldsV1 take anything', () => {
    assert.deepEqual(lines(validate(defs, { $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent') }, { type: 'ADDED', object: { any: ['thing'] } })), []);
  });

  test('custom resource validation turns everything on', () => {
    assert.deepEqual(customResourceValidation, { enums: true, formats: true, listTypes: true, isResourceRoot: true, nullsAreValues: true });
    assert.deepEqual(builtinValidation, { isResourceRoot: true });
  });
});
