// Property test: generated hostile bodies (deep, wide, wrong types at known fields,
// YAML anchors/aliases/tags/multi-document, byte damage) at every verb that takes a body,
// on a ConfigMap, a Deployment and a custom resource with a schema, against a real
// server. Every answer is below 500 (but upstream's own 500s, listed below) and is a
// Status when it is an error; afterwards the server is ready and the seeded objects,
// which requests reach only with dryRun=All, are unchanged.
//
// Runs a fixed seed and a bounded number of requests in `npm test`. To replay a failure
// or to search longer:
//   PLINTH_PROPERTY_SEED=<seed> PLINTH_PROPERTY_RUNS=5000 node --test test/e2e/hostile-bodies.test.ts
// (a failure prints its seed and the shrunk counterexample; PLINTH_PROPERTY_PATH replays one path).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import YAML from 'yaml';
import { maxNestingDepth } from '../../src/api/nesting.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type Response, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

const seed = Number(process.env.PLINTH_PROPERTY_SEED ?? 20261125);
const numRuns = Number(process.env.PLINTH_PROPERTY_RUNS ?? 300);
const path = process.env.PLINTH_PROPERTY_PATH;

const group = 'hostile.example.com';
let server: TestServer;
let ns: string;

interface Kind {
  name: string;
  collection: () => string;
  /** A valid object of the kind named `name`. */
  valid(name: string): Json;
  /** Paths of fields the type knows, where wrong types are sent. */
  knownPaths: (string | number)[][];
  strategic: boolean;
}

const metadataPaths: (string | number)[][] = [
  ['metadata'], ['metadata', 'name'], ['metadata', 'generateName'], ['metadata', 'namespace'], ['metadata', 'labels'],
  ['metadata', 'labels', 'a'], ['metadata', 'annotations'], ['metadata', 'finalizers'], ['metadata', 'ownerReferences'],
  ['metadata', 'managedFields'], ['metadata', 'uid'], ['metadata', 'creationTimestamp'], ['metadata', 'deletionGracePeriodSeconds'],
  ['apiVersion'], ['kind'],
];

const kinds: Kind[] = [
  {
    name: 'ConfigMap',
    collection: () => `/api/v1/namespaces/${ns}/configmaps`,
    valid: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } }, data: { a: '1' } }),
    knownPaths: [...metadataPaths, ['data'], ['data', 'a'], ['binaryData'], ['binaryData', 'b'], ['immutable']],
    strategic: true,
  },
  {
    name: 'Deployment',
    collection: () => `/apis/apps/v1/namespaces/${ns}/deployments`,
    valid: (name) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] } },
      },
    }),
    knownPaths: [
      ...metadataPaths, ['spec'], ['spec', 'replicas'], ['spec', 'selector'], ['spec', 'selector', 'matchLabels'],
      ['spec', 'template'], ['spec', 'template', 'metadata'], ['spec', 'template', 'spec'], ['spec', 'template', 'spec', 'containers'],
      ['spec', 'template', 'spec', 'containers', 0], ['spec', 'template', 'spec', 'containers', 0, 'name'],
      ['spec', 'template', 'spec', 'containers', 0, 'ports'], ['spec', 'template', 'spec', 'containers', 0, 'ports', 0, 'containerPort'],
      ['spec', 'strategy'], ['spec', 'strategy', 'type'], ['status'], ['status', 'replicas'],
    ],
    strategic: true,
  },
  {
    name: 'Widget',
    collection: () => `/apis/${group}/v1/namespaces/${ns}/widgets`,
    valid: (name) => ({
      apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name },
      spec: { replicas: 1, name: 'w', ports: [{ port: 80 }], tags: ['a'], free: { x: { y: 1 } } },
    }),
    knownPaths: [
      ...metadataPaths, ['spec'], ['spec', 'replicas'], ['spec', 'name'], ['spec', 'ports'], ['spec', 'ports', 0],
      ['spec', 'ports', 0, 'port'], ['spec', 'ports', 0, 'protocol'], ['spec', 'tags'], ['spec', 'tags', 0], ['spec', 'free'], ['status'],
    ],
    strategic: false,
  },
];

const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', minimum: 0 },
        name: { type: 'string', maxLength: 10 },
        ports: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'],
          items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

// ---- generators ----

function setPath(obj: Json, path: (string | number)[], value: unknown): Json {
  const copy = structuredClone(obj);
  let at: any = copy;
  for (const step of path.slice(0, -1)) {
    if (typeof at[step] !== 'object' || at[step] === null) at[step] = typeof step === 'number' ? [] : {};
    at = at[step];
  }
  at[path[path.length - 1]!] = value;
  return copy;
}

function nested(levels: number, leaf: unknown, array: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = array ? [value] : { a: value };
  return value;
}

/** How an object is changed before it is sent. */
type Mutation = (obj: Json, kind: Kind) => Json;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Mutation>((obj) => obj) },
  // Deep: around the decoding limit (the object itself and the path to the field count too).
  {
    weight: 3,
    arbitrary: fc.tuple(fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: maxNestingDepth - 6, max: maxNestingDepth + 2 })), fc.boolean(), fc.nat())
      .map(([levels, array, at]): Mutation => (obj, kind) => setPath(obj, kind.knownPaths[at % kind.knownPaths.length]!, nested(levels, 'x', array))),
  },
  // Wide: many keys or items at a known field.
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 100, max: 3000 }), fc.boolean(), fc.nat())
      .map(([width, array, at]): Mutation => (obj, kind) => {
        const wide = array ? Array.from({ length: width }, (_, i) => ({ port: i, name: `n${i}` })) : Object.fromEntries(Array.from({ length: width }, (_, i) => [`k${i}`, `v${i}`]));
        return setPath(obj, kind.knownPaths[at % kind.knownPaths.length]!, wide);
      }),
  },
  // Wrong types at known fields.
  {
    weight: 5,
    arbitrary: fc.tuple(fc.array(fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 3 })), { minLength: 1, maxLength: 3 }))
      .map(([changes]): Mutation => (obj, kind) => changes.reduce((o, [at, value]) => setPath(o, kind.knownPaths[at % kind.knownPaths.length]!, value), obj)),
  },
  // Anything at all instead of an object.
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Mutation => () => value as Json) },
);

/** How an object becomes bytes. */
type Encoding = { contentType: 'json' | 'yaml'; encode(obj: Json): string };

const yamlFeatures: fc.Arbitrary<(obj: Json) => string> = fc.constantFrom(
  (obj: Json) => YAML.stringify(obj),
  (obj: Json) => `---\n${YAML.stringify(obj)}`,
  (obj: Json) => `${YAML.stringify(obj)}---\n${YAML.stringify(obj)}`,
  (obj: Json) => `${YAML.stringify(obj)}---\n`,
  () => '',
  () => '--- !!binary aGVsbG8=\n',
  () => '- a\n- b\n',
  () => 'just a string\n',
  () => '42\n',
  () => 'metadata: *nothing\n',
  () => 'a: &a\n  b: *a\n',
  () => 'a: &a\n  - *a\n',
  () => `a: &a ["x","x","x","x","x","x","x","x","x","x"]\n${'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(',')}]`).join('\n')}\n`,
  (obj: Json) => `${YAML.stringify({ anchor: { x: 1 } }).replace('anchor:', 'anchor: &x')}${YAML.stringify(obj)}extra: *x\n`,
  (obj: Json) => YAML.stringify(obj).replace(/^kind: .*$/m, 'kind: !!binary aGVsbG8='),
  (obj: Json) => YAML.stringify(obj).replace(/^metadata:$/m, 'metadata: !!set'),
  (obj: Json) => YAML.stringify(obj).replace(/^metadata:$/m, 'metadata: !custom'),
  (obj: Json) => `%YAML 1.1\n---\n${YAML.stringify(obj)}`,
  (obj: Json) => `${YAML.stringify(obj)}t: 2001-12-14t21:59:43.10-05:00\nn: .nan\ni: -.inf\no: 0o17\nb: yes\n`,
  (obj: Json) => `${YAML.stringify(obj)}? [complex, key]\n: value\n`,
  (obj: Json) => `${YAML.stringify(obj)}<<: {merged: 1}\n`,
);

const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Encoding>({ contentType: 'json', encode: (obj) => JSON.stringify(obj) }) },
  { weight: 1, arbitrary: fc.constant<Encoding>({ contentType: 'yaml', encode: (obj) => YAML.stringify(obj) }) },
  { weight: 2, arbitrary: yamlFeatures.map((encode): Encoding => ({ contentType: 'yaml', encode })) },
);

/** Damage done to the bytes of a valid body. */
type Damage = (bytes: Buffer) => Buffer;

const damage: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Damage>((b) => b) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((f): Damage => (b) => b.subarray(0, Math.floor(b.length * f))) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 255 })).map(([f, mask]): Damage => (b) => {
      const copy = Buffer.from(b);
      const at = Math.min(copy.length - 1, Math.floor(copy.length * f));
      if (at >= 0) copy[at] = copy[at]! ^ mask;
      return copy;
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x00], [0xef, 0xbb, 0xbf]))
      .map(([f, bytes]): Damage => (b) => {
        const at = Math.floor(b.length * f);
        return Buffer.concat([b.subarray(0, at), Buffer.from(bytes), b.subarray(at)]);
      }),
  },
);

type Verb = 'create' | 'update' | 'merge' | 'strategic' | 'json' | 'apply' | 'delete';

const jsonPatchOps = fc.array(fc.record({
  op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
  path: fc.constantFrom('/metadata/labels/x', '/metadata/labels', '/metadata', '/spec/replicas', '/spec', '/data/a', '/data', '', '/', '/x/y/z', '/spec/ports/0', '/spec/ports/-', '/metadata/name', '/metadata/resourceVersion', '/kind', '/apiVersion', '/spec/template/spec/containers/0/name'),
  from: fc.option(fc.constantFrom('/metadata/labels', '/spec', '/data/a', '/nope', ''), { nil: undefined }),
  value: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
}, { requiredKeys: ['op', 'path'] }), { maxLength: 4 });

const deleteOptions = fc.record({
  kind: fc.constantFrom('DeleteOptions', 'Status', 7),
  apiVersion: fc.constantFrom('v1', 'meta.k8s.io/v1', 'nope/v9'),
  gracePeriodSeconds: fc.oneof(fc.integer({ min: -5, max: 100 }), fc.jsonValue({ maxDepth: 1 })),
  propagationPolicy: fc.oneof(fc.constantFrom('Foreground', 'Background', 'Orphan', 'Sideways'), fc.jsonValue({ maxDepth: 1 })),
  preconditions: fc.oneof(fc.record({ uid: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })), resourceVersion: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
  orphanDependents: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
  dryRun: fc.oneof(fc.constantFrom(['All'], []), fc.jsonValue({ maxDepth: 1 })),
}, { requiredKeys: [] });

interface Case {
  kind: number;
  verb: Verb;
  /** Which object: one of a pool the test may change, or a seeded one (then with dryRun=All). */
  target: 'pool-a' | 'pool-b' | 'seed';
  mutation: Mutation;
  encoding: Encoding;
  damage: Damage;
  jsonPatch: unknown[];
  deleteOptions: Json;
  fieldManager: string | undefined;
  force: boolean;
  /** PUT and PATCH also go to the status subresource (a ConfigMap has none: 404). */
  status: boolean;
}

const requestCase: fc.Arbitrary<Case> = fc.record({
  kind: fc.nat({ max: kinds.length - 1 }),
  verb: fc.constantFrom<Verb>('create', 'update', 'merge', 'strategic', 'json', 'apply', 'delete'),
  target: fc.constantFrom('pool-a', 'pool-b', 'seed'),
  mutation,
  encoding,
  damage,
  jsonPatch: jsonPatchOps,
  deleteOptions,
  fieldManager: fc.constantFrom('m1', 'm2', undefined),
  force: fc.boolean(),
  status: fc.boolean(),
});

interface Request { method: string; path: string; contentType: string; body: Buffer; describe: string }

function requestOf(c: Case): Request {
  const kind = kinds[c.kind]!;
  const name = c.target === 'seed' ? `seed-${kind.name.toLowerCase()}` : c.target;
  const query = new URLSearchParams();
  if (c.target === 'seed') query.set('dryRun', 'All');
  const object = c.mutation(kind.valid(name), kind);
  let method = 'PATCH';
  let path = `${kind.collection()}/${name}${c.status && c.verb !== 'create' && c.verb !== 'delete' ? '/status' : ''}`;
  let contentType: string;
  let text: string;
  switch (c.verb) {
    case 'create':
    case 'update':
      method = c.verb === 'create' ? 'POST' : 'PUT';
      if (c.verb === 'create') path = kind.collection();
      else if (typeof object === 'object' && object !== null && !Array.isArray(object)) {
        // A PUT names its resourceVersion or not; the current one is unknown here, so none (unconditional update).
        delete (object as Json).metadata?.resourceVersion;
      }
      contentType = c.encoding.contentType === 'json' ? 'application/json' : 'application/yaml';
      text = c.encoding.encode(object);
      break;
    case 'merge':
    case 'strategic':
      contentType = c.verb === 'merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json';
      text = JSON.stringify(object);
      break;
    case 'json':
      contentType = 'application/json-patch+json';
      text = JSON.stringify(c.jsonPatch);
      break;
    case 'apply':
      contentType = 'application/apply-patch+yaml';
      text = c.encoding.encode(object);
      if (c.fieldManager !== undefined) query.set('fieldManager', c.fieldManager);
      if (c.force) query.set('force', 'true');
      break;
    case 'delete':
      method = 'DELETE';
      contentType = 'application/json';
      text = JSON.stringify(c.deleteOptions);
      break;
  }
  const body = c.damage(Buffer.from(text, 'utf8'));
  const qs = query.toString();
  return { method, path: qs === '' ? path : `${path}?${qs}`, contentType, body, describe: `${method} ${path}${qs === '' ? '' : `?${qs}`} (${contentType}, ${body.length} bytes): ${body.subarray(0, 200).toString('utf8')}` };
}

// ---- upstream's own 500s ----

/**
 * The 500s kube-apiserver itself answers for these requests, with its message:
 * - POST of an object with metadata.resourceVersion set (its storage refuses it);
 * - apply whose configuration (or the live object) does not convert to the type's
 *   schema: "failed to create typed patch object" / "failed to create typed live object";
 * - strategic merge patch errors upstream leaves unclassified (a missing merge key, an
 *   unknown `$patch`, mismatched list items): 500 with no reason (patch/strategic-merge.ts).
 */
function isUpstreams500(req: Request, res: Response): boolean {
  const message = typeof res.json?.message === 'string' ? res.json.message : '';
  if (req.method === 'POST' && message === 'resourceVersion should not be set on objects to be created') return true;
  if (req.contentType === 'application/apply-patch+yaml' && /^failed to create typed (patch|live) object /.test(message)) return true;
  if (req.contentType === 'application/strategic-merge-patch+json' && res.json?.reason === undefined) return true;
  return false;
}

// ---- the test ----

interface Snapshot { path: string; resourceVersion: string; text: string }

async function snapshot(kind: Kind): Promise<Snapshot> {
  const path = `${kind.collection()}/seed-${kind.name.toLowerCase()}`;
  const res = await server.request('GET', path);
  assert.equal(res.status, 200, res.text);
  return { path, resourceVersion: res.json.metadata.resourceVersion, text: res.text };
}

before(async () => {
  server = await startServer();
  ns = await server.newNamespace('hostile');
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: widgetSchema } }],
    },
  };
  assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
  await eventually(async () => assert.equal((await server.request('GET', kinds[2]!.collection())).status, 200));
  for (const kind of kinds) {
    const res = await server.request('POST', kind.collection(), { body: kind.valid(`seed-${kind.name.toLowerCase()}`) });
    assert.equal(res.status, 201, res.text);
  }
});
after(() => server.stop());

test('hostile bodies at every verb answer below 500 (or upstream\'s own 500) and change nothing they must not', async () => {
  const before = await Promise.all(kinds.map(snapshot));
  await fc.assert(
    fc.asyncProperty(requestCase, async (c) => {
      const req = requestOf(c);
      const res = await server.request(req.method, req.path, {
        raw: req.body,
        // Content-Length given: Node's client sends a DELETE body without one otherwise.
        headers: { 'content-type': req.contentType, 'content-length': String(req.body.length) },
      });
      assert.ok(res.status < 500 || isUpstreams500(req, res), `${res.status} ${res.text.slice(0, 400)}\n  for ${req.describe}`);
      if (res.status >= 400) assert.equal(res.json?.kind, 'Status', `an error that is not a Status: ${res.status} ${res.text.slice(0, 200)}\n  for ${req.describe}`);
    }),
    { seed, numRuns, path, endOnFailure: path === undefined ? false : true },
  );
  assert.equal((await server.request('GET', '/readyz')).status, 200, 'ready afterwards');
  const afterwards = await Promise.all(kinds.map(snapshot));
  for (const [i, snap] of afterwards.entries()) {
    assert.equal(snap.resourceVersion, before[i]!.resourceVersion, `${snap.path}: resourceVersion unchanged`);
    assert.equal(snap.text, before[i]!.text, `${snap.path}: content unchanged`);
  }
});

// Found by the property test: a patch could store metadata of the wrong type (a merge
// patch `{"metadata":{"finalizers":5}}` answered 200 and later requests on the object 500).
test('a patch that gives metadata a wrong type answers 422 on the field "patch" and stores nothing', async () => {
  const wrong: [string, unknown][] = [
    ['finalizers', 5], ['finalizers', [5]], ['labels', 'x'], ['labels', { a: 1 }], ['annotations', [1]],
    ['ownerReferences', 'x'], ['ownerReferences', [1]], ['name', { a: 1 }], ['generateName', 7],
  ];
  for (const kind of kinds) {
    const name = `typed-${kind.name.toLowerCase()}`;
    const created = await server.request('POST', kind.collection(), { body: kind.valid(name) });
    assert.equal(created.status, 201, created.text);
    for (const [field, value] of wrong) {
      const patches: [string, unknown][] = [
        ['application/merge-patch+json', { metadata: { [field]: value } }],
        ['application/json-patch+json', [{ op: 'add', path: `/metadata/${field}`, value }]],
      ];
      if (kind.strategic) patches.push(['application/strategic-merge-patch+json', { metadata: { [field]: value } }]);
      for (const [contentType, patch] of patches) {
        const res = await server.request('PATCH', `${kind.collection()}/${name}`, { body: patch, headers: { 'content-type': contentType } });
        const what = `${kind.name} ${contentType} metadata.${field}: ${JSON.stringify(value)}`;
        assert.equal(res.status, 422, `${what}: ${res.text.slice(0, 300)}`);
        assert.equal(res.json.details.causes[0].field, 'patch', what);
        // Upstream decodes a JSON or merge patch's result with encoding/json, and converts a
        // strategic merge patch's result from unstructured data (its error names the patch).
        const expected = contentType === 'application/strategic-merge-patch+json'
          ? /^ "" is invalid: patch: Invalid value: "map\[metadata:map\[.*": cannot (restore|convert) /
          : kind.strategic
            ? new RegExp(`json: cannot unmarshal \\w+ into Go struct field ObjectMeta\\.metadata\\.${field} of type`)
            // A custom resource's metadata is decoded alone (apiextensions' GetObjectMeta).
            : new RegExp(`json: cannot unmarshal \\w+ into Go struct field ObjectMeta\\.${field} of type`);
        assert.match(res.json.message, expected, what);
      }
    }
    const after = await server.request('GET', `${kind.collection()}/${name}`);
    assert.equal(after.json.metadata.resourceVersion, created.json.metadata.resourceVersion, `${kind.name} unchanged`);
  }
});
