// Paths nothing serves, answered as kube-apiserver v1.36 answers them: one no handler of its
// delegation chain takes (aggregator, kube-apiserver, apiextensions: unknown groups, versions
// and custom resources, paths no mux registers) reaches its notfoundhandler, net/http's
// plain-text `404 page not found` whatever the method; one under a go-restful web service
// (`/api…`, `/version…`, `/apis/<group with built-in types>…`) is go-restful's Status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { serveOpenCrds } from '../helpers/crds.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, tempDir, type Response, type TestServer } from '../helpers/server.ts';

const group = 'unserved-paths.example.com';
const dir = tempDir('plinth-unserved-');
const auditLog = path.join(dir, 'audit.log');
let server: TestServer;

before(async () => {
  writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
  server = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: auditLog });
  await serveOpenCrds(server, group, [['Namespaced', 'widgets', 'Widget'], ['Cluster', 'globals', 'Global']]);
});
after(async () => {
  await server.stop();
});

/** net/http's NotFound, as the notfoundhandler at the end of the delegation chain calls it. */
function assertPlainNotFound(res: Response, what: string): void {
  assert.equal(res.status, 404, `${what}: ${res.text}`);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['content-encoding'], undefined, what);
  assert.equal(res.text, '404 page not found\n', what);
}

/** go-restful's 404 for a path under one of its web services, through kube-apiserver's Status writer. */
const restful404 = {
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
  message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404,
};

const merge = { 'content-type': 'application/merge-patch+json' };
const widget = { apiVersion: 'nope/v1', kind: 'Thing', metadata: { name: 'x' } };

describe('a path no handler of the delegation chain takes is net/http\'s plain-text 404, whatever the method', () => {
  const cases: Array<{ name: string; method: string; path: string; body?: unknown; headers?: Record<string, string> }> = [
    { name: 'a path no mux registers', method: 'GET', path: '/foo' },
    { name: 'POST to it', method: 'POST', path: '/foo', body: {} },
    { name: 'PUT to it', method: 'PUT', path: '/foo', body: {} },
    { name: 'PATCH of it', method: 'PATCH', path: '/foo', body: {}, headers: merge },
    { name: 'DELETE of it', method: 'DELETE', path: '/foo' },
    { name: 'OPTIONS of it', method: 'OPTIONS', path: '/foo' },
    { name: 'an unknown group', method: 'GET', path: '/apis/nope' },
    { name: 'an unknown group with a trailing slash', method: 'GET', path: '/apis/nope/' },
    { name: 'POST to an unknown group', method: 'POST', path: '/apis/nope', body: {} },
    { name: 'an unknown group\'s version', method: 'GET', path: '/apis/nope/v1' },
    { name: 'DELETE of an unknown group\'s version', method: 'DELETE', path: '/apis/nope/v1' },
    { name: 'a resource of an unknown group', method: 'GET', path: '/apis/nope/v1/things' },
    { name: 'a create in an unknown group', method: 'POST', path: '/apis/nope/v1/things', body: widget },
    { name: 'a namespaced create in an unknown group', method: 'POST', path: '/apis/nope/v1/namespaces/default/things', body: widget },
    { name: 'an update in an unknown group', method: 'PUT', path: '/apis/nope/v1/namespaces/default/things/x', body: widget },
    { name: 'a patch in an unknown group', method: 'PATCH', path: '/apis/nope/v1/namespaces/default/things/x', body: {}, headers: merge },
    { name: 'a deletecollection in an unknown group', method: 'DELETE', path: '/apis/nope/v1/namespaces/default/things' },
    { name: 'a watch in an unknown group', method: 'GET', path: '/apis/nope/v1/things?watch=true&timeoutSeconds=1' },
    { name: 'a path with no group (`v1` read as one)', method: 'GET', path: '/apis/v1/namespaces/default/pods' },
    { name: 'an unknown resource of a custom resource group', method: 'GET', path: `/apis/${group}/v1/nopes` },
    { name: 'a create of an unknown resource of a custom resource group', method: 'POST', path: `/apis/${group}/v1/namespaces/default/nopes`, body: {} },
    { name: 'a version of a custom resource group no CRD serves', method: 'GET', path: `/apis/${group}/v2` },
    { name: 'a custom resource in a version its CRD does not serve', method: 'GET', path: `/apis/${group}/v2/namespaces/default/widgets` },
    { name: 'a cluster-scoped custom resource under a namespace', method: 'GET', path: `/apis/${group}/v1/namespaces/default/globals` },
    { name: 'a namespaced custom resource\'s create without a namespace', method: 'POST', path: `/apis/${group}/v1/widgets`, body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' } } },
    { name: '/openapi/v2 with a trailing slash', method: 'GET', path: '/openapi/v2/' },
    { name: 'POST to /openapi/v2 with a trailing slash', method: 'POST', path: '/openapi/v2/', body: {} },
    { name: '/openapi itself', method: 'GET', path: '/openapi' },
    { name: 'an unknown health check', method: 'GET', path: '/healthz/nope' },
    { name: 'POST to an unknown health check', method: 'POST', path: '/healthz/nope', body: {} },
    { name: 'an unknown liveness check', method: 'GET', path: '/livez/nope' },
    { name: 'an unknown readiness check', method: 'GET', path: '/readyz/nope' },
    { name: 'a health endpoint with a trailing slash', method: 'GET', path: '/readyz/' },
    { name: 'a path under /metrics', method: 'GET', path: '/metrics/nope' },
    { name: 'an unknown debug path', method: 'GET', path: '/debug/nope' },
    { name: 'an unknown flow-control dump', method: 'GET', path: '/debug/api_priority_and_fairness/dump_nope' },
    { name: 'an unknown .well-known document', method: 'GET', path: '/.well-known/nope' },
    { name: 'an unknown OpenID path', method: 'GET', path: '/openid/v1/nope' },
  ];
  for (const c of cases) {
    test(`${c.method} ${c.path}: ${c.name}`, async () => {
      const res = await server.request(c.method, c.path, { body: c.body, headers: c.headers });
      assertPlainNotFound(res, `${c.method} ${c.path}`);
    });
  }

  test('neither negotiated nor compressed: Accept and Accept-Encoding change nothing', async () => {
    for (const accept of ['application/vnd.kubernetes.protobuf', 'application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      const res = await server.request('GET', '/apis/nope/v1/things', { headers: { accept, 'accept-encoding': 'gzip' } });
      assertPlainNotFound(res, accept);
    }
  });

  test('HEAD has the same status and headers, without a body', async () => {
    for (const target of ['/foo', '/apis/nope/v1/things', '/healthz/nope']) {
      const res = await server.request('HEAD', target);
      assert.equal(res.status, 404, target);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', target);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', target);
      assert.equal(res.text, '', target);
    }
  });

  test('nothing was created through those paths', async () => {
    const widgets = await server.request('GET', `/apis/${group}/v1/widgets`);
    assert.deepEqual(widgets.json.items, []);
  });
});

describe('a path under a go-restful web service keeps go-restful\'s Status 404', () => {
  const cases: Array<{ name: string; method: string; path: string; body?: unknown }> = [
    { name: 'an unknown core resource', method: 'GET', path: '/api/v1/nopes' },
    { name: 'a create of an unknown core resource', method: 'POST', path: '/api/v1/namespaces/default/nopes', body: {} },
    { name: 'an unknown core version', method: 'GET', path: '/api/v9' },
    { name: 'POST to an unknown core version', method: 'POST', path: '/api/v9', body: {} },
    { name: 'an unknown resource of a built-in group', method: 'GET', path: '/apis/apps/v1/nopes' },
    { name: 'a deletecollection of an unknown resource of a built-in group', method: 'DELETE', path: '/apis/apps/v1/namespaces/default/nopes' },
    { name: 'an unknown version of a built-in group', method: 'GET', path: '/apis/apps/v9' },
    { name: 'DELETE of an unknown version of a built-in group', method: 'DELETE', path: '/apis/apps/v9' },
    { name: 'a resource of an unknown version of a built-in group', method: 'GET', path: '/apis/apps/v9/deployments' },
    { name: 'an unknown resource of apiextensions', method: 'GET', path: '/apis/apiextensions.k8s.io/v1/nopes' },
    { name: 'a path under /version', method: 'GET', path: '/version/x' },
    { name: 'POST to a path under /version', method: 'POST', path: '/version/x', body: {} },
    { name: 'a subresource a built-in type does not have', method: 'GET', path: '/api/v1/namespaces/default/configmaps/c/nope' },
  ];
  for (const c of cases) {
    test(`${c.method} ${c.path}: ${c.name}`, async () => {
      const res = await server.request(c.method, c.path, { body: c.body });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['x-content-type-options'], undefined);
      assert.deepEqual(res.json, restful404);
    });
  }

  test('a served discovery path still refuses other methods with 405', async () => {
    for (const target of ['/api', '/api/v1', '/apis/apps/v1', '/version']) {
      const res = await server.request('POST', target, { body: {} });
      assert.equal(res.status, 405, target);
      assert.equal(res.json.reason, 'MethodNotAllowed', target);
    }
  });
});

describe('the plain-text 404 is recorded with its code', () => {
  test('in /metrics', async () => {
    const scrape = async () => (await server.request('GET', '/metrics')).text;
    const labels = { verb: 'GET', group: '', version: '', resource: '', subresource: '', code: '404' };
    const before = sample(await scrape(), 'apiserver_request_total', labels);
    assertPlainNotFound(await server.request('GET', '/foo'), '/foo');
    assertPlainNotFound(await server.request('GET', '/healthz/nope'), '/healthz/nope');
    assert.equal(sample(await scrape(), 'apiserver_request_total', labels) - before, 2);
  });

  test('in the audit log: the code alone, no Status to read', async () => {
    assertPlainNotFound(await server.request('GET', '/apis/nope/v1/things?audit=plain'), 'audited');
    assert.equal((await server.request('GET', '/api/v1/nopes?audit=restful')).status, 404);
    const event = (uri: string) => readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).find((e) => e.requestURI === uri && e.stage === 'ResponseComplete');
    await eventually(() => assert.ok(event('/api/v1/nopes?audit=restful')));
    assert.deepEqual(event('/apis/nope/v1/things?audit=plain').responseStatus, { metadata: {}, code: 404 });
    assert.deepEqual(event('/api/v1/nopes?audit=restful').responseStatus, {
      metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404,
    });
  });
});
