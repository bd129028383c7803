// pods/proxy and services/proxy to a pod that answers (a server on loopback playing it, which
// the server is told it may reach): the target as upstream finds it, the request as upstream's
// proxy passes it on, the answer back, redirects and HTML links, upgrades, and what cannot be
// reached.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { isGlobalUnicast } from '../../src/endpoints/pod-network-client.ts';
import { splitSchemeNamePort } from '../../src/endpoints/handlers/workload-proxy.ts';
import { simulatedNodeAnnotation } from '../../src/registry/builtin/nodes.ts';
import type { KubeObject } from '../../src/api/index.ts';
import { encodeForStorage } from '../../src/registry/codec.ts';
import { objectKey } from '../../src/registry/keys.ts';
import { builtinType } from '../helpers/store.ts';
import { MemoryBackend } from '../../src/storage/memory.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { upgradeThrough } from '../helpers/raw-upgrade.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let pod: http.Server;
let podPort = 0;
let ns = '';
const upgradesEnded: string[] = [];

before(async () => {
  pod = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/redirect-self') return void res.writeHead(302, { location: `http://127.0.0.1:${podPort}/login?next=1` }).end();
    if (url === '/redirect-away') return void res.writeHead(302, { location: 'https://elsewhere.example/x' }).end();
    if (url === '/cors') return void res.writeHead(200, { 'access-control-allow-origin': '*', 'x-other': 'kept' }).end('cors');
    if (url.startsWith('/page')) {
      const html = `<A HREF="/docs/">docs</A><img src="http://127.0.0.1:${podPort}/logo.png"><a href="https://elsewhere.example/">away</a><a href="next.html">next</a>`;
      const encoding = url === '/page.gz' ? 'gzip' : url === '/page.br' ? 'br' : undefined;
      const body = encoding === 'gzip' ? gzipSync(html) : encoding === 'br' ? brotliCompressSync(html) : Buffer.from(html);
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, ...(encoding ? { 'content-encoding': encoding } : {}) }).end(body);
    }
    if (url === '/not-gzip') return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end('<p>plain</p>');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { body += chunk; });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, url, headers: req.headers, body })));
  });
  pod.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => {});
    socket.once('close', () => upgradesEnded.push(req.url ?? ''));
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    if (head.length > 0) socket.write(head.toString().toUpperCase());
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().toUpperCase()));
    // Its side ends with the caller's (the server's sockets stay half open otherwise).
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => pod.listen(0, '127.0.0.1', resolve));
  podPort = (pod.address() as AddressInfo).port;
  // The pod's loopback address is not one upstream's proxy reaches: this server is told it may.
  const backend = new MemoryBackend();
  server = await startServer({}, { podAddressAllowed: () => true, backend });
  ns = await server.newNamespace('workload-proxy');
  const created = async (path: string, body: object) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.json;
  };
  await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real-node' } });
  await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim-node', annotations: { [simulatedNodeAnnotation]: 'true' } } });
  for (const [name, node] of [['web', 'real-node'], ['sim', 'sim-node']]) {
    const created_ = await created(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: podPort }] }] },
    });
    created_.status = { podIP: name === 'web' ? '127.0.0.1' : '10.244.0.9', podIPs: [{ ip: name === 'web' ? '127.0.0.1' : '10.244.0.9' }] };
    assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, { body: created_ })).status, 200);
  }
  await created(`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80, targetPort: podPort }] } });
  // Validation refuses a loopback endpoint (as upstream's): written to storage as an endpoint controller's would be.
  const endpoints = {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: ns, uid: '5f0c6a4e-0000-4000-8000-000000000001', creationTimestamp: '2026-01-01T00:00:00Z' },
    subsets: [{ addresses: [{ ip: '127.0.0.1', targetRef: { kind: 'Pod', namespace: ns, name: 'web' } }], ports: [{ name: 'http', port: podPort }] }],
  };
  await backend.create(objectKey(builtinType('endpoints'), ns, 'web'), encodeForStorage(endpoints as KubeObject));
  await eventually(async () => assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/endpoints/web`)).status, 200));
});

after(async () => {
  await server?.close();
  pod?.closeAllConnections();
  pod?.close();
});

test('a pod\'s proxy passes the path after `proxy`, the query as sent and the body, with X-Forwarded-For and -Uri and without the caller\'s credentials', async () => {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods/web/proxy/some/path?q=a%2Fb&q=2`, { raw: 'hello', headers: { 'content-type': 'text/plain', 'x-custom': 'yes' } });
  assert.equal(res.status, 200, res.text);
  const seen = res.json;
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/some/path?q=a%2Fb&q=2');
  assert.equal(seen.body, 'hello');
  assert.equal(seen.headers['x-custom'], 'yes');
  assert.equal(seen.headers.authorization, undefined);
  assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
  assert.equal(seen.headers['x-forwarded-uri'], `/api/v1/namespaces/${ns}/pods/web/proxy/some/path`);
  assert.equal(seen.headers.host, new URL(server.url).host, 'the Host the caller sent, as Go\'s reverse proxy keeps it');
  // A trailing slash stays; `name:port` and `scheme:name:port` name the port.
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/web:${podPort}/proxy/dir/`)).json.url, '/dir/');
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/http:web:${podPort}/proxy/`)).json.url, '/');
});

test('the proxy\'s root without its slash is redirected to it; ids that do not split are 400', async () => {
  const root = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web/proxy?x=1`);
  assert.equal(root.status, 301);
  assert.equal(root.headers.location, `/api/v1/namespaces/${ns}/pods/web/proxy/?x=1`);
  for (const [path, message] of [[`pods/ftp:web:1/proxy/`, 'invalid pod request "ftp:web:1"'], [`services/a:b:c:d/proxy/`, 'invalid service request "a:b:c:d"']]) {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/${path}`);
    assert.deepEqual([res.status, res.json.message], [400, message]);
  }
});

test('a redirect to the pod itself becomes a path under the proxy; one elsewhere, and CORS headers, are as upstream leaves them', async () => {
  const self = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web/proxy/redirect-self`);
  assert.equal(self.status, 302);
  assert.equal(self.headers.location, `/api/v1/namespaces/${ns}/pods/web/proxy/login?next=1`);
  const away = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web/proxy/redirect-away`);
  assert.equal(away.headers.location, 'https://elsewhere.example/x');
  const cors = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web/proxy/cors`);
  assert.equal(cors.text, 'cors');
  assert.equal(cors.headers['access-control-allow-origin'], undefined);
  assert.equal(cors.headers['x-other'], 'kept');
});

test('an HTML page\'s links to the pod become paths under the proxy, in the encoding it came in, as upstream\'s proxy transport writes them', async () => {
  const links = (prefix: string) => `<a href="${prefix}/docs/">docs</A><img src="${prefix}/logo.png"><a href="https://elsewhere.example/">away</a><a href="next.html">next</a>`;
  const podPrefix = `/api/v1/namespaces/${ns}/pods/web/proxy`;
  const plain = await server.request('GET', `${podPrefix}/page`);
  assert.equal(plain.status, 200);
  assert.equal(plain.text, links(podPrefix));
  assert.equal(plain.headers['content-type'], 'text/html; charset=utf-8');
  const length = plain.headers['content-length'];
  assert.ok(length === undefined || Number(length) === plain.bytes.length, 'the pod\'s length is not passed on with the rewritten page');
  const gzipped = await server.request('GET', `${podPrefix}/page.gz`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gzipped.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gzipped.bytes).toString(), links(podPrefix));
  const servicePrefix = `/api/v1/namespaces/${ns}/services/web:http/proxy`;
  assert.equal((await server.request('GET', `${servicePrefix}/page`)).text, links(servicePrefix));
  // An encoding upstream does not read passes as it came.
  const brotli = await server.request('GET', `${podPrefix}/page.br`, { headers: { 'accept-encoding': 'br' } });
  assert.match(brotliDecompressSync(brotli.bytes).toString(), /^<A HREF="\/docs\/">/);
  const broken = await server.request('GET', `${podPrefix}/not-gzip`);
  assert.deepEqual([broken.status, broken.json.message], [500, 'errorf making gzip reader: gzip: invalid header']);
});

test('a service\'s proxy reaches an address of its endpoints, its port named or numbered', async () => {
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/services/web:http/proxy/x`)).json.url, '/x');
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/services/web:80/proxy/y?z=1`)).json.url, '/y?z=1');
  const noPort = await server.request('GET', `/api/v1/namespaces/${ns}/services/web:81/proxy/`);
  assert.deepEqual([noPort.status, noPort.json.message], [503, 'no service port 81 found for service "web"']);
  // The unnamed port: no endpoints port has no name.
  const unnamed = await server.request('GET', `/api/v1/namespaces/${ns}/services/web/proxy/`);
  assert.deepEqual([unnamed.status, unnamed.json.message], [503, 'no endpoints available for service "web"']);
});

test('a pod that cannot be reached is upstream\'s 503; one on a simulated node is answered at once', async () => {
  const closed = await freePort();
  const refused = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web:${closed}/proxy/`);
  assert.deepEqual([refused.status, refused.json.message], [503, `error trying to reach service: dial tcp 127.0.0.1:${closed}: connect: connection refused`]);
  // A port that is no number: upstream's normalizeLocation cannot parse the location back, and panics.
  const named = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web:metrics/proxy/`);
  assert.deepEqual([named.status, named.text], [500, 'This request caused apiserver to panic. Look in the logs for details.\n']);
  const simulated = await server.request('GET', `/api/v1/namespaces/${ns}/pods/sim/proxy/`);
  assert.deepEqual([simulated.status, simulated.json.message], [503, 'error trying to reach service: no pod network is reachable: pod sim runs on a simulated node (node "sim-node")']);
});

test('an upgrade through a pod\'s or a service\'s proxy is joined to the pod once it switches', async () => {
  for (const path of [`/api/v1/namespaces/${ns}/pods/web/proxy/ws`, `/api/v1/namespaces/${ns}/services/web:http/proxy/ws2`]) {
    const { head, body, socket } = await upgradeThrough(server, path, 'echo', 'early ', 'GET');
    assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    let echoed = body;
    socket.on('data', (chunk: Buffer) => { echoed += chunk.toString(); });
    socket.write('hello');
    await eventually(() => assert.equal(echoed, 'EARLY HELLO'));
    socket.end();
    await eventually(() => assert.ok(upgradesEnded.includes(path.slice(path.lastIndexOf('/')))));
  }
});

test('which pod IPs upstream\'s proxy reaches (Go\'s IsGlobalUnicast), and how ids split (SplitSchemeNamePort)', () => {
  const cases: Array<[string, boolean]> = [
    ['10.1.2.3', true], ['0.1.2.3', true], ['240.0.0.1', true], ['127.0.0.1', false], ['0.0.0.0', false], ['169.254.1.1', false], ['224.0.0.1', false],
    ['255.255.255.255', false], ['2001:db8::1', true], ['::1', false], ['::', false], ['fe80::1', false], ['ff02::1', false], ['fe8::1', true], ['::ffff:127.0.0.1', false], ['x', false],
  ];
  for (const [ip, expected] of cases) assert.equal(isGlobalUnicast(ip), expected, ip);
  assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
  assert.deepEqual(splitSchemeNamePort('web:80'), { scheme: '', name: 'web', port: '80' });
  assert.deepEqual(splitSchemeNamePort('https:web:443'), { scheme: 'https', name: 'web', port: '443' });
  assert.equal(splitSchemeNamePort(':80'), undefined);
  assert.equal(splitSchemeNamePort('ftp:web:1'), undefined);
});
