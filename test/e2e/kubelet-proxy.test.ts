// pods/log and nodes/proxy reach a node's kubelet as kube-apiserver's kubelet client does:
// a fake kubelet (HTTPS, its own CA, asking for a client certificate) records what Plinth
// sends and answers as a kubelet would; kubectl logs reads through Plinth.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import path from 'node:path';
import { isProxyableIp } from '../../src/endpoints/kubelet-client.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { fakeKubeletTls, listenOnLoopback } from '../helpers/fake-kubelet.ts';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  /** The fingerprint of the client certificate Plinth presented, if any. */
  client: string | undefined;
}

const seen: Seen[] = [];
/** Followed logs the kubelet saw closed. */
const foreverClosed: string[] = [];
let kubelet: https.Server;
let kubeletPort: number;
let clientFingerprint: string;
let clientDir: string;
let server: TestServer;

/** A kubelet's answers, by path. */
function answer(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://kubelet.invalid');
  if (url.pathname.endsWith('/c')) {
    res.writeHead(200, { 'content-type': 'text/plain' });
    if (url.searchParams.get('follow') !== 'true') {
      res.end('line 1\nline 2\n');
      return;
    }
    // A followed log: written as it comes.
    res.write('first\n');
    setTimeout(() => res.end('second\n'), 100);
    return;
  }
  if (url.pathname.endsWith('/forever')) {
    // A followed log that never ends: noted when Plinth lets go of it.
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('still here\n');
    res.once('close', () => foreverClosed.push(url.pathname));
    return;
  }
  if (url.pathname.endsWith('/waiting')) {
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end('container "waiting" in pod "p" is waiting to start: ContainerCreating');
    return;
  }
  if (url.pathname.endsWith('/gone')) {
    res.writeHead(404);
    res.end('no such container');
    return;
  }
  if (url.pathname === '/echo') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`${req.method} ${(req as { body?: string }).body ?? ''}`);
    return;
  }
  if (url.pathname === '/logs/') {
    // The kubelet's log directory listing, which names its entries by relative and absolute paths.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'access-control-allow-origin': '*', 'x-forwarded-uri-seen': req.headers['x-forwarded-uri'] ?? '' });
    res.end('<pre>\n<a href="kubelet.log">kubelet.log</a>\n<a href="/logs/pods/">pods/</a>\n</pre>\n');
    return;
  }
  if (url.pathname === '/old') {
    res.writeHead(302, { location: `https://${req.headers.host}/logs/` });
    res.end();
    return;
  }
  if (url.pathname === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'x-kubelet': 'yes' });
    res.end(`kubelet_up 1 ${req.method}\n`);
    return;
  }
  res.writeHead(404);
  res.end('404 page not found\n');
}


before(async () => {
  const tls = await fakeKubeletTls();
  clientFingerprint = tls.clientFingerprint;
  clientDir = tls.clientDir;
  kubelet = https.createServer(tls.serverOptions, (req, res) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, client: peer?.fingerprint256 });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      (req as { body?: string }).body = Buffer.concat(chunks).toString();
      answer(req, res);
    });
  });
  kubeletPort = await listenOnLoopback(kubelet);
  server = await startServer(tls.flags, { proxyableAddress: () => true }); // the fake kubelet listens on loopback, which nodes/proxy refuses by default
});

after(async () => {
  await server?.close();
  kubelet?.closeAllConnections();
  await new Promise((resolve) => kubelet?.close(resolve));
});

/** A node whose kubelet listens at 127.0.0.1:port, and a pod bound to it with containers c, waiting, gone and forever. */
async function podOnNode(ns: string, node: string, port: number): Promise<void> {
  const created = await server.request('POST', '/api/v1/nodes', {
    body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node }, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } },
  });
  assert.ok(created.status === 201 || created.status === 409, created.text);
  // The status is written through /status: the create drops it.
  const current = (await server.request('GET', `/api/v1/nodes/${node}`)).json;
  current.status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } };
  assert.equal((await server.request('PUT', `/api/v1/nodes/${node}/status`, { body: current })).status, 200);
  const containers = ['c', 'waiting', 'gone', 'forever'].map((name) => ({ name, image: 'busybox' }));
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } } })).status, 201);
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { apiVersion: 'v1', kind: 'Node', name: node } };
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding })).status, 201);
}

test('pods/log streams the kubelet\'s log, with upstream\'s parameters and the client certificate, and its refusals as upstream words them', async () => {
  const ns = await server.newNamespace('logs');
  await podOnNode(ns, 'real-1', kubeletPort);
  seen.length = 0;
  const plain = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log?container=c`);
  assert.equal(plain.status, 200, plain.text);
  assert.equal(plain.text, 'line 1\nline 2\n');
  assert.match(String(plain.headers['content-type']), /^text\/plain/);
  assert.deepEqual(seen, [{ method: 'GET', url: `/containerLogs/${ns}/p/c`, authorization: undefined, client: clientFingerprint }]);

  // Every option upstream passes on, in Go's order; the sinceTime in RFC 3339.
  seen.length = 0;
  const query = 'container=c&timestamps=true&tailLines=%2B05&limitBytes=9223372036854775807&sinceTime=2026-01-02T03:04:05%2B01:00&previous=1';
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log?${query}`)).status, 200);
  // Integers as Go's FormatInt writes what it parsed: no sign or leading zero, exact past 2^53.
  assert.equal(seen[0]!.url, `/containerLogs/${ns}/p/c?limitBytes=9223372036854775807&previous=true&sinceTime=2026-01-02T02%3A04%3A05Z&tailLines=5&timestamps=true`);

  // A followed log arrives as the kubelet writes it.
  const followed = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log?container=c&follow=true`);
  assert.equal(followed.text, 'first\nsecond\n');
  assert.match(seen.at(-1)!.url, /\?follow=true$/);

  // The caller going away lets go of the kubelet's stream.
  const firstChunk = await new Promise<string>((resolve, reject) => {
    const req = https.get(new URL(`/api/v1/namespaces/${ns}/pods/p/log?container=forever&follow=true`, server.url), {
      ca: server.caPem, headers: { authorization: `Bearer ${server.token}` },
    }, (res) => res.once('data', (chunk: Buffer) => {
      resolve(chunk.toString());
      req.destroy();
    }));
    req.on('error', () => {});
    req.setTimeout(10_000, () => reject(new Error('no log arrived')));
  });
  assert.equal(firstChunk, 'still here\n');
  await eventually(() => assert.deepEqual(foreverClosed, [`/containerLogs/${ns}/p/forever`]));

  const refusals: Array<[string, number, string, string]> = [
    ['waiting', 400, 'BadRequest', 'container "waiting" in pod "p" is waiting to start: ContainerCreating'],
    ['gone', 404, 'NotFound', 'the server could not find the requested resource ( pods/log p)'],
  ];
  for (const [container, code, reason, message] of refusals) {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log?container=${container}`);
    assert.equal(res.status, code, res.text);
    assert.deepEqual([res.json.reason, res.json.message], [reason, message], container);
  }
});

test('kubectl logs reads through Plinth, and prints a kubelet\'s refusal', needsKubectl, async () => {
  const ns = await server.newNamespace('kubectl-logs');
  await podOnNode(ns, 'real-2', kubeletPort);
  assert.equal(await kubectl(server, '-n', ns, 'logs', 'p', '-c', 'c'), 'line 1\nline 2\n');
  assert.equal(await kubectl(server, '-n', ns, 'logs', 'p', '-c', 'c', '--tail=1', '--timestamps'), 'line 1\nline 2\n');
  assert.match(seen.at(-1)!.url, /\?tailLines=1&timestamps=true$/);
  await assert.rejects(kubectl(server, '-n', ns, 'logs', 'p', '-c', 'waiting'), /Error from server \(BadRequest\): container "waiting" in pod "p" is waiting to start: ContainerCreating/);
});

test('log options are decoded and validated as upstream\'s PodLogOptions, before the pod is looked up', async () => {
  const ns = await server.newNamespace('log-options');
  const cases: Array<[string, number, string]> = [
    ['tailLines=-1', 422, 'PodLogOptions "ghost" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
    ['limitBytes=0', 422, 'PodLogOptions "ghost" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds=0', 422, 'PodLogOptions "ghost" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z', 422, 'PodLogOptions "ghost" is invalid: []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
    ['tailLines=x', 400, 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['sinceTime=yesterday', 400, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ['tailLines=3', 404, 'pods "ghost" not found'],
  ];
  for (const [query, code, message] of cases) {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/pods/ghost/log?${query}`);
    assert.equal(res.status, code, `${query}: ${res.text}`);
    assert.equal(res.json.message, message, query);
  }
});

test('a kubelet that cannot be reached or trusted is Go\'s client error; insecureSkipTLSVerifyBackend skips the check; nodes/proxy keeps off loopback', async () => {
  const ns = await server.newNamespace('log-dial');
  const closed = await freePort();
  await podOnNode(ns, 'real-down', closed);
  const refused = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log?container=c`);
  assert.equal(refused.status, 500, refused.text);
  assert.equal(refused.json.message, `Get "https://127.0.0.1:${closed}/containerLogs/${ns}/p/c": dial tcp 127.0.0.1:${closed}: connect: connection refused`);

  // Another server that trusts another CA: the kubelet's certificate is not trusted, unless the request says to skip the check.
  const other = await startServer({ kubeletCertificateAuthority: path.join(clientDir, 'pki/ca.crt') });
  try {
    const ns2 = await other.newNamespace('log-tls');
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real-tls' } };
    await other.request('POST', '/api/v1/nodes', { body: node });
    const current = (await other.request('GET', '/api/v1/nodes/real-tls')).json;
    current.status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } };
    await other.request('PUT', '/api/v1/nodes/real-tls/status', { body: current });
    await other.request('POST', `/api/v1/namespaces/${ns2}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    await other.request('POST', `/api/v1/namespaces/${ns2}/pods/p/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'real-tls' } } });
    const untrusted = await other.request('GET', `/api/v1/namespaces/${ns2}/pods/p/log`);
    assert.equal(untrusted.status, 500, untrusted.text);
    assert.equal(untrusted.json.message, `Get "https://127.0.0.1:${kubeletPort}/containerLogs/${ns2}/p/c": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
    // nodes/proxy refuses, as upstream's isProxyableHostname, a node whose kubelet is on a loopback or link-local address, or does not resolve.
    const loopback = await other.request('GET', '/api/v1/nodes/real-tls/proxy/metrics');
    assert.deepEqual([loopback.status, loopback.json.reason, loopback.json.message], [400, 'BadRequest', 'address not allowed']);
    await other.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'nowhere' }, status: { addresses: [{ type: 'Hostname', address: 'nowhere.invalid' }] } } });
    const unresolved = await other.request('GET', '/api/v1/nodes/nowhere/proxy/metrics');
    assert.deepEqual([unresolved.status, unresolved.json.message], [400, 'lookup nowhere.invalid: no such host']);
    const skipped = await other.request('GET', `/api/v1/namespaces/${ns2}/pods/p/log?insecureSkipTLSVerifyBackend=true`);
    assert.equal(skipped.status, 200, skipped.text);
    assert.equal(skipped.text, 'line 1\nline 2\n');
    assert.equal(seen.at(-1)!.client, undefined, 'no client certificate configured, none presented');
    // Upstream's pods/log counters: each request by its use of the skip (a refused one too), each certificate failure.
    assert.equal((await other.request('GET', `/api/v1/namespaces/${ns2}/pods/p/log?tailLines=-1`)).status, 422);
    const scrape = (await other.request('GET', '/metrics')).text;
    assert.equal(sample(scrape, 'kube_apiserver_pod_logs_insecure_backend_total', { usage: 'enforce_tls' }), 2);
    assert.equal(sample(scrape, 'kube_apiserver_pod_logs_insecure_backend_total', { usage: 'skip_tls_allowed' }), 1);
    assert.equal(sample(scrape, 'kube_apiserver_pod_logs_backend_tls_failure_total'), 1);
    assert.match(scrape, /^kube_apiserver_pod_logs_backend_tls_failure_total 1$/m);
  } finally {
    await other.close();
  }
});

test('nodes/proxy passes the request to the kubelet without the caller\'s credentials, and its answer back', async () => {
  await server.newNamespace('node-proxy');
  const ns = await server.newNamespace('node-proxy-pod');
  await podOnNode(ns, 'real-3', kubeletPort);
  seen.length = 0;
  const metrics = await server.request('GET', '/api/v1/nodes/real-3/proxy/metrics?x=1&y=a%20b');
  assert.equal(metrics.status, 200, metrics.text);
  assert.equal(metrics.text, 'kubelet_up 1 GET\n');
  assert.equal(metrics.headers['x-kubelet'], 'yes');
  assert.deepEqual(seen, [{ method: 'GET', url: '/metrics?x=1&y=a%20b', authorization: undefined, client: clientFingerprint }], 'the query as sent');
  // A body goes through, over HTTP/1.1 and over HTTP/2 (kubectl's), and a log reads over HTTP/2 too.
  const posted = await server.request('POST', '/api/v1/nodes/real-3/proxy/echo', { body: 'hello', headers: { 'content-type': 'text/plain' } });
  assert.equal(posted.text, 'POST "hello"');
  const overH2 = async (method: string, urlPath: string, body?: string): Promise<{ status: number; text: string }> => {
    const session = http2.connect(server.url, { ca: server.caPem });
    try {
      return await new Promise((resolve, reject) => {
        const stream = session.request({ ':method': method, ':path': urlPath, authorization: `Bearer ${server.token}` });
        let status = 0;
        let text = '';
        stream.on('response', (headers) => { status = Number(headers[':status']); });
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => { text += chunk; });
        stream.on('end', () => resolve({ status, text }));
        stream.on('error', reject);
        stream.end(body);
      });
    } finally {
      session.close();
    }
  };
  assert.deepEqual(await overH2('POST', '/api/v1/nodes/real-3/proxy/echo', 'over h2'), { status: 200, text: 'POST over h2' });
  assert.deepEqual(await overH2('GET', `/api/v1/namespaces/${ns}/pods/p/log?container=c`), { status: 200, text: 'line 1\nline 2\n' });
  const missing = await server.request('GET', '/api/v1/nodes/real-3/proxy/nothing');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, '404 page not found\n');
  const closed = await freePort();
  await podOnNode(await server.newNamespace('node-proxy-down'), 'real-down-2', closed);
  const down = await server.request('GET', '/api/v1/nodes/real-down-2/proxy/metrics');
  assert.equal(down.status, 503, down.text);
  assert.equal(down.json.message, `error trying to reach service: dial tcp 127.0.0.1:${closed}: connect: connection refused`);
});

test('nodes/proxy answers as upstream\'s proxy transport: X-Forwarded-Uri, no CORS headers, a redirect to the kubelet and an HTML page\'s links under the proxy, its root redirected to its slash', async () => {
  await podOnNode(await server.newNamespace('node-proxy-links'), 'real-links', kubeletPort);
  const listing = await server.request('GET', '/api/v1/nodes/real-links/proxy/logs/');
  assert.equal(listing.status, 200, listing.text);
  assert.equal(listing.text, '<pre>\n<a href="kubelet.log">kubelet.log</a>\n<a href="/api/v1/nodes/real-links/proxy/logs/pods/">pods/</a>\n</pre>\n');
  assert.equal(listing.headers['x-forwarded-uri-seen'], '/api/v1/nodes/real-links/proxy/logs/');
  assert.equal(listing.headers['access-control-allow-origin'], undefined);
  const moved = await server.request('GET', '/api/v1/nodes/real-links/proxy/old');
  assert.deepEqual([moved.status, moved.headers.location], [302, '/api/v1/nodes/real-links/proxy/logs/']);
  const root = await server.request('GET', '/api/v1/nodes/real-links/proxy?x=1');
  assert.deepEqual([root.status, root.headers.location], [301, '/api/v1/nodes/real-links/proxy/?x=1']);
});

test('a simulated node\'s kubelet is not dialed: its pods log one line, and its proxy says the node is simulated; exec asks for an upgrade first, as upstream', async () => {
  const ns = await server.newNamespace('simulated');
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim-1', annotations: { 'simulation.plinth.dev/simulated': 'true' } }, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } } };
  assert.equal((await server.request('POST', '/api/v1/nodes', { body: node })).status, 201);
  await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'sim-1', containers: [{ name: 'c', image: 'busybox' }] } } });
  seen.length = 0;
  const log = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log`);
  assert.equal(log.status, 200);
  assert.notEqual(log.text, 'line 1\nline 2\n', 'not the kubelet\'s');
  const proxy = await server.request('GET', '/api/v1/nodes/sim-1/proxy/metrics');
  assert.deepEqual([proxy.status, proxy.json.message], [503, `error trying to reach service: no kubelet is reachable: the node is simulated (node "sim-1" at 127.0.0.1:${kubeletPort})`]);
  // Over HTTP/2 no request is an upgrade: upstream's UpgradeAwareHandler refuses before it dials (kubelet-upgrade.test.ts upgrades).
  const exec = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/exec?command=ls`);
  assert.deepEqual([exec.status, exec.json.message], [400, 'Upgrade request required']);
  assert.deepEqual(seen, [], 'nothing reached the kubelet');
});

test('the addresses nodes/proxy may reach are Go\'s proxyable ones', () => {
  const cases: Array<[string, boolean]> = [
    ['10.0.0.5', true], ['192.0.2.7', true], ['2001:db8::1', true], ['node-1.internal', true],
    ['127.0.0.1', false], ['127.1.2.3', false], ['169.254.169.254', false], ['224.0.0.251', false], ['224.0.1.1', true],
    ['::1', false], ['fe80::1', false], ['FEBF::1', false], ['ff02::1', false], ['ff01::1', false], ['ff05::1', true], ['::ffff:127.0.0.1', false], ['::ffff:10.0.0.1', true],
  ];
  for (const [ip, allowed] of cases) assert.equal(isProxyableIp(ip), allowed, ip);
});
