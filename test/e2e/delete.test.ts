// DELETE answers as upstream's delete handler: 200 with the object while it stays
// (finalizers, a terminating namespace, a CRD awaiting cleanup), 202 only when the client
// also set orphanDependents=false; 200 with the object (types whose registry returns it)
// or a Success Status when it is gone; deletecollection 200 with the list it deleted from.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';

type Json = Record<string, any>;

let server: TestServer;
const group = 'delete-codes.example.com';
before(async () => {
  server = await startServer();
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
  await eventually(async () => assert.equal((await server.request('GET', `/apis/${group}/v1/widgets`)).status, 200), { what: 'widgets to be served' });
});
after(async () => {
  await server.stop();
});

const finalizer = 'example.com/hold';

/** DELETE with an optional DeleteOptions body; Node sends a DELETE body only with its length given. */
function del(url: string, body?: Json) {
  if (body === undefined) return server.request('DELETE', url);
  return server.request('DELETE', url, { body, headers: { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) } });
}

/** Creates an object at `collection` and answers its path. */
async function create(collection: string, body: Json): Promise<{ path: string; object: Json }> {
  const res = await server.request('POST', collection, { body });
  assert.equal(res.status, 201, res.text);
  return { path: `${collection}/${res.json.metadata.name}`, object: res.json };
}

const configMap = (ns: string, finalizers?: string[]) =>
  create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c', finalizers }, data: { a: '1' } });

interface Row {
  name: string;
  /** Creates what the DELETE is sent to, in a namespace of its own. */
  setup(ns: string): Promise<{ path: string; object: Json }>;
  query?: string;
  body?: Json;
  /** Send the DELETE this many times; the last answer is checked. */
  times?: number;
  status: number;
  /** "Status" for a Success Status (checked whole), else the kind of the object answered. */
  answer: string;
  /** Whether the object is still there afterwards. */
  stays: boolean;
  /** The object answered carries a deletionTimestamp (default: exactly when it stays). */
  marked?: boolean;
  /** A controller finishes it soon: afterwards it is either still there or already gone. */
  finishedSoon?: boolean;
}

const rows: Row[] = [
  { name: 'configmap: gone, Success Status', setup: (ns) => configMap(ns), status: 200, answer: 'Status', stays: false },
  { name: 'configmap with kubectl\'s DeleteOptions: gone, Success Status', setup: (ns) => configMap(ns), body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }, status: 200, answer: 'Status', stays: false },
  { name: 'configmap with orphanDependents=false: gone at once, so 200 and a Status', setup: (ns) => configMap(ns), body: { orphanDependents: false }, status: 200, answer: 'Status', stays: false },
  { name: 'configmap dry run: a Status, and it stays', setup: (ns) => configMap(ns), query: 'dryRun=All', status: 200, answer: 'Status', stays: true },
  { name: 'configmap kept by a finalizer: 200 with the object', setup: (ns) => configMap(ns, [finalizer]), status: 200, answer: 'ConfigMap', stays: true },
  { name: 'configmap kept by a finalizer, deleted again: 200 with the object', setup: (ns) => configMap(ns, [finalizer]), times: 2, status: 200, answer: 'ConfigMap', stays: true },
  { name: 'configmap kept by a finalizer, Foreground: 200 with the object', setup: (ns) => configMap(ns, [finalizer]), body: { propagationPolicy: 'Foreground' }, status: 200, answer: 'ConfigMap', stays: true },
  { name: 'configmap kept by a finalizer, orphanDependents=true: 200 with the object', setup: (ns) => configMap(ns, [finalizer]), body: { orphanDependents: true }, status: 200, answer: 'ConfigMap', stays: true },
  { name: 'configmap kept by a finalizer, orphanDependents=false in the body: 202 with the object', setup: (ns) => configMap(ns, [finalizer]), body: { orphanDependents: false }, status: 202, answer: 'ConfigMap', stays: true },
  { name: 'configmap kept by a finalizer, orphanDependents=false in the query: 202 with the object', setup: (ns) => configMap(ns, [finalizer]), query: 'orphanDependents=false', status: 202, answer: 'ConfigMap', stays: true },
  { name: 'secret: gone, Success Status', setup: (ns) => create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' } }), status: 200, answer: 'Status', stays: false },
  // Pods are deleted gracefully: even one no node runs is first marked (grace 0), then deleted, and answered as marked.
  { name: 'pod: gone, 200 with the pod (ReturnDeletedObject)', setup: (ns) => create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }), status: 200, answer: 'Pod', stays: false, marked: true },
  { name: 'service: gone, 200 with the service (ReturnDeletedObject)', setup: (ns) => create(`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } }), status: 200, answer: 'Service', stays: false },
  { name: 'serviceaccount: gone, 200 with the serviceaccount (ReturnDeletedObject)', setup: (ns) => create(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa' } }), status: 200, answer: 'ServiceAccount', stays: false },
  { name: 'node (cluster-scoped): gone, Success Status', setup: (ns) => create('/api/v1/nodes', { metadata: { name: `${ns}-node` } }), status: 200, answer: 'Status', stays: false },
  // The namespace controller empties and finalizes it in the background, possibly before the GET after the DELETE.
  { name: 'namespace: Terminating, 200 with the namespace', setup: (ns) => create('/api/v1/namespaces', { metadata: { name: `${ns}-x` } }), status: 200, answer: 'Namespace', stays: true, finishedSoon: true },
  { name: 'namespace deleted again while Terminating: 200 with the namespace', setup: (ns) => create('/api/v1/namespaces', { metadata: { name: `${ns}-x`, finalizers: [finalizer] } }), times: 2, status: 200, answer: 'Namespace', stays: true },
  { name: 'namespace with orphanDependents=false: 202 with the namespace', setup: (ns) => create('/api/v1/namespaces', { metadata: { name: `${ns}-x`, finalizers: [finalizer] } }), body: { orphanDependents: false }, status: 202, answer: 'Namespace', stays: true },
  { name: 'custom resource: gone, Success Status', setup: (ns) => create(`/apis/${group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' } }), status: 200, answer: 'Status', stays: false },
  { name: 'custom resource kept by a finalizer: 200 with the object', setup: (ns) => create(`/apis/${group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', finalizers: [finalizer] } }), status: 200, answer: 'Widget', stays: true },
  {
    name: 'CRD: kept for its cleanup, 200 with the CRD',
    setup: (ns) => create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: `things.${ns}.example.com`, finalizers: [finalizer] },
      spec: {
        group: `${ns}.example.com`, scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    }),
    status: 200, answer: 'CustomResourceDefinition', stays: true,
  },
];

describe('DELETE of one object', () => {
  for (const row of rows) {
    test(`${row.name}: ${row.status}`, async () => {
      const ns = await server.newNamespace('delete');
      const { path, object } = await row.setup(ns);
      const url = row.query === undefined ? path : `${path}?${row.query}`;
      let res = await del(url, row.body);
      for (let i = 1; i < (row.times ?? 1); i++) res = await del(url, row.body);
      assert.equal(res.status, row.status, res.text);
      if (row.answer === 'Status') {
        const [, apis, g] = /^\/(apis?)\/([^/]+)/.exec(path)!;
        const details: Json = { name: object.metadata.name, kind: path.split('/').at(-2), uid: object.metadata.uid };
        if (apis === 'apis') details.group = g;
        assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
      } else {
        assert.equal(res.json.kind, row.answer);
        assert.equal(res.json.metadata.uid, object.metadata.uid);
        assert.equal(res.json.metadata.deletionTimestamp !== undefined, row.marked ?? row.stays, 'deletionTimestamp set exactly when the object stays');
      }
      const after = await server.request('GET', path);
      if (row.finishedSoon === true) assert.ok(after.status === 404 || (after.status === 200 && after.json.metadata.deletionTimestamp !== undefined), after.text);
      else assert.equal(after.status, row.stays ? 200 : 404, after.text);
    });
  }

  test('orphanDependents with propagationPolicy is 422, as upstream\'s DeleteOptions validation', async () => {
    const ns = await server.newNamespace('delete');
    const { path } = await configMap(ns);
    const res = await del(path, { orphanDependents: false, propagationPolicy: 'Foreground' });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set');
    assert.equal((await server.request('GET', path)).status, 200);
  });

  test('DELETE of a subresource is 405 (no subresource serves it)', async () => {
    const ns = await server.newNamespace('delete');
    const { path } = await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const res = await server.request('DELETE', `${path}/status`);
    assert.equal(res.status, 405, res.text);
    assert.equal((await server.request('GET', path)).status, 200);
  });
});

describe('deletecollection', () => {
  test('built-in: 200 with the list it deleted from, items as listed', async () => {
    const ns = await server.newNamespace('delete');
    await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'held', labels: { del: 'yes' }, finalizers: [finalizer] } });
    await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'gone', labels: { del: 'yes' } } });
    await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'other' } });
    const listed = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=del%3Dyes`)).json;
    const res = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=del%3Dyes`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'ConfigMapList');
    assert.deepEqual(res.json.items.map((i: Json) => i.metadata.name), ['gone', 'held']);
    // As listed: the held one without the deletionTimestamp the delete then set.
    assert.deepEqual(res.json.items, listed.items);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/gone`)).status, 404);
    assert.notEqual((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/held`)).json.metadata.deletionTimestamp, undefined);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/other`)).status, 200);
  });

  // Upstream's handler decodes and validates the ListOptions before it deletes anything.
  const refused: [query: string, status: number, message: RegExp][] = [
    ['limit=ten', 400, /^strconv\.ParseInt: parsing "ten": invalid syntax$/],
    ['timeoutSeconds=1.5', 400, /^strconv\.ParseInt: parsing "1\.5": invalid syntax$/],
    ['resourceVersionMatch=Newest', 422, /resourceVersionMatch is forbidden unless resourceVersion is provided/],
    ['resourceVersion=1&resourceVersionMatch=Newest', 422, /Unsupported value: "Newest"/],
    ['sendInitialEvents=true', 422, /sendInitialEvents is forbidden for list/],
    ['resourceVersion=abc', 400, /^invalid resource version: strconv\.ParseUint: parsing "abc": invalid syntax$/],
    ['continue=not-a-token', 400, /^invalid continue token: continue key is not valid: invalid character/],
    ['continue=abc&resourceVersion=5', 400, /^specifying resource version is not allowed when using continue$/],
    ['watch=true&sendInitialEvents=true', 422, /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/],
  ];
  for (const [query, status, message] of refused) {
    test(`${query}: ${status}, and nothing is deleted`, async () => {
      const ns = await server.newNamespace('delete');
      await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'kept' } });
      const res = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?${query}`);
      assert.equal(res.status, status, res.text);
      assert.equal(res.json.kind, 'Status');
      assert.match(res.json.message, message);
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/kept`)).status, 200, 'the object stays');
    });
  }

  test('a limit deletes one page and answers its continue token; continue deletes the next', async () => {
    const ns = await server.newNamespace('delete');
    for (const name of ['a', 'b', 'c', 'd', 'e']) await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
    const names = async () => (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.items.map((i: Json) => i.metadata.name);
    const first = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?limit=2`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.items.map((i: Json) => i.metadata.name), ['a', 'b']);
    assert.equal(first.json.metadata.remainingItemCount, 3);
    assert.equal(typeof first.json.metadata.continue, 'string');
    assert.deepEqual(await names(), ['c', 'd', 'e'], 'one page deleted');
    const next = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(next.json.items.map((i: Json) => i.metadata.name), ['c', 'd']);
    assert.deepEqual(await names(), ['e']);
    const rest = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?limit=10&continue=${encodeURIComponent(next.json.metadata.continue)}`);
    assert.deepEqual(rest.json.items.map((i: Json) => i.metadata.name), ['e']);
    assert.equal(rest.json.metadata.continue, undefined, 'the last page');
    assert.deepEqual(await names(), []);
  });

  test('resourceVersion and resourceVersionMatch=Exact delete what the list at that revision holds', async () => {
    const ns = await server.newNamespace('delete');
    const old = await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'old' } });
    await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'new' } });
    const res = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${old.object.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.items.map((i: Json) => i.metadata.name), ['old']);
    assert.equal(res.json.metadata.resourceVersion, old.object.metadata.resourceVersion);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/old`)).status, 404);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/new`)).status, 200, 'created after that revision: kept');
  });

  test('custom resources: 200 with the list', async () => {
    const ns = await server.newNamespace('delete');
    await create(`/apis/${group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a' } });
    const res = await server.request('DELETE', `/apis/${group}/v1/namespaces/${ns}/widgets`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'WidgetList');
    assert.deepEqual(res.json.items.map((i: Json) => i.metadata.name), ['a']);
    assert.deepEqual((await server.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets`)).json.items, []);
  });
});

describe('options in the query, read as upstream\'s query conversion reads them', () => {
  test('uid and resourceVersion are preconditions; a boolean is true unless 0 or false; an integer that does not parse is Go\'s 400', async () => {
    const ns = await server.newNamespace('delete-query');
    const { path, object } = await configMap(ns, [finalizer]);
    const wrongUid = await del(`${path}?uid=not-the-uid`);
    assert.equal(wrongUid.status, 409, wrongUid.text);
    assert.equal(wrongUid.json.message, `Operation cannot be fulfilled on ConfigMap "c": the UID in the precondition (not-the-uid) does not match the UID in record (${object.metadata.uid}). The object might have been deleted and then recreated`);
    const staleVersion = await del(`${path}?resourceVersion=1`);
    assert.equal(staleVersion.status, 409, staleVersion.text);
    // orphanDependents=yes is true (Go's query conversion refuses no boolean): the orphan finalizer is added.
    const orphaned = await del(`${path}?orphanDependents=yes&uid=${object.metadata.uid}`);
    assert.equal(orphaned.status, 200, orphaned.text);
    assert.deepEqual(orphaned.json.metadata.finalizers, [finalizer, 'orphan']);
    for (const [query, message] of [['gracePeriodSeconds=x', 'strconv.ParseInt: parsing "x": invalid syntax'], ['gracePeriodSeconds=', 'strconv.ParseInt: parsing "": invalid syntax'],
      ['gracePeriodSeconds=99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range']]) {
      const res = await del(`${path}?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.json.message, message, query);
    }
    const list = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=ten`);
    assert.equal(list.status, 400);
    assert.equal(list.json.message, 'strconv.ParseInt: parsing "ten": invalid syntax');
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=%2B5`)).status, 200, 'a sign is Go syntax');
    // Without a body, a collection's resourceVersion is its list's and, as upstream decodes the
    // query into DeleteOptions too, a precondition on each object it deletes.
    const other = await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'other' } });
    const collectionPath = `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0&fieldSelector=metadata.name%3Dother`;
    const refused = await del(collectionPath);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.message, `Operation cannot be fulfilled on ConfigMap "other": the ResourceVersion in the precondition (0) does not match the ResourceVersion in record (${other.object.metadata.resourceVersion}). The object might have been modified`);
    // With a body (client-go sends one), the options are the body's: the query's resourceVersion is the list's alone.
    const collection = await del(collectionPath, {});
    assert.equal(collection.status, 200, collection.text);
    assert.deepEqual(collection.json.items.map((item: Json) => item.metadata.name), ['other']);
  });
});
