// Bodies nested as deep as decoding admits, and one level deeper, at every verb that
// takes a body, on a ConfigMap and on a custom resource that keeps unknown fields: the
// deepest admitted body works or is refused cleanly, the deeper one is 400 at decode
// time, and the server never answers 500 (upstream refuses what its JSON decoder cannot
// nest; everything after decoding must survive what decoding lets through).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { maxNestingDepth } from '../../src/api/nesting.ts';

type Json = Record<string, any>;

let server: TestServer;
let ns: string;
const group = 'deep.example.com';

before(async () => {
  server = await startServer();
  ns = await server.newNamespace('deep');
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      }],
    },
  };
  assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
  await eventually(async () => assert.equal((await server.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets`)).status, 200));
});
after(() => server.stop());

/** `{"a":{"a":...}}` with `levels` objects in all. */
function nested(levels: number): Json {
  let value: Json = { leaf: 'x' };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

interface Kind {
  name: string;
  path: string;
  /** The object named `name`, its body nested `depth` levels in all (the object itself is level 1). */
  object(name: string, depth: number): Json;
}

const kinds: Kind[] = [
  {
    name: 'ConfigMap',
    path: '/api/v1/namespaces/NS/configmaps',
    // Levels: object → metadata → annotations is 3; unknown fields go deeper. The
    // ConfigMap drops unknown fields, so the deep part is a top-level unknown field.
    object: (name, depth) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, extra: nested(depth - 1) }),
  },
  {
    name: 'Widget',
    path: `/apis/${group}/v1/namespaces/NS/widgets`,
    object: (name, depth) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: nested(depth - 1) }),
  },
];

let counter = 0;

/** Block YAML, or JSON (which is YAML) where the yaml package's encoder runs out of stack. */
function yamlText(value: unknown): string {
  try {
    return YAML.stringify(value);
  } catch {
    return JSON.stringify(value);
  }
}

async function send(method: string, path: string, body: unknown, contentType = 'application/json', query = ''): Promise<{ status: number; text: string; json: any }> {
  const raw = contentType === 'application/yaml' ? yamlText(body) : JSON.stringify(body);
  // Content-Length given: Node's client sends a DELETE body without one otherwise.
  return server.request(method, `${path}${query}`, { raw, headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(raw)) } });
}

/**
 * Upstream's documented 500 for apply: a configuration with a field the built-in type
 * does not declare fails to convert to a typed value ("failed to create typed patch object").
 */
function isUpstreams500(res: { status: number; text: string; json: any }): boolean {
  return res.status === 500 && typeof res.json?.message === 'string' && res.json.message.startsWith('failed to create typed patch object');
}

function assertNot5xx(res: { status: number; text: string; json: any }, what: string): void {
  assert.ok(res.status < 500 || isUpstreams500(res), `${what}: ${res.status} ${res.text.slice(0, 300)}`);
}

for (const kind of kinds) {
  describe(`${kind.name} bodies nested ${maxNestingDepth} levels`, () => {
    test('every verb answers without a 500, reads answer in JSON, YAML and Table', async () => {
      const base = kind.path.replace('NS', ns);
      const name = `deep-${++counter}`;
      const deep = kind.object(name, maxNestingDepth);
      const created = await send('POST', base, deep);
      assertNot5xx(created, 'POST');
      const exists = created.status === 201;
      if (!exists) assert.equal(created.status, 400);
      else {
        for (const accept of ['application/json', 'application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
          assertNot5xx(await server.request('GET', `${base}/${name}`, { headers: { accept } }), `GET as ${accept}`);
          assertNot5xx(await server.request('GET', base, { headers: { accept } }), `LIST as ${accept}`);
        }
        assertNot5xx(await send('PUT', `${base}/${name}`, deep), 'PUT');
        assertNot5xx(await send('PUT', `${base}/${name}`, deep, 'application/yaml'), 'PUT as YAML');
        assertNot5xx(await send('PATCH', `${base}/${name}`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json'), 'merge PATCH of the deep object');
        assertNot5xx(await send('PATCH', `${base}/${name}`, [{ op: 'add', path: '/metadata/labels', value: { c: 'd' } }], 'application/json-patch+json'), 'JSON PATCH of the deep object');
        assertNot5xx(await send('PATCH', `${base}/${name}`, { metadata: { labels: { e: 'f' } } }, 'application/strategic-merge-patch+json'), 'strategic PATCH of the deep object');
        assertNot5xx(await send('PATCH', `${base}/${name}`, deep, 'application/merge-patch+json'), 'deep merge PATCH');
        assertNot5xx(await send('PATCH', `${base}/${name}`, deep, 'application/apply-patch+yaml', '?fieldManager=deep'), 'apply of the deep configuration');
        assertNot5xx(await send('PATCH', `${base}/${name}`, deep, 'application/apply-patch+yaml', '?fieldManager=other&force=true'), 'forced apply by another manager');
        assertNot5xx(await send('PATCH', `${base}/${name}`, kind.object(name, 3), 'application/apply-patch+yaml', '?fieldManager=deep'), 'apply that drops the deep part');
        assertNot5xx(await send('DELETE', `${base}/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: null } }), 'DELETE');
      }
      const applied = `deep-${++counter}`;
      assertNot5xx(await send('PATCH', `${base}/${applied}`, kind.object(applied, maxNestingDepth), 'application/apply-patch+yaml', '?fieldManager=deep'), 'apply that creates');
      assertNot5xx(await send('POST', base, kind.object(`deep-${++counter}`, maxNestingDepth), 'application/yaml'), 'POST as YAML');
      assert.equal((await server.request('GET', '/readyz')).status, 200);
    });

    test('one level deeper is 400 at decode time for every body kind', async () => {
      const base = kind.path.replace('NS', ns);
      const name = `deep-${++counter}`;
      assert.equal((await send('POST', base, kind.object(name, 3))).status, 201);
      const tooDeep = kind.object(name, maxNestingDepth + 1);
      const cases: [string, string, string, unknown, string?][] = [
        ['POST', base, 'application/json', tooDeep],
        ['POST', base, 'application/yaml', tooDeep],
        ['PUT', `${base}/${name}`, 'application/json', tooDeep],
        ['PATCH', `${base}/${name}`, 'application/merge-patch+json', tooDeep],
        ['PATCH', `${base}/${name}`, 'application/json-patch+json', [{ op: 'add', path: '/spec', value: nested(maxNestingDepth) }]],
        ['PATCH', `${base}/${name}`, 'application/apply-patch+yaml', tooDeep, '?fieldManager=deep'],
        ['DELETE', `${base}/${name}`, 'application/json', { kind: 'DeleteOptions', apiVersion: 'v1', extra: nested(maxNestingDepth) }],
      ];
      for (const [method, path, contentType, body, query] of cases) {
        const res = await send(method, path, body, contentType, query);
        assert.equal(res.status, 400, `${method} ${contentType}: ${res.status} ${res.text.slice(0, 300)}`);
        assert.match(res.json?.message ?? res.text, /exceeded max depth/, `${method} ${contentType}`);
      }
      assert.equal((await server.request('GET', `${base}/${name}`)).status, 200, 'the object is still there');
    });
  });
}
