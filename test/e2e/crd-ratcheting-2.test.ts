// CRD validation ratcheting (CRDValidationRatcheting, GA), its rarer cases. Numbers: a value
// is unchanged when CorrelatedObject.CachedDeepEqual (apiserver/pkg/cel/common/equality.go)
// finds it reflect.DeepEqual to the stored one, so an int64 and a float64 of one value differ;
// what a body decodes to decides: JSON `1` is an int64 (sigs.k8s.io/json), YAML's `1.0` is
// written as JSON `1` by YAMLToJSON and decoded so too, JSON's `1.0` stays a float64 (which
// Plinth's decoding cannot tell from `1`: that case is not ratcheted upstream and is here).
// Composition: kube-openapi builds the allOf/anyOf/oneOf/not branches as plain validators
// (SchemaValidatorOptions.Options() hands them no NewValidatorForField), so nothing inside a
// branch ratchets on its own: a branch's failures ratchet only with the value that has the
// branch (ratchetingValueValidator.Validate, apiextensions-apiserver's validation/ratcheting.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { putChangedSpec, replaceCrdSchema } from '../helpers/crds.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { causesOf, warningsOf } from '../helpers/answers.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const group = 'ratchet2.example.com';
const apiVersion = `${group}/v1`;

let server: TestServer;
let namespace: string;

/** An object of two strings, with `composition` when the schema is tight. */
function box(tight: boolean, composition: Json): Json {
  return { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, ...(tight ? composition : {}) };
}

const aAtMost3 = { properties: { a: { maxLength: 3 } } };

/** The schema of Gauges; `tight` adds what the stored objects fail (or pass only without ratcheting). */
function gaugeSchema(tight: boolean): Json {
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            b: { type: 'string' },
            count: { type: 'integer', ...(tight ? { maximum: 0 } : {}) },
            level: { type: 'number', ...(tight ? { 'x-kubernetes-validations': [{ rule: 'self <= 0.5', message: 'at most 0.5' }] } : {}) },
            all: box(tight, { allOf: [aAtMost3] }),
            any: box(tight, { anyOf: [aAtMost3, { properties: { b: { maxLength: 1 } } }] }),
            one: box(tight, { oneOf: [aAtMost3, { properties: { b: { maxLength: 3 } } }] }),
            not: box(tight, { not: aAtMost3 }),
          },
        },
      },
    },
  };
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gauges.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'gauges', kind: 'Gauge' },
    versions: [{ name: 'v1', served: true, storage: true, schema: gaugeSchema(false) }],
  },
};

const path = (name = '') => `/apis/${group}/v1/namespaces/${namespace}/gauges${name === '' ? '' : `/${name}`}`;

const legacyBox = { a: 'abcdef', b: 'one' };
const legacySpec = { b: 'one', count: 1, level: 1, all: legacyBox, any: legacyBox, one: legacyBox, not: legacyBox };

/** The Gauges stored under the loose schema, one per test. */
const names = ['count-json', 'count-yaml', 'level-json', 'level-yaml', 'all', 'all-kept', 'any', 'one', 'not'];

/** Replaces the stored object's spec with what `change` makes of it. */
function updateSpec(name: string, change: (spec: Json) => void) {
  return putChangedSpec(server, path(name), change);
}

/** PUTs the stored object, spec.b changed, as JSON text whose spec.`field` is written `literal`. */
async function updateWritten(name: string, field: string, literal: string) {
  const stored = (await server.request('GET', path(name))).json;
  stored.spec.b = 'two';
  const text = JSON.stringify(stored).replace(`"${field}":1`, `"${field}":${literal}`);
  assert.ok(text.includes(`"${field}":${literal}`), text);
  return server.request('PUT', path(name), { raw: text, headers: { 'content-type': 'application/json' } });
}

/** PUTs the stored object as YAML, spec.b changed and spec.`field` written `1.0`. */
async function updateAsYaml(name: string, field: string) {
  const stored = (await server.request('GET', path(name))).json;
  const yaml = [
    `apiVersion: ${apiVersion}`, 'kind: Gauge',
    'metadata:', `  name: ${name}`, `  namespace: ${namespace}`, `  resourceVersion: "${stored.metadata.resourceVersion}"`,
    'spec:', '  b: two', `  ${field}: 1.0`,
  ].join('\n');
  return server.request('PUT', path(name), { raw: yaml, headers: { 'content-type': 'application/yaml' } });
}

before(async () => {
  server = await startServer();
  namespace = await server.newNamespace('ratchet2');
  let res = await server.request('POST', crdsPath, { body: crd });
  assert.equal(res.status, 201, res.text);
  await eventually(async () => assert.equal((await server.request('GET', path())).status, 200), { what: 'gauges to be served' });
  for (const name of names) {
    res = await server.request('POST', path(), { body: { apiVersion, kind: 'Gauge', metadata: { name }, spec: structuredClone(legacySpec) } });
    assert.equal(res.status, 201, res.text);
  }
  await replaceCrdSchema(server, `gauges.${group}`, gaugeSchema(true), { path: path(), body: { apiVersion, kind: 'Gauge', metadata: { name: 'probe' }, spec: { count: 1 } } });
});
after(async () => {
  await server?.stop();
});

describe('a number left as it was', () => {
  test('written as the same integer, it is unchanged: its schema error and its rule\'s failure ratchet', async () => {
    let res = await updateWritten('count-json', 'count', '1');
    assert.equal(res.status, 200, res.text);
    res = await updateWritten('level-json', 'level', '1');
    assert.equal(res.status, 200, res.text);
    assert.ok(warningsOf(res).includes('spec.level: Invalid value: 1: at most 0.5'), String(res.headers.warning));
  });

  test('written 1.0 in YAML, it is unchanged (YAMLToJSON writes it 1, an int64 again)', async () => {
    let res = await updateAsYaml('count-yaml', 'count');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.spec.count, 1);
    res = await updateAsYaml('level-yaml', 'level');
    assert.equal(res.status, 200, res.text);
  });
});

describe('checks inside allOf, anyOf, oneOf and not', () => {
  test('allOf: an unchanged property failing in a branch is refused once the value with the branch changes', async () => {
    const res = await updateSpec('all', (spec) => { spec.all.b = 'two'; });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), [
      'spec.all.a: Too long: may not be more than 3 bytes',
      '<nil>: Invalid value: "": "spec.all" must validate all the schemas (allOf). None validated',
      // The too-long value blocks the rules (hasBlockingErr).
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  test('allOf: the value with the branch left as it was ratchets the branch\'s failures', async () => {
    const res = await updateSpec('all-kept', (spec) => { spec.b = 'two'; spec.count = 0; spec.level = 0; });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.spec.all.a, 'abcdef');
  });

  test('anyOf: a branch failing only at an unchanged property does not match', async () => {
    const res = await updateSpec('any', (spec) => { spec.any.b = 'two'; });
    assert.equal(res.status, 422, res.text);
    assert.ok(causesOf(res).includes('<nil>: Invalid value: "": "spec.any" must validate at least one schema (anyOf)'), res.text);
  });

  test('oneOf: a branch failing only at an unchanged property does not count as a second match', async () => {
    const res = await updateSpec('one', (spec) => { spec.one.b = 'two'; });
    assert.equal(res.status, 200, res.text);
  });

  test('not: a branch failing only at an unchanged property still fails, so not holds', async () => {
    const res = await updateSpec('not', (spec) => { spec.not.b = 'two'; });
    assert.equal(res.status, 200, res.text);
  });
});
