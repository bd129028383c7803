// The aggregation layer end to end: an extension API server (HTTPS, its own CA, trusting
// Plinth's front-proxy CA from kube-system/extension-apiserver-authentication) behind a
// Service and EndpointSlice, registered by an APIService: its Available condition, requests
// for its group authorized here and proxied with the user in X-Remote-* headers, a watch
// streamed through, discovery (legacy and aggregated) listing its resources, kubectl, and
// a 503 once it has no endpoints.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';
import { sample } from '../helpers/metrics.ts';
import { sendUpgrade, upgradeThrough } from '../helpers/raw-upgrade.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let extension: https.Server;
let extensionPort = 0;
let extensionCaPem = '';
const seen: { url: string; headers: IncomingHttpHeaders; proxyCertificate: string }[] = [];

const resourceList = {
  kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'metrics.k8s.io/v1beta1',
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list', 'watch'] },
  ],
};

/**
 * The extension server's own aggregated discovery: what its legacy list says, and what
 * only the aggregated form carries (a subresource's accepted types); a field no Go type
 * has, and a subresource without its responseKind, as older servers write it.
 */
const extensionDiscovery = {
  kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {},
  items: [{
    metadata: { name: 'metrics.k8s.io' },
    versions: [{
      version: 'v1beta1', freshness: 'Current',
      resources: [
        { resource: 'nodes', responseKind: { group: '', version: '', kind: 'NodeMetrics' }, scope: 'Cluster', singularResource: '', verbs: ['get', 'list'], categories: ['metrics'], notAField: true },
        {
          resource: 'pods', responseKind: { group: '', version: '', kind: 'PodMetrics' }, scope: 'Namespaced', singularResource: '', verbs: ['get', 'list', 'watch'],
          subresources: [{ subresource: 'window', verbs: ['get'], acceptedTypes: [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'Window' }] }],
        },
      ],
    }],
  }],
};

/** The extension server's OpenAPI v2 document: its group's paths, one of Plinth's, one of another group's. */
const metricsDefinition = (name: string) => `io.k8s.metrics.pkg.apis.metrics.v1beta1.${name}`;
const extensionSwagger = {
  swagger: '2.0', info: { title: 'metrics-server', version: 'v0.7' },
  paths: {
    '/apis/metrics.k8s.io/v1beta1/': { get: { responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList' } } } } },
    '/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods': {
      get: { parameters: [{ $ref: '#/parameters/pretty-tJGM1-ng' }], responses: { 200: { description: 'OK', schema: { $ref: `#/definitions/${metricsDefinition('PodMetricsList')}` } } } },
    },
    '/api/v1/namespaces': { get: { responses: { 200: { description: 'not ours', schema: { $ref: '#/definitions/Elsewhere' } } } } },
    '/apis/other.example/v1/things': { get: { responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/Elsewhere' } } } } },
  },
  parameters: { 'pretty-tJGM1-ng': { name: 'pretty', in: 'query', type: 'string', uniqueItems: true } },
  definitions: {
    'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList': { type: 'object', description: 'the extension server\'s own' },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', properties: { name: { type: 'string' } } },
    [metricsDefinition('PodMetricsList')]: { type: 'object', properties: { items: { type: 'array', items: { $ref: `#/definitions/${metricsDefinition('PodMetrics')}` } } } },
    [metricsDefinition('PodMetrics')]: {
      description: 'PodMetrics sets resource usage metrics of a pod.', type: 'object',
      properties: {
        metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        window: { description: 'How long the usage was measured over.', type: 'string' },
      },
      'x-kubernetes-group-version-kind': [{ group: 'metrics.k8s.io', kind: 'PodMetrics', version: 'v1beta1' }],
    },
    Elsewhere: { type: 'object' },
  },
};

/** Answers the extension server holds back (a request that never completes). */
const held: import('node:http').ServerResponse[] = [];
/** The endless watch's connections that closed. */
const watchClosed: boolean[] = [];
/** The paths of the upgraded connections the extension server saw close. */
const upgradesEnded: string[] = [];

before(async () => {
  server = await startServer({ requestTimeoutMs: 500 });
  // What an extension server reads to trust the aggregator's client certificate.
  const trust = await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
  assert.equal(trust.status, 200);
  const material = await ensureServingMaterial(tempDir('plinth-extension-'), { hosts: ['metrics-server.kube-system.svc'] });
  extensionCaPem = material.caPem;
  extension = https.createServer({ cert: material.certPem, key: material.keyPem, ca: trust.json.data['requestheader-client-ca-file'], requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    seen.push({ url: req.url ?? '', headers: req.headers, proxyCertificate: String(peer.subject?.CN) });
    const path = (req.url ?? '').split('?')[0];
    if (path === '/apis/metrics.k8s.io/v1beta1/nodes' && (req.url ?? '').includes('watch=true')) {
      // A watch that goes on until its caller leaves.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'n1' } } })}\n`);
      req.socket.once('close', () => watchClosed.push(true));
    } else if (path === '/apis/metrics.k8s.io/v1beta1/nodes') {
      held.push(res);
    } else if (path === '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/moved') {
      res.writeHead(302, { location: 'https://elsewhere.example/' }).end('see elsewhere');
    } else if (path === '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/not-modified') {
      res.writeHead(304).end();
    } else if (path === '/apis' && (req.headers.accept ?? '').includes('as=APIGroupDiscoveryList')) {
      res.writeHead(200, { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }).end(JSON.stringify(extensionDiscovery));
    } else if (path === '/openapi/v2') {
      if (req.headers['if-none-match'] === '"v2-1"') res.writeHead(304).end();
      else res.writeHead(200, { 'content-type': 'application/json', etag: '"v2-1"' }).end(JSON.stringify(extensionSwagger));
    } else if (path === '/openapi/v3') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ paths: { 'apis/metrics.k8s.io/v1beta1': { serverRelativeURL: '/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=ABC123' } } }));
    } else if (path === '/openapi/v3/apis/metrics.k8s.io/v1beta1') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ openapi: '3.0.0', info: { title: 'metrics', version: 'v1beta1' }, paths: {}, components: { schemas: { 'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics': { type: 'object' } } } }));
    } else if (path === '/apis/metrics.k8s.io/v1beta1') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(resourceList));
    } else if (path === '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods' && (req.url ?? '').includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'web' } } })}\n`);
      setTimeout(() => res.end(`${JSON.stringify({ type: 'ADDED', object: { kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'db' } } })}\n`), 50);
    } else if (path === '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {},
        items: [{ metadata: { name: 'web', namespace: 'default' }, timestamp: '2026-01-01T00:00:00Z', window: '15s', containers: [{ name: 'app', usage: { cpu: '5m', memory: '10Mi' } }], servedTo: req.headers['x-remote-user'] }],
      }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    }
  });
  // Upgrades: a console that echoes what it is sent in capitals, a refusal, and an answer that is not a switch.
  extension.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const peer = (socket as unknown as import('node:tls').TLSSocket).getPeerCertificate();
    seen.push({ url: req.url ?? '', headers: req.headers, proxyCertificate: String(peer.subject?.CN) });
    socket.on('error', () => {});
    socket.once('close', () => upgradesEnded.push(req.url ?? ''));
    if ((req.url ?? '').includes('/pods/refused/')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nforbidden');
      return;
    }
    if ((req.url ?? '').includes('/pods/silent/')) return; // never answers
    if ((req.url ?? '').includes('/pods/plain/')) {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\nX-Console: yes\r\n\r\n`);
    if (head.length > 0) socket.write(head.toString().toUpperCase());
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().toUpperCase()));
  });
  await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', resolve));
  extensionPort = (extension.address() as AddressInfo).port;

  const create = async (path: string, body: object) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
  };
  // The extension server runs here, on the loopback address an EndpointSlice may not name: an
  // ExternalName service reaches it at the APIService's port.
  await create('/api/v1/namespaces/kube-system/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' },
  });
  await create('/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: {
      service: { namespace: 'kube-system', name: 'metrics-server', port: extensionPort }, group: 'metrics.k8s.io', version: 'v1beta1',
      caBundle: Buffer.from(extensionCaPem).toString('base64'), groupPriorityMinimum: 100, versionPriority: 100,
    },
  });
});
after(async () => {
  for (const res of held) res.end();
  await server?.stop();
  extension?.close();
});

const availability = async () => {
  const res = await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io');
  return (res.json.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available');
};

test('the APIService becomes Available once its service answers discovery', async () => {
  const condition = await eventually(async () => {
    const found = await availability();
    assert.equal(found?.status, 'True', JSON.stringify(found));
    return found;
  });
  assert.equal(condition.reason, 'Passed');
  assert.equal(condition.message, 'all checks passed');
  // The check was made with the front-proxy client certificate.
  assert.equal(seen[0]!.proxyCertificate, 'front-proxy-client');
});

test('a request for the group is authorized here, then proxied with the user in X-Remote-* headers', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const res = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'PodMetricsList');
  const request = seen.at(-1)!;
  assert.equal(request.url, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods');
  assert.equal(res.json.items[0].servedTo, request.headers['x-remote-user']);
  assert.match(String(request.headers['x-remote-group']), /system:masters/);
  assert.equal(request.headers.authorization, undefined);
  assert.equal(request.proxyCertificate, 'front-proxy-client');
  // Someone RBAC does not allow is refused here, before any proxying.
  const before = seen.length;
  const refused = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', { anonymous: true });
  assert.equal(refused.status, 403);
  assert.equal(seen.length, before);
});

test('an extension server\'s redirect is not forwarded (--aggregator-reject-forwarding-redirect): upstream\'s 502', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const res = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/moved');
  assert.equal(res.status, 502);
  assert.equal(res.text, 'the backend attempted to redirect this request, which is not permitted');
  assert.equal(res.headers.location, undefined);
  // A 3xx without a Location goes through.
  assert.equal((await server.request('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/not-modified')).status, 304);
});

test('a request the extension server does not answer in --request-timeout is 504, as upstream\'s timeout filter answers', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const res = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/nodes');
  assert.equal(res.status, 504);
  assert.equal(res.json.reason, 'Timeout');
  assert.equal(res.json.message, 'Timeout: request did not complete within the allotted timeout');
});

test('a watch streams through the proxy', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const res = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?watch=true');
  assert.equal(res.status, 200);
  assert.deepEqual(res.text.trim().split('\n').map((line) => JSON.parse(line).object.metadata.name), ['web', 'db']);
});

test('a caller leaving a proxied watch ends the call to the extension server', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const req = https.get(new URL('/apis/metrics.k8s.io/v1beta1/nodes?watch=true', server.url), { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
      res.once('data', (chunk: Buffer) => {
        resolve(chunk.toString('utf8'));
        req.destroy();
      });
    });
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
  });
  assert.equal(JSON.parse(firstLine).object.metadata.name, 'n1');
  await eventually(() => assert.equal(watchClosed.length, 1));
});

test('an upgrade is passed to the extension server with the user\'s headers, and both connections joined once it switches', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const console = '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web/console';
  const switches = async () => sample((await server.request('GET', '/metrics')).text, 'apiserver_request_total', { group: 'metrics.k8s.io', resource: 'pods', subresource: 'console', code: '101' });
  const switchesBefore = await switches();
  const { head, body, socket } = await upgradeThrough(server, `${console}?x=1`, 'websocket', 'early ', 'GET');
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(head, /\r\nx-console: yes/i);
  // Found by its path: the availability checks reach the extension server meanwhile too.
  const request = seen.find((r) => r.url === `${console}?x=1`)!;
  assert.equal(request.proxyCertificate, 'front-proxy-client');
  assert.equal(request.headers.upgrade, 'websocket');
  assert.match(String(request.headers['x-remote-group']), /system:masters/);
  assert.ok(String(request.headers['x-remote-user']) !== '');
  assert.equal(request.headers.authorization, undefined);
  assert.equal(request.headers['x-forwarded-for'], '127.0.0.1');
  let echoed = body;
  socket.on('data', (chunk: Buffer) => { echoed += chunk.toString(); });
  socket.write('hello');
  await eventually(() => assert.equal(echoed, 'EARLY HELLO'));
  socket.end();
  await eventually(() => assert.ok(upgradesEnded.includes(`${console}?x=1`)));
  await eventually(async () => assert.equal(await switches(), switchesBefore + 1));

  // A refusal comes back as the extension server wrote it; an answer that is not a switch is upstream's plain-text 503.
  const refused = await upgradeThrough(server, console.replace('/web/', '/refused/'), 'websocket', '', 'GET');
  assert.match(refused.head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.equal(refused.body, 'forbidden');
  const plain = await upgradeThrough(server, console.replace('/web/', '/plain/'), 'websocket', '', 'GET');
  assert.match(plain.head, /^HTTP\/1\.1 503 /);
  assert.equal(plain.body, 'invalid upgrade response: status code 200\n');
  refused.socket.destroy();
  plain.socket.destroy();
  // A caller leaving before the extension server answers ends the upgrade sent to it.
  const silentPath = console.replace('/web/', '/silent/');
  const silent = await sendUpgrade(server, silentPath, 'websocket', '', 'GET');
  await eventually(() => assert.ok(seen.some((r) => r.url === silentPath)));
  silent.destroy();
  await eventually(() => assert.ok(upgradesEnded.includes(silentPath)));
  // Someone RBAC does not allow is refused here, before any proxying.
  const anonymous = await upgradeThrough(server, console, 'websocket', '', 'GET', '');
  assert.match(anonymous.head, /^HTTP\/1\.1 403 /);
  assert.equal(seen.filter((r) => r.url === console).length, 0);
  anonymous.socket.destroy();
});

test('discovery lists the aggregated group, its versions and resources', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const groups = await server.request('GET', '/apis');
  const metrics = groups.json.groups.find((g: { name: string }) => g.name === 'metrics.k8s.io');
  assert.deepEqual(metrics, { name: 'metrics.k8s.io', versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' } });
  assert.equal((await server.request('GET', '/apis/metrics.k8s.io')).json.kind, 'APIGroup');
  const aggregated = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
  const item = aggregated.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'metrics.k8s.io');
  assert.equal(item.versions[0].freshness, 'Current');
  assert.deepEqual(item.versions[0].resources.map((r: { resource: string; scope: string; responseKind: { kind: string } }) => [r.resource, r.scope, r.responseKind.kind]), [
    ['nodes', 'Cluster', 'NodeMetrics'], ['pods', 'Namespaced', 'PodMetrics'],
  ]);
});

test('an extension server serving aggregated discovery is listed as it gives its group version there', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const aggregated = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
  const item = aggregated.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'metrics.k8s.io');
  assert.deepEqual(item.versions, [{
    version: 'v1beta1',
    resources: [
      { resource: 'nodes', responseKind: { group: '', version: '', kind: 'NodeMetrics' }, scope: 'Cluster', singularResource: '', verbs: ['get', 'list'], categories: ['metrics'] },
      {
        resource: 'pods', responseKind: { group: '', version: '', kind: 'PodMetrics' }, scope: 'Namespaced', singularResource: '', verbs: ['get', 'list', 'watch'],
        subresources: [{ subresource: 'window', responseKind: { group: '', version: '', kind: '' }, acceptedTypes: [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'Window' }], verbs: ['get'] }],
      },
    ],
    freshness: 'Current',
  }]);
  // Asked as kube-aggregator's discovery manager asks.
  const asked = seen.find((s) => s.url === '/apis' && String(s.headers.accept).includes('as=APIGroupDiscoveryList'))!;
  assert.equal(asked.headers['x-remote-user'], 'system:kube-aggregator');
});

test('its OpenAPI v3 document is listed in /openapi/v3 and served from the extension server', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const index = await server.request('GET', '/openapi/v3');
  assert.deepEqual(index.json.paths['apis/metrics.k8s.io/v1beta1'], { serverRelativeURL: '/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=ABC123' });
  // The served groups are still there.
  assert.ok(index.json.paths['apis/apps/v1'] !== undefined);
  const doc = await server.request('GET', '/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=ABC123');
  assert.equal(doc.status, 200);
  assert.deepEqual(Object.keys(doc.json.components.schemas), ['io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics']);
});

test('its OpenAPI v2 document is merged into /openapi/v2, cut to its group and version, conflicting definitions renamed', async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  const v2 = await eventually(async () => {
    const got = await server.request('GET', '/openapi/v2');
    assert.ok(got.json.paths['/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods'] !== undefined);
    return got;
  });
  const doc = v2.json;
  assert.deepEqual(Object.keys(doc.paths).filter((p: string) => p.startsWith('/apis/metrics.k8s.io/')), ['/apis/metrics.k8s.io/v1beta1/', '/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods']);
  // Another group's path is not the APIService's to add; a path Plinth serves stays Plinth's.
  assert.equal(doc.paths['/apis/other.example/v1/things'], undefined);
  assert.equal(doc.definitions.Elsewhere, undefined);
  assert.notEqual(doc.paths['/api/v1/namespaces'].get.responses['200'].description, 'not ours');
  // Definitions Plinth has with another content are the extension server's under a new name, its references following.
  assert.equal(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].description !== undefined, true);
  assert.deepEqual(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2'], extensionSwagger.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  assert.deepEqual(doc.definitions[metricsDefinition('PodMetrics')].properties.metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2' });
  assert.deepEqual(doc.paths['/apis/metrics.k8s.io/v1beta1/'].get.responses['200'].schema, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList_v2' });
  assert.deepEqual(doc.parameters, extensionSwagger.parameters);
  // Maps in Go's order, the served document's info; one ETag for the merged document, in JSON and Protobuf.
  assert.deepEqual(Object.keys(doc.definitions), [...Object.keys(doc.definitions)].sort());
  assert.equal(doc.info.title, 'Kubernetes');
  const etag = v2.headers.etag as string;
  assert.equal((await server.request('GET', '/openapi/v2', { headers: { 'if-none-match': etag } })).status, 304);
  const protobuf = await server.request('GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
  assert.equal(protobuf.status, 200);
  assert.equal(protobuf.headers.etag, etag);
  // Downloaded as the aggregator.
  const download = seen.find((s) => s.url === '/openapi/v2')!;
  assert.equal(download.headers['x-remote-user'], 'system:aggregator');
});

test('kubectl explains the aggregated kind from the merged OpenAPI v2 document', needsKubectl, async () => {
  await eventually(async () => assert.ok((await server.request('GET', '/openapi/v2')).json.definitions[metricsDefinition('PodMetrics')] !== undefined));
  const explained = await kubectl(server, 'explain', 'podmetrics.window', '--api-version=metrics.k8s.io/v1beta1', '--output=plaintext-openapiv2');
  assert.match(explained, /How long the usage was measured over\./);
});

test('kubectl sees the aggregated API', needsKubectl, async () => {
  await eventually(async () => assert.equal((await availability())?.status, 'True'));
  assert.equal(JSON.parse(await kubectl(server, 'get', '--raw', '/apis/metrics.k8s.io/v1beta1')).groupVersion, 'metrics.k8s.io/v1beta1');
  assert.match(await kubectl(server, 'api-resources', '--api-group=metrics.k8s.io', '--no-headers'), /pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics/);
});

test('a service without endpoints, or none at all, makes the APIService unavailable and its requests 503', async () => {
  // A ClusterIP service: its EndpointSlices are looked for.
  assert.equal((await server.request('DELETE', '/api/v1/namespaces/kube-system/services/metrics-server')).status, 200);
  let condition = await eventually(async () => {
    const found = await availability();
    assert.equal(found?.reason, 'ServiceNotFound');
    return found;
  });
  assert.equal(condition.status, 'False');
  assert.equal(condition.message, 'service/metrics-server in "kube-system" is not present');
  const created = await server.request('POST', '/api/v1/namespaces/kube-system/services', {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics-server' }, spec: { ports: [{ name: 'https', port: extensionPort, targetPort: 10250 }] } },
  });
  assert.equal(created.status, 201, created.text);
  condition = await eventually(async () => {
    const found = await availability();
    assert.equal(found?.reason, 'EndpointsNotFound');
    return found;
  });
  assert.equal(condition.message, 'cannot find endpointslices for service/metrics-server in "kube-system"');
  const res = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods');
  assert.equal(res.status, 503);
  assert.equal(res.text, 'service unavailable\n');
  // The OpenAPI v2 document last downloaded stays merged while the server cannot be reached, as upstream's.
  assert.ok((await server.request('GET', '/openapi/v2')).json.paths['/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods'] !== undefined);
});

test('the APIService deleted, its paths and definitions leave /openapi/v2', async () => {
  assert.equal((await server.request('DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io')).status, 200);
  await eventually(async () => {
    const doc = (await server.request('GET', '/openapi/v2')).json;
    assert.equal(Object.keys(doc.paths).some((p: string) => p.startsWith('/apis/metrics.k8s.io/')), false);
    assert.equal(doc.definitions[metricsDefinition('PodMetrics')], undefined);
    assert.equal(doc.parameters, undefined);
  });
});
