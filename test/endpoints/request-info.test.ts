import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestInfo } from '../../src/endpoints/request-info.ts';

const cases: { name: string; method: string; path: string; query?: string; want: Record<string, unknown> }[] = [
  { name: 'namespaced collection GET is list', method: 'GET', path: '/api/v1/namespaces/ns1/configmaps',
    want: { verb: 'list', group: '', version: 'v1', namespace: 'ns1', resource: 'configmaps', name: '' } },
  { name: 'named GET is get', method: 'GET', path: '/apis/apps/v1/namespaces/a/deployments/web',
    want: { verb: 'get', group: 'apps', version: 'v1', namespace: 'a', resource: 'deployments', name: 'web' } },
  { name: 'subresource', method: 'PUT', path: '/apis/apps/v1/namespaces/a/deployments/web/scale',
    want: { verb: 'update', resource: 'deployments', name: 'web', subresource: 'scale' } },
  { name: 'cluster-wide list of a namespaced type', method: 'GET', path: '/api/v1/pods',
    want: { verb: 'list', namespace: '', resource: 'pods' } },
  { name: 'a namespace itself', method: 'GET', path: '/api/v1/namespaces/kube-system',
    want: { verb: 'get', namespace: 'kube-system', resource: 'namespaces', name: 'kube-system' } },
  { name: 'a namespace status is a subresource, not a resource', method: 'PUT', path: '/api/v1/namespaces/x/status',
    want: { verb: 'update', namespace: 'x', resource: 'namespaces', name: 'x', subresource: 'status' } },
  { name: 'watch parameter', method: 'GET', path: '/api/v1/namespaces/a/configmaps', query: 'watch=1',
    want: { verb: 'watch', resource: 'configmaps' } },
  { name: 'watch=false is a list', method: 'GET', path: '/api/v1/configmaps', query: 'watch=false',
    want: { verb: 'list' } },
  { name: 'watch with an empty value is a watch, as Go reads the option', method: 'GET', path: '/api/v1/configmaps', query: 'watch',
    want: { verb: 'watch' } },
  { name: 'watch=FALSE is a list, watch=yes a watch', method: 'GET', path: '/api/v1/configmaps', query: 'watch=FALSE',
    want: { verb: 'list' } },
  { name: 'watch=yes is a watch', method: 'GET', path: '/api/v1/configmaps', query: 'watch=yes',
    want: { verb: 'watch' } },
  { name: 'watch on an object\'s path is a get: only a collection reads the parameter', method: 'GET', path: '/api/v1/namespaces/a/configmaps/web',
    query: 'watch=1', want: { verb: 'get', name: 'web' } },
  { name: 'a list selecting metadata.name names it for authorization, and still lists', method: 'GET', path: '/api/v1/namespaces/a/configmaps',
    query: 'fieldSelector=metadata.name%3Dweb', want: { verb: 'list', name: '', selectedName: 'web' } },
  { name: 'a watch selecting metadata.name== among other terms', method: 'GET', path: '/api/v1/namespaces/a/secrets',
    query: 'watch=true&fieldSelector=type%3Dx,metadata.name%3D%3Dtls', want: { verb: 'watch', selectedName: 'tls' } },
  { name: 'metadata.name!= selects no name', method: 'GET', path: '/api/v1/namespaces/a/configmaps',
    query: 'fieldSelector=metadata.name!%3Dweb', want: { selectedName: '' } },
  { name: 'no name when another list option does not decode', method: 'GET', path: '/api/v1/namespaces/a/configmaps',
    query: 'fieldSelector=metadata.name%3Dweb&limit=x', want: { verb: 'list', selectedName: '' } },
  { name: 'no name when the label selector does not parse', method: 'GET', path: '/api/v1/namespaces/a/configmaps',
    query: 'fieldSelector=metadata.name%3Dweb&labelSelector=a%20in', want: { selectedName: '' } },
  { name: 'no name that could not be a path segment', method: 'GET', path: '/api/v1/namespaces/a/configmaps',
    query: 'fieldSelector=metadata.name%3D..', want: { selectedName: '' } },
  { name: 'the legacy watch prefix takes no name from the selector', method: 'GET', path: '/api/v1/watch/namespaces/a/configmaps',
    query: 'fieldSelector=metadata.name%3Dweb', want: { verb: 'watch', selectedName: '' } },
  { name: 'legacy watch prefix', method: 'GET', path: '/api/v1/watch/namespaces/a/configmaps',
    want: { verb: 'watch', namespace: 'a', resource: 'configmaps' } },
  { name: 'DELETE of a collection is deletecollection', method: 'DELETE', path: '/api/v1/namespaces/a/configmaps',
    want: { verb: 'deletecollection' } },
  { name: 'POST is create', method: 'POST', path: '/api/v1/namespaces/a/configmaps', want: { verb: 'create' } },
  // Upstream's NewRequestInfo: a method that no verb stands for leaves the verb empty.
  { name: 'OPTIONS has no verb', method: 'OPTIONS', path: '/api/v1/namespaces/a/configmaps', want: { verb: '', resource: 'configmaps' } },
  { name: 'CONNECT to a resource path has no verb', method: 'CONNECT', path: '/api/v1/namespaces/a/pods/p/exec', want: { verb: '', subresource: 'exec' } },
  { name: 'TRACE on an object has no verb', method: 'TRACE', path: '/api/v1/namespaces/a/configmaps/c', want: { verb: '', name: 'c' } },
  { name: 'HEAD is get', method: 'HEAD', path: '/api/v1/namespaces/a/configmaps/c', want: { verb: 'get' } },
  { name: 'HEAD of a collection is list', method: 'HEAD', path: '/api/v1/namespaces/a/configmaps', want: { verb: 'list' } },
  { name: 'the legacy watch prefix is a watch whatever the method', method: 'POST', path: '/api/v1/watch/namespaces/a/configmaps',
    want: { verb: 'watch', namespace: 'a', resource: 'configmaps' } },
  { name: 'the legacy watch prefix with DELETE is a watch too', method: 'DELETE', path: '/apis/apps/v1/watch/deployments', want: { verb: 'watch' } },
];

for (const c of cases) {
  test(`request info: ${c.name}`, () => {
    const info = requestInfo(c.method, c.path, new URLSearchParams(c.query ?? ''));
    assert.equal(info.isResourceRequest, true);
    for (const [key, value] of Object.entries(c.want)) assert.equal((info as unknown as Record<string, unknown>)[key], value, key);
  });
}

test('discovery paths are not resource requests', () => {
  for (const path of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version', '/openapi/v3/api/v1']) {
    assert.equal(requestInfo('GET', path, new URLSearchParams()).isResourceRequest, false, path);
  }
});

test('path segments: empty ones are skipped, escaped ones decoded, a bad escape is no resource request', () => {
  const info = requestInfo('GET', '//api/v1//namespaces/n%20s/configmaps/a%3Ab/', new URLSearchParams());
  assert.equal(info.isResourceRequest, true);
  assert.deepEqual(info.isResourceRequest && [info.namespace, info.resource, info.name], ['n s', 'configmaps', 'a:b']);
  const plain = requestInfo('GET', '/apis/apps/v1/namespaces/ns/deployments/d/scale', new URLSearchParams());
  assert.deepEqual(plain.isResourceRequest && [plain.group, plain.version, plain.namespace, plain.resource, plain.name, plain.subresource], ['apps', 'v1', 'ns', 'deployments', 'd', 'scale']);
  const bad = requestInfo('GET', '/api/v1/namespaces/%E0%A4%A', new URLSearchParams());
  assert.equal(bad.isResourceRequest, false);
  assert.deepEqual(bad.isResourceRequest === false && bad.parts, ['api', 'v1', 'namespaces', '%E0%A4%A']);
});

test('a non-resource request\'s verb is its method in lower case, as upstream\'s', () => {
  const cases: Array<[method: string, path: string, verb: string]> = [
    ['GET', '/healthz', 'get'],
    ['HEAD', '/healthz', 'head'],
    ['POST', '/version', 'post'],
    ['PUT', '/apis', 'put'],
    ['DELETE', '/api', 'delete'],
    ['OPTIONS', '*', 'options'],
    ['CONNECT', '', 'connect'],
    ['PROPFIND', '/api/v1/namespaces/%E0%A4%A', 'propfind'],
  ];
  for (const [method, path, verb] of cases) {
    const info = requestInfo(method, path, new URLSearchParams());
    assert.deepEqual([info.isResourceRequest, info.verb, info.path], [false, verb, path], `${method} ${path}`);
  }
});
