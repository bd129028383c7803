// A custom resource's 422 as apiextensions-apiserver gives it: the causes in upstream's
// order (pkg/registry/customresource/strategy.go Validate/ValidateUpdate and validator.go:
// metadata, the OpenAPI schema, the scale subresource's paths, then the
// x-kubernetes-validations rules), the rules left unrun after a blocking schema error
// (hasBlockingErr: NotSupported, Required, TooLong, TooMany, TypeInvalid) with the one
// `<nil>` cause saying so, a status write checked against the status schema only
// (status_strategy.go), and a subresource the CRD does not serve answered as
// customresource_handler.go answers it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { causesOf } from '../../helpers/answers.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const group = 'order.example.com';
const notChecked = '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
const labelValue = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

let server: TestServer;

function crd(plural: string, kind: string, version: Json): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural, kind }, versions: [{ name: 'v1', served: true, storage: true, ...version }] },
  };
}

/** Widgets: status and scale subresources, schema checks of each kind, a rule on spec and one on status. */
const widgets = crd('widgets', 'Widget', {
  subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: "!has(self.color) || self.color != 'red'", message: 'red is taken' }],
          properties: {
            replicas: { type: 'integer' },
            size: { type: 'integer', minimum: 1 },
            color: { type: 'string' },
            mode: { type: 'string', enum: ['a', 'b'] },
            name: { type: 'string', maxLength: 5 },
            tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
            when: { type: 'string', format: 'date-time' },
            must: { type: 'object', required: ['x'], properties: { x: { type: 'string' } } },
          },
        },
        status: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: '!has(self.ready) || self.ready >= 0', message: 'ready cannot be negative' }],
          properties: { replicas: { type: 'integer' }, ready: { type: 'integer' } },
        },
      },
    },
  },
});

/** Plain: the same kind of schema without rules nor subresources. */
const plain = crd('plains', 'Plain', {
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
});

/** Gadgets: a status subresource, spec.size without bounds until a test adds one. */
const gadgets = crd('gadgets', 'Gadget', {
  subresources: { status: {} },
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        status: { type: 'object', properties: { ready: { type: 'integer' } } },
      },
    },
  },
});

const path = (plural: string, name = '') => `/apis/${group}/v1/namespaces/default/${plural}${name === '' ? '' : `/${name}`}`;

/** The 422's message: each distinct cause once, bracketed when more than one (field.ErrorList.ToAggregate). */
function messageOf(kind: string, name: string, causes: string[]): string {
  const distinct = [...new Set(causes)];
  return `${kind}.${group} "${name}" is invalid: ${distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`}`;
}

function assertInvalid(res: { status: number; json: any; text: string }, kind: string, name: string, causes: string[]): void {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.reason, 'Invalid');
  assert.deepEqual(causesOf(res), causes);
  assert.equal(res.json.message, messageOf(kind, name, causes));
}

before(async () => {
  server = await startServer();
  for (const body of [widgets, plain, gadgets]) {
    const res = await server.request('POST', crdsPath, { body });
    assert.equal(res.status, 201, res.text);
  }
  for (const plural of ['widgets', 'plains', 'gadgets']) {
    await eventually(async () => assert.equal((await server.request('GET', path(plural))).status, 200), { what: `${plural} to be served` });
  }
});
after(async () => {
  await server?.stop();
});

interface Row {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  spec: Json;
  causes: string[];
}

const spacious = { big: 'x'.repeat(262_145) };

/** Each row's body, created (POST) and written over a valid widget (PUT): the same causes both ways. */
const rows: Row[] = [
  {
    name: 'metadata, then the schema, then the scale path, then the rules',
    labels: { a: '-bad-' },
    spec: { size: 0, replicas: -1, color: 'red' },
    causes: [
      `metadata.labels: Invalid value: "-bad-": ${labelValue}`,
      'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      'spec: Invalid value: red is taken',
    ],
  },
  {
    name: 'a schema error of another kind (a pattern, a minimum) leaves the rules to run',
    spec: { size: 0, color: 'red' },
    causes: ['spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1', 'spec: Invalid value: red is taken'],
  },
  {
    name: 'a required field missing: the rules are not run',
    spec: { must: {}, color: 'red' },
    causes: ['spec.must.x: Required value', notChecked],
  },
  {
    name: 'a value of the wrong type: the rules are not run',
    spec: { size: 'x', color: 'red' },
    causes: ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"', notChecked],
  },
  {
    name: 'a value outside the enum: the rules are not run',
    spec: { mode: 'c', color: 'red' },
    causes: ['spec.mode: Unsupported value: "c": supported values: "a", "b"', notChecked],
  },
  {
    name: 'a string over its maxLength: the rules are not run',
    spec: { name: 'abcdefg', color: 'red' },
    causes: ['spec.name: Too long: may not be more than 5 bytes', notChecked],
  },
  {
    name: 'a list over its maxItems: the rules are not run',
    spec: { tags: ['a', 'b', 'c'], color: 'red' },
    causes: ['spec.tags: Too many: 3: must have at most 2 items', notChecked],
  },
  {
    name: 'a string not of its format (a type error): the rules are not run',
    spec: { when: 'yesterday', color: 'red' },
    causes: ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"', notChecked],
  },
  {
    name: 'the scale path\'s own error comes after the schema\'s, before the note',
    spec: { replicas: 'x', color: 'red' },
    causes: [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64',
      notChecked,
    ],
  },
  {
    name: 'annotations too long (metadata\'s TooLong) block the rules too',
    annotations: spacious,
    spec: { color: 'red' },
    causes: ['metadata.annotations: Too long: may not be more than 262144 bytes', notChecked],
  },
];

describe('a custom resource\'s 422 lists its causes in upstream\'s order', () => {
  let created = 0;
  for (const row of rows) {
    test(`create: ${row.name}`, async () => {
      const name = `c${++created}`;
      const metadata: Json = { name };
      if (row.labels !== undefined) metadata.labels = row.labels;
      if (row.annotations !== undefined) metadata.annotations = row.annotations;
      const res = await server.request('POST', path('widgets'), { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata, spec: row.spec } });
      assertInvalid(res, 'Widget', name, row.causes);
    });
    test(`update: ${row.name}`, async () => {
      const name = `u${++created}`;
      const made = await server.request('POST', path('widgets'), { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } } });
      assert.equal(made.status, 201, made.text);
      const body = structuredClone(made.json);
      if (row.labels !== undefined) body.metadata.labels = row.labels;
      if (row.annotations !== undefined) body.metadata.annotations = row.annotations;
      body.spec = row.spec;
      const res = await server.request('PUT', path('widgets', name), { body });
      assertInvalid(res, 'Widget', name, row.causes);
    });
  }

  test('without rules in the schema, its errors stand alone (no note of rules not run)', async () => {
    const res = await server.request('POST', path('plains'), { body: { apiVersion: `${group}/v1`, kind: 'Plain', metadata: { name: 'p' }, spec: { size: 'x' } } });
    assertInvalid(res, 'Plain', 'p', ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']);
  });
});

describe('a status write is checked as upstream\'s status strategy checks it', () => {
  const statusRows: { name: string; status: Json; causes: string[] }[] = [
    {
      name: 'the status schema, then the scale status path, then the rules',
      status: { replicas: -2, ready: -1 },
      causes: ['.status.replicas: Invalid value: -2: should be a non-negative integer', 'status: Invalid value: ready cannot be negative'],
    },
    {
      name: 'a type error in status: the rules are not run',
      status: { replicas: 'x', ready: -1 },
      causes: [
        'status.replicas: Invalid value: "string": status.replicas in body must be of type integer: "string"',
        '.status.replicas: Invalid value: 0: .status.replicas accessor error: x is of the type string, expected int64',
        notChecked,
      ],
    },
  ];
  let made = 0;
  for (const row of statusRows) {
    test(row.name, async () => {
      const name = `s${++made}`;
      const created = await server.request('POST', path('widgets'), { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } } });
      assert.equal(created.status, 201, created.text);
      const res = await server.request('PUT', `${path('widgets', name)}/status`, { body: { ...created.json, status: row.status } });
      assertInvalid(res, 'Widget', name, row.causes);
    });
  }

  test('only status is validated: a spec the schema now refuses does not fail a status write', async () => {
    const created = await server.request('POST', path('gadgets'), { body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 0 } } });
    assert.equal(created.status, 201, created.text);
    const current = (await server.request('GET', `${crdsPath}/gadgets.${group}`)).json;
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.minimum = 1;
    const updated = await server.request('PUT', `${crdsPath}/gadgets.${group}`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    // Once the new schema is served, a new gadget like the stored one is refused...
    await eventually(async () => {
      const refused = await server.request('POST', path('gadgets'), { body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g2' }, spec: { size: 0 } } });
      assert.equal(refused.status, 422, refused.text);
    });
    // ...while the stored one's status may still be written.
    const res = await server.request('PUT', `${path('gadgets', 'g')}/status`, { body: { ...created.json, status: { ready: 1 } } });
    assert.equal(res.status, 200, res.text);
    // A status the status schema refuses is named under status.
    const bad = await server.request('PUT', `${path('gadgets', 'g')}/status`, { body: { ...res.json, status: { ready: 'no' } } });
    assertInvalid(bad, 'Gadget', 'g', ['status.ready: Invalid value: "string": status.ready in body must be of type integer: "string"']);
  });
});

describe('a subresource the CRD does not serve', () => {
  before(async () => {
    const res = await server.request('POST', path('plains'), { body: { apiVersion: `${group}/v1`, kind: 'Plain', metadata: { name: 'w' }, spec: { size: 1 } } });
    assert.equal(res.status, 201, res.text);
  });

  const notFound = (name: string) => ({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `plains.${group} "${name}" not found`,
    reason: 'NotFound', details: { name, group, kind: 'plains' }, code: 404,
  });
  const cases: { name: string; method: string; sub: string; object?: string; body?: Json; headers?: Record<string, string> }[] = [
    { name: 'GET status', method: 'GET', sub: 'status' },
    { name: 'PUT status', method: 'PUT', sub: 'status', body: { apiVersion: `${group}/v1`, kind: 'Plain', metadata: { name: 'w' } } },
    { name: 'PATCH status', method: 'PATCH', sub: 'status', body: { status: {} }, headers: { 'Content-Type': 'application/merge-patch+json' } },
    { name: 'GET scale', method: 'GET', sub: 'scale' },
    { name: 'PUT scale', method: 'PUT', sub: 'scale', body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 1 } } },
    { name: 'GET an unknown subresource', method: 'GET', sub: 'frobnicate' },
    { name: 'DELETE status', method: 'DELETE', sub: 'status' },
    { name: 'GET status of an object that does not exist', method: 'GET', sub: 'status', object: 'absent' },
  ];
  for (const c of cases) {
    test(`${c.name}: 404 NotFound naming the object, as upstream's crdHandler`, async () => {
      const object = c.object ?? 'w';
      const res = await server.request(c.method, `${path('plains', object)}/${c.sub}`, { ...(c.body === undefined ? {} : { body: c.body }), ...(c.headers === undefined ? {} : { headers: c.headers }) });
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.json, notFound(object));
    });
  }

  test('a verb a served status or scale does not take: 405 naming the resource, as upstream\'s serveStatus and serveScale', async () => {
    const created = await server.request('POST', path('widgets'), { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'verbs' }, spec: { size: 1 } } });
    assert.equal(created.status, 201, created.text);
    for (const [method, sub, verb] of [['DELETE', 'status', 'delete'], ['POST', 'status', 'create'], ['DELETE', 'scale', 'delete'], ['POST', 'scale', 'create']]) {
      const res = await server.request(method!, `${path('widgets', 'verbs')}/${sub}`, method === 'POST' ? { body: {} } : {});
      assert.equal(res.status, 405, `${method} ${sub}: ${res.text}`);
      assert.deepEqual(res.json, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${verb} is not supported on resources of kind "widgets.${group}"`,
        reason: 'MethodNotAllowed', details: { group, kind: 'widgets' }, code: 405,
      }, `${method} ${sub}`);
    }
  });
});
