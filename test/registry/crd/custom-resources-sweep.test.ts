// Custom resources as apiextensions-apiserver serves them, beyond their schema: embedded
// objects (pkg/apiserver/schema/objectmeta validation.go: kind, apiVersion and metadata
// checked), list-type uniqueness (pkg/apiserver/schema/listtype: compounds compared as
// Go's sorted JSON, ratcheted on update by strategy.go and status_strategy.go, after the
// scale paths), and printer-column cells (pkg/registry/customresource/tableconvertor:
// jsonpath's printing of a string column, metav1.Time parsing of a date column).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { causesOf } from '../../helpers/answers.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const group = 'sweep.example.com';
const apiVersion = `${group}/v1`;
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const labelValue = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const dns1123Label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Label = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

let server: TestServer;

function crd(plural: string, kind: string, version: Json): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural, kind }, versions: [{ name: 'v1', served: true, storage: true, ...version }] },
  };
}

const embedded = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };

/** Holders: embedded objects, one in spec.template, others as the values of spec.byName. */
const holders = crd('holders', 'Holder', {
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: { template: embedded, byName: { type: 'object', additionalProperties: embedded } } } },
    },
  },
});

/** Bags: a status subresource and a scale one; tags untyped until a test makes them a set. */
const bagSchema = (tagsListType: string | undefined): Json => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' }, ...(tagsListType === undefined ? {} : { 'x-kubernetes-list-type': tagsListType }) },
          pairs: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' }, seen: { type: 'array', items: { type: 'string' }, ...(tagsListType === undefined ? {} : { 'x-kubernetes-list-type': tagsListType }) } } },
    },
  },
});
const bags = crd('bags', 'Bag', {
  subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
  schema: bagSchema(undefined),
});

/** Boards: printer columns of each kind, over fields that take anything. */
const boards = crd('boards', 'Board', {
  additionalPrinterColumns: [
    { name: 'Text', type: 'string', jsonPath: '.spec.text' },
    { name: 'When', type: 'date', jsonPath: '.spec.when' },
  ],
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
});

const path = (plural: string, name = '') => `/apis/${group}/v1/namespaces/default/${plural}${name === '' ? '' : `/${name}`}`;

before(async () => {
  server = await startServer();
  for (const body of [holders, bags, boards]) {
    const res = await server.request('POST', crdsPath, { body });
    assert.equal(res.status, 201, res.text);
  }
  for (const plural of ['holders', 'bags', 'boards']) {
    await eventually(async () => assert.equal((await server.request('GET', path(plural))).status, 200), { what: `${plural} to be served` });
  }
});
after(async () => {
  await server?.stop();
});

describe('embedded resources', () => {
  const holder = (name: string, spec: Json) => ({ apiVersion, kind: 'Holder', metadata: { name }, spec });

  test('an embedded object\'s metadata is validated as ObjectMeta: namespace, labels, a name with a slash', async () => {
    let res = await server.request('POST', path('holders'), {
      body: holder('h1', { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'Not_A_Label', labels: { app: '-bad-' } } } }),
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), [
      `spec.template.metadata.namespace: Invalid value: "Not_A_Label": ${dns1123Label}`,
      `spec.template.metadata.labels: Invalid value: "-bad-": ${labelValue}`,
    ]);
    res = await server.request('POST', path('holders'), { body: holder('h1', { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b' } } }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'']);
  });

  test('an embedded object\'s kind reads as a DNS-1035 label in any case, its apiVersion as group/version', async () => {
    const res = await server.request('POST', path('holders'), { body: holder('h2', { template: { apiVersion: 'a/b/c', kind: 'Has_Underscore' } }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res).sort(), [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `spec.template.kind: Invalid value: "Has_Underscore": may have mixed case, but should otherwise match: ${dns1035Label}`,
    ]);
  });

  test('an embedded object under a map key is named by the key in brackets', async () => {
    const res = await server.request('POST', path('holders'), { body: holder('h3', { byName: { first: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { x: '-' } } } } }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), [`spec.byName[first].metadata.labels: Invalid value: "-": ${labelValue}`]);
  });

  test('an embedded object with no name, a mixed-case kind and a path-segment name is accepted', async () => {
    let res = await server.request('POST', path('holders'), { body: holder('h4', { template: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { labels: { app: 'web' } } } }) });
    assert.equal(res.status, 201, res.text);
    res = await server.request('POST', path('holders'), { body: holder('h5', { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'Upper_Case' } } }) });
    assert.equal(res.status, 201, res.text);
  });
});

describe('list types', () => {
  const bag = (name: string, spec: Json) => ({ apiVersion, kind: 'Bag', metadata: { name }, spec });

  test('set items that differ only in their keys\' order are duplicates', async () => {
    const res = await server.request('POST', path('bags'), { body: bag('b1', { pairs: [{ a: 1, b: 2 }, { b: 2, a: 1 }] }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.pairs[1]: Duplicate value: {"a":1,"b":2}']);
  });

  test('repeated list items come after the scale paths\' causes', async () => {
    const res = await server.request('POST', path('bags'), { body: bag('b2', { replicas: -1, pairs: [{ a: 1 }, { a: 1 }] }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['.spec.replicas: Invalid value: -1: should be a non-negative integer', 'spec.pairs[1]: Duplicate value: {"a":1}']);
  });

  test('an object whose lists already repeated items may still be updated, through the object and its status', async () => {
    let res = await server.request('POST', path('bags'), { body: bag('legacy', { tags: ['x', 'x'] }) });
    assert.equal(res.status, 201, res.text);
    res = await server.request('PUT', `${path('bags', 'legacy')}/status`, { body: { ...res.json, status: { seen: ['y', 'y'] } } });
    assert.equal(res.status, 200, res.text);
    // The CRD now makes both lists sets.
    const current = await server.request('GET', `${crdsPath}/bags.${group}`);
    const updated = structuredClone(current.json);
    updated.spec.versions[0].schema = bagSchema('set');
    res = await server.request('PUT', `${crdsPath}/bags.${group}`, { body: updated });
    assert.equal(res.status, 200, res.text);
    await eventually(async () => {
      const r = await server.request('POST', path('bags'), { body: bag('fresh', { tags: ['z', 'z'] }), headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 422, r.text);
      assert.deepEqual(causesOf(r), ['spec.tags[1]: Duplicate value: "z"']);
    }, { what: 'the new schema to be served' });

    const stored = (await server.request('GET', path('bags', 'legacy'))).json;
    res = await server.request('PUT', path('bags', 'legacy'), { body: { ...stored, metadata: { ...stored.metadata, labels: { touched: 'yes' } } } });
    assert.equal(res.status, 200, res.text);
    res = await server.request('PUT', `${path('bags', 'legacy')}/status`, { body: { ...res.json, status: { seen: ['y', 'y'], replicas: 1 } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.tags, ['x', 'x']);
  });
});

describe('printer columns', () => {
  async function rowOf(name: string, spec: Json): Promise<unknown[]> {
    const res = await server.request('POST', path('boards'), { body: { apiVersion, kind: 'Board', metadata: { name }, spec } });
    assert.equal(res.status, 201, res.text);
    const table = await server.request('GET', path('boards', name), { headers: { accept: tableAccept } });
    assert.equal(table.status, 200, table.text);
    return table.json.rows[0].cells;
  }

  test('a string column shows a null as jsonpath prints it, "<no value>"', async () => {
    assert.deepEqual(await rowOf('null-text', { text: null }), ['null-text', '<no value>', null]);
  });

  test('a string column shows a float from 1e6 up in Go\'s %v exponent form', async () => {
    assert.deepEqual((await rowOf('big-float', { text: 1234567.5 }))[1], '1.2345675e+06');
    assert.deepEqual((await rowOf('small-float', { text: 123456.5 }))[1], '123456.5');
    assert.deepEqual((await rowOf('whole', { text: 12345678 }))[1], '12345678');
  });

  test('a date column reads RFC 3339 only: another date form is "<invalid>", an empty one "<unknown>"', async () => {
    assert.deepEqual((await rowOf('plain-date', { when: '2024-01-01' }))[2], '<invalid>');
    assert.deepEqual((await rowOf('empty-date', { when: '' }))[2], '<unknown>');
    assert.deepEqual((await rowOf('zero-date', { when: '0001-01-01T00:00:00Z' }))[2], '<unknown>');
    assert.match(String((await rowOf('rfc-date', { when: '2020-01-01T00:00:00+01:00' }))[2]), /^\d+y/);
  });
});

describe('scale', () => {
  // Upstream's ScaleREST for custom resources runs no ValidateScale: the custom resource's own
  // check of its replicas path refuses a negative count, in its words and under its kind.
  test('a negative replica count through /scale is refused as the custom resource refuses it', async () => {
    const created = await server.request('POST', path('bags'), { body: { apiVersion, kind: 'Bag', metadata: { name: 'scaled' }, spec: { replicas: 1 } } });
    assert.equal(created.status, 201, created.text);
    const scale = (await server.request('GET', `${path('bags', 'scaled')}/scale`)).json;
    const res = await server.request('PUT', `${path('bags', 'scaled')}/scale`, { body: { ...scale, spec: { replicas: -1 } } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.kind, 'Bag');
    assert.deepEqual(causesOf(res), ['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    const ok = await server.request('PUT', `${path('bags', 'scaled')}/scale`, { body: { ...scale, spec: { replicas: 3 } } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await server.request('GET', path('bags', 'scaled'))).json.spec.replicas, 3);
  });
});
