// CRD validation ratcheting of x-kubernetes-validations rules (CRDValidationRatcheting, GA):
// on an update, a rule failing at a value the update left unchanged only warns (its field
// error as the warning), as apiextensions-apiserver's Validator.validateExpressions decides
// (pkg/apiserver/schema/cel/validation.go, shouldRatchetError), with old and new values
// correlated as CorrelatedObject does (apiserver/pkg/cel/common/equality.go): properties and
// map entries by name (atomic maps too), map-list items by their keys, and an item of any
// other list, which has no old value, by its nearest correlated ancestor, the list. Transition
// rules are never ratcheted; under an atomic map they see the old value as oldSelf.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { putChangedSpec, replaceCrdSchema } from '../../helpers/crds.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { causesOf, warningsOf } from '../../helpers/answers.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const group = 'ruleratchet.example.com';
const apiVersion = `${group}/v1`;

let server: TestServer;
let namespace: string;

/** `rule` as an x-kubernetes-validations list when the schema is tight, none when loose. */
const rulesIf = (tight: boolean, rule: string, message: string): Json => (tight ? { 'x-kubernetes-validations': [{ rule, message }] } : {});

/** The schema of Gadgets; `tight` adds the rules the stored objects fail. */
function gadgetSchema(tight: boolean): Json {
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            b: { type: 'string' },
            entries: {
              type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
              ...rulesIf(tight, 'self.size() <= 1', 'at most 1 entry'),
            },
            tags: { type: 'array', items: { type: 'string', ...rulesIf(tight, 'self.size() <= 3', 'at most 3 characters') } },
            settings: {
              type: 'object', 'x-kubernetes-map-type': 'atomic',
              properties: {
                mode: { type: 'string', ...rulesIf(tight, 'self.size() <= 3', 'at most 3 characters') },
                owner: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }] },
              },
            },
            fixed: { type: 'string', ...rulesIf(tight, 'self == oldSelf && self.size() <= 3', 'unchanged and at most 3 characters') },
          },
        },
        status: {
          type: 'object',
          properties: {
            count: { type: 'integer' },
            history: { type: 'array', items: { type: 'string', ...rulesIf(tight, 'self.size() <= 3', 'at most 3 characters') } },
          },
        },
      },
    },
  };
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: gadgetSchema(false) }],
  },
};

const path = (name = '') => `/apis/${group}/v1/namespaces/${namespace}/gadgets${name === '' ? '' : `/${name}`}`;

const legacySpec = {
  b: 'one',
  entries: [{ name: 'x', value: '1' }, { name: 'y', value: '2' }],
  tags: ['abcdef', 'ok'],
  settings: { mode: 'abcdef', owner: 'me' },
};

/** The Gadgets stored before the rules tightened, one per test. */
const names = ['reordered', 'tags', 'atomic', 'owner', 'transition', 'status'];

/** Replaces the stored object's spec with what `change` makes of it. */
function updateSpec(name: string, change: (spec: Json) => void) {
  return putChangedSpec(server, path(name), change);
}

before(async () => {
  server = await startServer();
  namespace = await server.newNamespace('ruleratchet');
  let res = await server.request('POST', crdsPath, { body: crd });
  assert.equal(res.status, 201, res.text);
  await eventually(async () => assert.equal((await server.request('GET', path())).status, 200), { what: 'gadgets to be served' });
  for (const name of names) {
    const spec = { ...structuredClone(legacySpec), ...(name === 'transition' ? { fixed: 'abcdef' } : {}) };
    res = await server.request('POST', path(), { body: { apiVersion, kind: 'Gadget', metadata: { name }, spec } });
    assert.equal(res.status, 201, res.text);
    res = await server.request('PUT', `${path(name)}/status`, { body: { ...res.json, status: { count: 1, history: ['abcdef'] } } });
    assert.equal(res.status, 200, res.text);
  }
  await replaceCrdSchema(server, `gadgets.${group}`, gadgetSchema(true), { path: path(), body: { apiVersion, kind: 'Gadget', metadata: { name: 'probe' }, spec: { tags: ['abcd'] } } });
});
after(async () => {
  await server?.stop();
});

describe('ratcheting of x-kubernetes-validations rules on update', () => {
  test('a map list whose items only moved is unchanged: its failing rule warns; a changed item makes it fail', async () => {
    let res = await updateSpec('reordered', (spec) => { spec.entries.reverse(); spec.b = 'two'; });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.entries.map((e: Json) => e.name), ['y', 'x']);
    assert.ok(warningsOf(res).includes('spec.entries: Invalid value: at most 1 entry'), String(res.headers.warning));
    res = await updateSpec('reordered', (spec) => { spec.entries[0].value = '3'; });
    assert.equal(res.status, 422, res.text);
    assert.ok(causesOf(res).includes('spec.entries: Invalid value: at most 1 entry'), res.text);
  });

  test('an item of a list that is no map list is ratcheted with its list: unchanged list warns, changed list fails', async () => {
    let res = await updateSpec('tags', (spec) => { spec.b = 'two'; });
    assert.equal(res.status, 200, res.text);
    assert.ok(warningsOf(res).includes('spec.tags[0]: Invalid value: "abcdef": at most 3 characters'), String(res.headers.warning));
    res = await updateSpec('tags', (spec) => { spec.tags[1] = 'no'; });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.tags[0]: Invalid value: "abcdef": at most 3 characters']);
  });

  test('a property of an atomic map correlates by name: unchanged warns, changed fails', async () => {
    let res = await updateSpec('atomic', (spec) => { spec.b = 'two'; });
    assert.equal(res.status, 200, res.text);
    assert.ok(warningsOf(res).includes('spec.settings.mode: Invalid value: "abcdef": at most 3 characters'), String(res.headers.warning));
    res = await updateSpec('atomic', (spec) => { spec.settings.mode = 'ghijkl'; });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.settings.mode: Invalid value: "ghijkl": at most 3 characters']);
  });

  test('a transition rule under an atomic map sees the stored value as oldSelf', async () => {
    const res = await updateSpec('owner', (spec) => { spec.settings.owner = 'you'; });
    assert.equal(res.status, 422, res.text);
    assert.ok(causesOf(res).includes('spec.settings.owner: Invalid value: "you": owner is immutable'), res.text);
  });

  test('a transition rule failing at an unchanged value is not ratcheted', async () => {
    const res = await updateSpec('transition', (spec) => { spec.b = 'two'; });
    assert.equal(res.status, 422, res.text);
    assert.ok(causesOf(res).includes('spec.fixed: Invalid value: "abcdef": unchanged and at most 3 characters'), res.text);
  });

  test('a /status write ratchets the rules against the stored object', async () => {
    const stored = (await server.request('GET', path('status'))).json;
    let res = await server.request('PUT', `${path('status')}/status`, { body: { ...stored, status: { count: 2, history: ['abcdef'] } } });
    assert.equal(res.status, 200, res.text);
    assert.ok(warningsOf(res).includes('status.history[0]: Invalid value: "abcdef": at most 3 characters'), String(res.headers.warning));
    res = await server.request('PUT', `${path('status')}/status`, { body: { ...res.json, status: { count: 3, history: ['abcdef', 'ok'] } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['status.history[0]: Invalid value: "abcdef": at most 3 characters']);
  });
});
