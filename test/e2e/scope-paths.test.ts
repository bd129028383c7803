// Paths that do not exist for a resource's scope: a cluster-scoped resource under a
// namespace path is upstream's 404 for an unrouted path, whatever the verb (go-restful's
// Status for a built-in; for a custom resource, apiextensions' handler passes it on to the
// notfoundhandler's plain text), while a namespace's own paths (`/api/v1/namespaces/x`,
// `/status`, `/finalize`) stay as they are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { serveOpenCrds } from '../helpers/crds.ts';

let server: TestServer;
let ns: string;
const group = 'scope-paths.example.com';
before(async () => {
  server = await startServer();
  ns = await server.newNamespace('scope');
  await serveOpenCrds(server, group, [['Cluster', 'globals', 'Global'], ['Namespaced', 'locals', 'Local']]);
  assert.equal((await server.request('POST', `/apis/${group}/v1/globals`, { body: { apiVersion: `${group}/v1`, kind: 'Global', metadata: { name: 'g' } } })).status, 201);
  assert.equal((await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'scope-node' } } })).status, 201);
});
after(async () => {
  await server.stop();
});

/** Upstream's answer for a path no route serves (go-restful's 404 through the Status writer). */
const unrouted = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};

/** The notfoundhandler's answer at the end of the delegation chain: net/http's NotFound. */
function assertChainEnd404(res: { status: number; text: string; headers: Record<string, unknown> }): void {
  assert.equal(res.status, 404, res.text);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(res.text, '404 page not found\n');
}

// Watches carry timeoutSeconds so that a server answering them with a stream still ends.
const merge = { headers: { 'Content-Type': 'application/merge-patch+json' } };

describe('a cluster-scoped resource under a namespace path is 404', () => {
  const cases: Array<{ name: string; method: string; path: () => string; body?: () => unknown; headers?: Record<string, string>; chainEnd?: true }> = [
    { name: 'list namespaces in a namespace', method: 'GET', path: () => `/api/v1/namespaces/${ns}/namespaces` },
    { name: 'watch namespaces in a namespace (?watch)', method: 'GET', path: () => `/api/v1/namespaces/${ns}/namespaces?watch=1&timeoutSeconds=1` },
    { name: 'watch namespaces in a namespace (/watch/)', method: 'GET', path: () => `/api/v1/watch/namespaces/${ns}/namespaces?timeoutSeconds=1` },
    { name: 'create a namespace in a namespace', method: 'POST', path: () => `/api/v1/namespaces/${ns}/namespaces`, body: () => ({ metadata: { name: 'scope-inner' } }) },
    { name: 'deletecollection of namespaces in a namespace', method: 'DELETE', path: () => `/api/v1/namespaces/${ns}/namespaces` },
    { name: 'get a namespace in a namespace', method: 'GET', path: () => `/api/v1/namespaces/${ns}/namespaces/${ns}` },
    { name: 'get a namespace\'s status in a namespace', method: 'GET', path: () => `/api/v1/namespaces/${ns}/namespaces/${ns}/status` },
    { name: 'update a namespace in a namespace', method: 'PUT', path: () => `/api/v1/namespaces/${ns}/namespaces/${ns}`, body: () => ({ metadata: { name: ns } }) },
    { name: 'patch a namespace in a namespace', method: 'PATCH', path: () => `/api/v1/namespaces/${ns}/namespaces/${ns}`, body: () => ({ metadata: { labels: { a: 'b' } } }), headers: merge.headers },
    { name: 'delete a namespace in a namespace', method: 'DELETE', path: () => `/api/v1/namespaces/${ns}/namespaces/${ns}` },
    { name: 'get a node in a namespace', method: 'GET', path: () => `/api/v1/namespaces/${ns}/nodes/scope-node` },
    { name: 'list nodes in a namespace', method: 'GET', path: () => `/api/v1/namespaces/${ns}/nodes` },
    { name: 'watch nodes in a namespace', method: 'GET', path: () => `/api/v1/watch/namespaces/${ns}/nodes?timeoutSeconds=1` },
    { name: 'delete a node in a namespace', method: 'DELETE', path: () => `/api/v1/namespaces/${ns}/nodes/scope-node` },
    { name: 'get a CRD in a namespace', method: 'GET', path: () => `/apis/apiextensions.k8s.io/v1/namespaces/${ns}/customresourcedefinitions/globals.${group}` },
    { name: 'list CRDs in a namespace', method: 'GET', path: () => `/apis/apiextensions.k8s.io/v1/namespaces/${ns}/customresourcedefinitions` },
    { name: 'delete a CRD in a namespace', method: 'DELETE', path: () => `/apis/apiextensions.k8s.io/v1/namespaces/${ns}/customresourcedefinitions/globals.${group}` },
    { name: 'get a cluster-scoped custom resource in a namespace', method: 'GET', path: () => `/apis/${group}/v1/namespaces/${ns}/globals/g`, chainEnd: true },
    { name: 'list cluster-scoped custom resources in a namespace', method: 'GET', path: () => `/apis/${group}/v1/namespaces/${ns}/globals`, chainEnd: true },
    { name: 'watch cluster-scoped custom resources in a namespace', method: 'GET', path: () => `/apis/${group}/v1/namespaces/${ns}/globals?watch=true&timeoutSeconds=1`, chainEnd: true },
    { name: 'create a cluster-scoped custom resource in a namespace', method: 'POST', path: () => `/apis/${group}/v1/namespaces/${ns}/globals`, body: () => ({ apiVersion: `${group}/v1`, kind: 'Global', metadata: { name: 'h' } }), chainEnd: true },
    { name: 'patch a cluster-scoped custom resource in a namespace', method: 'PATCH', path: () => `/apis/${group}/v1/namespaces/${ns}/globals/g`, body: () => ({ spec: { a: 1 } }), headers: merge.headers, chainEnd: true },
    { name: 'delete a cluster-scoped custom resource in a namespace', method: 'DELETE', path: () => `/apis/${group}/v1/namespaces/${ns}/globals/g`, chainEnd: true },
    { name: 'deletecollection of cluster-scoped custom resources in a namespace', method: 'DELETE', path: () => `/apis/${group}/v1/namespaces/${ns}/globals`, chainEnd: true },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const res = await server.request(c.method, c.path(), { body: c.body?.(), headers: c.headers });
      if (c.chainEnd) return assertChainEnd404(res);
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.json, unrouted);
    });
  }

  test('nothing was created, changed or deleted through those paths', async () => {
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}`)).json.metadata.labels?.a, undefined);
    assert.equal((await server.request('GET', '/api/v1/namespaces/scope-inner')).status, 404);
    assert.equal((await server.request('GET', '/api/v1/nodes/scope-node')).status, 200);
    assert.equal((await server.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/globals.${group}`)).json.metadata.deletionTimestamp, undefined);
    const g = (await server.request('GET', `/apis/${group}/v1/globals/g`)).json;
    assert.equal(g.spec, undefined);
    assert.equal((await server.request('GET', `/apis/${group}/v1/globals/h`)).status, 404);
  });
});

describe('a namespace\'s own paths stay', () => {
  test('GET /api/v1/namespaces/x answers the namespace', async () => {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.name, ns);
  });

  test('GET /api/v1/namespaces/x/status answers the namespace', async () => {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/status`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'Namespace');
  });

  test('PUT /api/v1/namespaces/x/finalize writes spec.finalizers', async () => {
    const other = await server.newNamespace('scope');
    const current = (await server.request('GET', `/api/v1/namespaces/${other}`)).json;
    const res = await server.request('PUT', `/api/v1/namespaces/${other}/finalize`, { body: { ...current, spec: { finalizers: [] } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.finalizers ?? [], []);
  });
});

describe('a namespaced resource without a namespace', () => {
  test('POST to a built-in\'s all-namespaces path is 405 (the path exists, for list)', async () => {
    const res = await server.request('POST', '/api/v1/configmaps', { body: { metadata: { name: 'c' } } });
    assert.equal(res.status, 405, res.text);
  });

  test('POST to a custom resource\'s all-namespaces path is the chain end\'s 404 (upstream\'s handler serves no such path)', async () => {
    const res = await server.request('POST', `/apis/${group}/v1/locals`, { body: { apiVersion: `${group}/v1`, kind: 'Local', metadata: { name: 'l' } } });
    assertChainEnd404(res);
  });

  test('GET of a named object without a namespace is 404', async () => {
    const res = await server.request('GET', '/api/v1/configmaps/c');
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.json, unrouted);
  });
});

describe('verbs a path does not take', () => {
  const notAllowed = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  const cases: Array<{ name: string; method: string; path: () => string; body?: unknown; headers?: Record<string, string> }> = [
    { name: 'POST to a built-in object\'s path', method: 'POST', path: () => `/api/v1/namespaces/${ns}/configmaps/posted`, body: cm('posted') },
    { name: 'POST to a cluster-scoped built-in object\'s path', method: 'POST', path: () => '/api/v1/nodes/posted-node', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'posted-node' } } },
    { name: 'PUT to a built-in collection', method: 'PUT', path: () => `/api/v1/namespaces/${ns}/configmaps`, body: cm('put') },
    { name: 'PATCH of a built-in collection', method: 'PATCH', path: () => `/api/v1/namespaces/${ns}/configmaps`, body: { data: { a: 'b' } }, headers: merge.headers },
    { name: 'PATCH of the namespaces collection', method: 'PATCH', path: () => '/api/v1/namespaces', body: { metadata: { labels: { a: 'b' } } }, headers: merge.headers },
  ];
  for (const c of cases) {
    test(`${c.name} is 405`, async () => {
      const res = await server.request(c.method, c.path(), { body: c.body, headers: c.headers });
      assert.equal(res.status, 405, res.text);
      assert.deepEqual(res.json, notAllowed);
    });
  }

  test('nothing was created through those paths', async () => {
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/posted`)).status, 404);
    assert.equal((await server.request('GET', '/api/v1/nodes/posted-node')).status, 404);
  });

  test('a custom resource collection\'s PUT or PATCH is upstream\'s 400 "name parameter required."', async () => {
    for (const [method, headers] of [['PUT', undefined], ['PATCH', merge.headers]] as const) {
      const res = await server.request(method, `/apis/${group}/v1/namespaces/${ns}/locals`, { body: { apiVersion: `${group}/v1`, kind: 'Local', metadata: { name: 'l' } }, headers });
      assert.equal(res.status, 400, `${method}: ${res.text}`);
      assert.equal(res.json.message, 'name parameter required.');
    }
  });
});
