// Methods kube-apiserver's routes do not take, answered as v1.36 answers them: go-restful's 405
// (a Status with empty details, reason before code, no Allow header) for a built-in path
// routed by other methods, HEAD included (its reads are GET routes); the custom resource
// handler's verbs (HEAD is a get, no verb is NewMethodNotSupported); CONNECT passed to the
// handler as Go's server passes it (an authority is the path "": net/http's NotFound), over
// HTTP/1.1 and HTTP/2, never a dropped connection; and request info's verbs in 403s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'node:tls';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const dir = tempDir('plinth-odd-methods-');
const tokens = { admin: 'admin-token', bob: 'bob-token' };
let server: TestServer;
let ns = '';

const goRestful405 = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}';

before(async () => {
  const file = path.join(dir, 'tokens.csv');
  writeFileSync(file, [`${tokens.admin},admin,admin,"system:masters"`, `${tokens.bob},bob,bob-uid`].join('\n'));
  server = await startServer({ tokenAuthFile: file });
  ns = await server.newNamespace('odd-methods');
  const created = async (urlPath: string, body: object) => {
    const res = await server.request('POST', urlPath, { body, token: tokens.admin });
    assert.equal(res.status, 201, res.text);
  };
  await created(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  await created(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await created('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.odd.example.com' },
    spec: {
      group: 'odd.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  await eventually(async () => {
    const res = await server.request('GET', `/apis/odd.example.com/v1/namespaces/${ns}/widgets`, { token: tokens.admin });
    assert.equal(res.status, 200, res.text);
  });
  await created(`/apis/odd.example.com/v1/namespaces/${ns}/widgets`, { apiVersion: 'odd.example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
});
after(async () => {
  await server?.stop();
});

/** A request written as is on its own TLS connection: the answer's bytes until the server closes (or a second passes). */
async function raw(method: string, target: string, token: string | undefined): Promise<string> {
  const url = new URL(server.url);
  const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caPem, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${url.host}\r\n${token === undefined ? '' : `Authorization: Bearer ${token}\r\n`}Connection: close\r\n\r\n`);
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString(); });
  socket.on('error', () => {});
  await new Promise((resolve) => {
    socket.once('close', resolve);
    setTimeout(resolve, 1000);
  });
  socket.destroy();
  return received;
}

interface Row {
  name: string;
  method: string;
  /** The request target; NS is the test's namespace. */
  target: string;
  token?: keyof typeof tokens;
  code: number;
  /** The body exactly (a HEAD's is empty). */
  body?: string;
  reason?: string;
  message?: string;
  details?: object;
}

const rows: Row[] = [
  // go-restful: a route for the path, none for the method.
  { name: 'PUT of a collection is go-restful\'s 405, byte for byte', method: 'PUT', target: '/api/v1/namespaces/NS/configmaps', code: 405, body: goRestful405 },
  { name: 'POST to an object is go-restful\'s 405', method: 'POST', target: '/api/v1/namespaces/NS/configmaps/c', code: 405, body: goRestful405 },
  { name: 'OPTIONS of a collection (no verb) is go-restful\'s 405', method: 'OPTIONS', target: '/api/v1/namespaces/NS/configmaps', code: 405, body: goRestful405 },
  { name: 'CONNECT to a resource path is go-restful\'s 405', method: 'CONNECT', target: '/api/v1/namespaces/NS/configmaps', code: 405, body: goRestful405 },
  { name: 'POST to a legacy /watch/ path (a watch) is go-restful\'s 405', method: 'POST', target: '/api/v1/watch/namespaces/NS/configmaps', code: 405, body: goRestful405 },
  // HEAD: kube-apiserver's installer routes reads with GET alone.
  { name: 'HEAD of an object is 405', method: 'HEAD', target: '/api/v1/namespaces/NS/configmaps/c', code: 405, body: '' },
  { name: 'HEAD of a list is 405', method: 'HEAD', target: '/api/v1/namespaces/NS/configmaps', code: 405, body: '' },
  { name: 'HEAD of a list across namespaces is 405', method: 'HEAD', target: '/api/v1/configmaps', code: 405, body: '' },
  { name: 'HEAD of a watch is 405', method: 'HEAD', target: '/api/v1/namespaces/NS/configmaps?watch=1', code: 405, body: '' },
  { name: 'HEAD of a namespace is 405', method: 'HEAD', target: '/api/v1/namespaces/NS', code: 405, body: '' },
  { name: 'HEAD of a status subresource is 405', method: 'HEAD', target: '/api/v1/namespaces/NS/pods/p/status', code: 405, body: '' },
  { name: 'HEAD of a subresource the type has not is no route: 404', method: 'HEAD', target: '/api/v1/namespaces/NS/configmaps/c/status', code: 404, body: '' },
  { name: 'HEAD of a missing type is no route: 404', method: 'HEAD', target: '/api/v1/namespaces/NS/nothings/x', code: 404, body: '' },
  // The custom resource handler serves by verb.
  { name: 'HEAD of a custom resource is its get', method: 'HEAD', target: '/apis/odd.example.com/v1/namespaces/NS/widgets/w', code: 200, body: '' },
  { name: 'HEAD of custom resources is their list', method: 'HEAD', target: '/apis/odd.example.com/v1/namespaces/NS/widgets', code: 200, body: '' },
  { name: 'OPTIONS of a custom resource is the handler\'s NewMethodNotSupported for no verb', method: 'OPTIONS', target: '/apis/odd.example.com/v1/namespaces/NS/widgets/w',
    code: 405, reason: 'MethodNotAllowed', message: ' is not supported on resources of kind "widgets.odd.example.com"', details: { group: 'odd.example.com', kind: 'widgets' } },
  { name: 'TRACE of custom resources is the same', method: 'TRACE', target: '/apis/odd.example.com/v1/namespaces/NS/widgets',
    code: 405, reason: 'MethodNotAllowed', message: ' is not supported on resources of kind "widgets.odd.example.com"', details: { group: 'odd.example.com', kind: 'widgets' } },
  // CONNECT as Go's server passes it on: an authority is the path "", which no mux serves.
  { name: 'CONNECT to an authority is net/http\'s NotFound at the end of the delegation chain', method: 'CONNECT', target: 'example.com:443', code: 404, body: '404 page not found\n' },
  { name: 'CONNECT to an authority is authorized as the verb connect on the path ""', method: 'CONNECT', target: 'example.com:443', token: 'bob',
    code: 403, reason: 'Forbidden', message: 'forbidden: User "bob" cannot connect path ""', details: {} },
  // Request info's verbs: a resource request's method no verb stands for has none; a non-resource request's is its method.
  { name: 'OPTIONS of a collection is authorized with an empty verb', method: 'OPTIONS', target: '/api/v1/namespaces/NS/configmaps', token: 'bob',
    code: 403, reason: 'Forbidden', message: 'configmaps is forbidden: User "bob" cannot  resource "configmaps" in API group "" in the namespace "NS"', details: { kind: 'configmaps' } },
  { name: 'a legacy /watch/ path is authorized as a watch whatever the method', method: 'POST', target: '/api/v1/watch/namespaces/NS/configmaps', token: 'bob',
    code: 403, reason: 'Forbidden', message: 'configmaps is forbidden: User "bob" cannot watch resource "configmaps" in API group "" in the namespace "NS"', details: { kind: 'configmaps' } },
  { name: 'POST to a non-resource path is authorized as post', method: 'POST', target: '/version', token: 'bob',
    code: 403, reason: 'Forbidden', message: 'forbidden: User "bob" cannot post path "/version"', details: {} },
];

for (const row of rows) {
  test(`${row.name}: ${row.code}`, async () => {
    const answer = await raw(row.method, row.target.replace('NS', ns), tokens[row.token ?? 'admin']);
    const split = answer.indexOf('\r\n\r\n');
    assert.ok(split > 0, `an answer, not a dropped connection: ${JSON.stringify(answer)}`);
    const head = answer.slice(0, split);
    const body = answer.slice(split + 4);
    assert.equal(Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), row.code, answer);
    // go-restful's Allow header is not written by kube-apiserver's service error handler.
    assert.doesNotMatch(head, /\r\nAllow:/i);
    if (row.body !== undefined) assert.equal(body, row.body);
    if (row.message !== undefined) {
      const status = JSON.parse(body);
      assert.deepEqual([status.reason, status.message, status.details], [row.reason, row.message.replace('"NS"', JSON.stringify(ns)), row.details]);
      assert.deepEqual(Object.keys(status).slice(-3), ['reason', 'details', 'code']);
    }
  });
}

test('HEAD of /healthz is authorized as head: the public-info-viewer role grants get, so anonymous is refused', async () => {
  const answer = await raw('HEAD', '/healthz', undefined);
  assert.match(answer, /^HTTP\/1\.1 403 /);
  const get = await raw('GET', '/healthz', undefined);
  assert.match(get, /^HTTP\/1\.1 200 /);
});

test('CONNECT over HTTP/2 reaches the handlers too, as Go\'s server passes it: 404 for an authority, the 403 of its verb', async () => {
  const session = http2.connect(server.url, { ca: server.caPem });
  session.on('error', () => {});
  try {
    const ask = (token: string) => new Promise<{ status: number; type: unknown; body: string }>((resolve, reject) => {
      const stream = session.request({ ':method': 'CONNECT', ':authority': 'example.com:443', authorization: `Bearer ${token}` }, { endStream: false });
      let status = 0;
      let type: unknown;
      let body = '';
      stream.on('response', (h) => {
        status = Number(h[':status']);
        type = h['content-type'];
      });
      stream.on('data', (chunk: Buffer) => {
        body += chunk.toString();
        // The answer ends its side of the stream; the tunnel's side is the client's to close.
        if (body.endsWith('\n') || body.endsWith('}')) {
          stream.close();
          resolve({ status, type, body });
        }
      });
      stream.on('error', reject);
    });
    assert.deepEqual(await ask(tokens.admin), { status: 404, type: 'text/plain; charset=utf-8', body: '404 page not found\n' });
    const refused = await ask(tokens.bob);
    assert.deepEqual([refused.status, JSON.parse(refused.body).message], [403, 'forbidden: User "bob" cannot connect path ""']);
  } finally {
    session.destroy();
  }
});

test('a short request\'s timeout parameter must be a Go duration: upstream\'s 400 before authentication; a watch\'s is not read', async () => {
  const cases: [string, number, string | undefined][] = [
    ['/api/v1/namespaces/default/configmaps?timeout=garbage', 400, 'invalid timeout specified in the request URL - time: invalid duration "garbage"'],
    ['/version?timeout=5', 400, 'invalid timeout specified in the request URL - time: missing unit in duration "5"'],
    ['/apis?timeout=5d', 400, 'invalid timeout specified in the request URL - time: unknown unit "d" in duration "5d"'],
    ['/api/v1/namespaces/default/configmaps?timeout=32s', 200, undefined],
    ['/api/v1/namespaces/default/configmaps?timeout=', 200, undefined],
  ];
  for (const [url, status, message] of cases) {
    const res = await server.request('GET', url, { token: tokens.admin });
    assert.equal(res.status, status, `${url}: ${res.text}`);
    if (message !== undefined) assert.deepEqual([res.json.reason, res.json.message], ['BadRequest', message], url);
  }
  const anonymous = await server.request('GET', '/api/v1/namespaces?timeout=x', { token: 'no-such-token' });
  assert.equal(anonymous.status, 400, 'the deadline filter runs before authentication');
});
