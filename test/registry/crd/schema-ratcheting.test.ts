// CRD validation ratcheting of the OpenAPI schema's checks (CRDValidationRatcheting, GA):
// an update is refused only for what fails at a value it changed, as apiextensions-apiserver's
// RatchetingSchemaValidator (pkg/apiserver/validation/ratcheting.go) decides, with old and
// new values correlated as CorrelatedObject (apiserver/pkg/cel/common/equality.go) does:
// properties by name, map-list items by their keys, items of other lists not at all, a
// required field at the object that lacks it. Creates are never ratcheted; /status writes
// are ratcheted against the stored status (status_strategy.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { putChangedSpec, replaceCrdSchema } from '../../helpers/crds.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { causesOf } from '../../helpers/answers.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const group = 'ratchet.example.com';
const apiVersion = `${group}/v1`;

let server: TestServer;
let namespace: string;

/** The schema of Widgets: every string at most `max` characters long, spec.c required when `requireC`. */
function widgetSchema(max: number, requireC: boolean): Json {
  const text = { type: 'string', maxLength: max };
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          ...(requireC ? { required: ['c'] } : {}),
          properties: {
            a: text,
            b: { type: 'string' },
            c: { type: 'string' },
            entries: {
              type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: text } },
            },
            tags: { type: 'array', items: text },
          },
        },
        status: { type: 'object', properties: { phase: text, count: { type: 'integer' } } },
      },
    },
  };
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: widgetSchema(10, false) }],
  },
};

const path = (name = '') => `/apis/${group}/v1/namespaces/${namespace}/widgets${name === '' ? '' : `/${name}`}`;

const legacySpec = {
  a: 'abcdef',
  b: 'one',
  entries: [{ name: 'x', value: 'abcdef' }, { name: 'y', value: 'abcdef' }],
  tags: ['abcdef'],
};

/** The Widgets stored under the loose schema, one per test. */
const names = ['scalar', 'entries', 'tags', 'required', 'status'];

/** Replaces the stored object's spec (and labels) with what `change` makes of them. */
function updateSpec(name: string, change: (spec: Json) => void, labels?: Record<string, string>) {
  return putChangedSpec(server, path(name), change, labels);
}

before(async () => {
  server = await startServer();
  namespace = await server.newNamespace('ratchet');
  let res = await server.request('POST', crdsPath, { body: crd });
  assert.equal(res.status, 201, res.text);
  await eventually(async () => assert.equal((await server.request('GET', path())).status, 200), { what: 'widgets to be served' });
  // Objects stored under the loose schema, with a status of 6 characters.
  for (const name of names) {
    res = await server.request('POST', path(), { body: { apiVersion, kind: 'Widget', metadata: { name }, spec: structuredClone(legacySpec) } });
    assert.equal(res.status, 201, res.text);
    res = await server.request('PUT', `${path(name)}/status`, { body: { ...res.json, status: { phase: 'abcdef', count: 1 } } });
    assert.equal(res.status, 200, res.text);
  }
  // The schema tightens: strings at most 3 characters, spec.c required.
  await replaceCrdSchema(server, `widgets.${group}`, widgetSchema(3, true), { path: path(), body: { apiVersion, kind: 'Widget', metadata: { name: 'probe' }, spec: { c: 'c', a: 'abcd' } } });
});
after(async () => {
  await server?.stop();
});

describe('ratcheting of schema checks on update', () => {
  test('an update that leaves a too-long value as it was is accepted; one that changes it to another too-long value is refused', async () => {
    let res = await updateSpec('scalar', (spec) => { spec.b = 'two'; spec.c = 'c'; });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.spec.a, 'abcdef');
    res = await updateSpec('scalar', (spec) => { spec.a = 'ghijkl'; });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.a: Too long: may not be more than 3 bytes']);
    res = await updateSpec('scalar', (spec) => { spec.a = 'ok'; });
    assert.equal(res.status, 200, res.text);
  });

  test('a map list\'s items correlate by key: moved items are unchanged, a changed or added one is checked', async () => {
    let res = await updateSpec('entries', (spec) => { spec.entries.reverse(); spec.c = 'c'; });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.entries.map((e: Json) => e.name), ['y', 'x']);
    res = await updateSpec('entries', (spec) => { spec.entries[1].value = 'zzzzzz'; spec.entries.push({ name: 'z', value: 'wwwwww' }); });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), [
      'spec.entries[1].value: Too long: may not be more than 3 bytes',
      'spec.entries[2].value: Too long: may not be more than 3 bytes',
    ]);
  });

  test('items of a list that is not a map list do not correlate: the list is checked whole once it changes', async () => {
    let res = await updateSpec('tags', (spec) => { spec.c = 'c'; });
    assert.equal(res.status, 200, res.text);
    res = await updateSpec('tags', (spec) => { spec.tags.push('ok'); });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.tags[0]: Too long: may not be more than 3 bytes']);
  });

  test('a missing required field is ratcheted with the object that lacks it', async () => {
    let res = await updateSpec('required', () => {}, { touched: 'yes' });
    assert.equal(res.status, 200, res.text);
    res = await updateSpec('required', (spec) => { spec.b = 'two'; });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.c: Required value']);
  });

  test('a status write is ratcheted against the stored status', async () => {
    const stored = (await server.request('GET', path('status'))).json;
    let res = await server.request('PUT', `${path('status')}/status`, { body: { ...stored, status: { phase: 'abcdef', count: 2 } } });
    assert.equal(res.status, 200, res.text);
    res = await server.request('PUT', `${path('status')}/status`, { body: { ...res.json, status: { phase: 'ghijkl', count: 2 } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['status.phase: Too long: may not be more than 3 bytes']);
  });
});

describe('creates', () => {
  test('a create is never ratcheted: a value like a stored one is refused', async () => {
    const res = await server.request('POST', path(), { body: { apiVersion, kind: 'Widget', metadata: { name: 'fresh' }, spec: { ...structuredClone(legacySpec), c: 'c' } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), [
      'spec.a: Too long: may not be more than 3 bytes',
      'spec.entries[0].value: Too long: may not be more than 3 bytes',
      'spec.entries[1].value: Too long: may not be more than 3 bytes',
      'spec.tags[0]: Too long: may not be more than 3 bytes',
    ]);
  });
});
