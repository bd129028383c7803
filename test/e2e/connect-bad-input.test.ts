// Bad input to the connect-style subresources (pods/log, exec, attach, portforward, the
// proxies of pods, services and nodes) and to watches over WebSocket, answered as
// kube-apiserver v1.36 answers it: one row per input, with the status, reason and message
// (or, before a WebSocket's switch, the bytes) upstream gives.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from 'node:tls';
import { WebSocket } from 'ws';
import { freePort } from '../helpers/free-port.ts';
import { upgradeThrough } from '../helpers/raw-upgrade.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let ns = '';
let kubeletPort = 0;

before(async () => {
  // Loopback is no address upstream's node proxy reaches: this server is told it may.
  server = await startServer({}, { proxyableAddress: () => true });
  ns = await server.newNamespace('connect-bad');
  kubeletPort = await freePort();
  const created = async (path: string, body: object) => {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.json;
  };
  // A node whose kubelet is not there (nothing listens on its port), and one that reports no address.
  await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real' } });
  const real = (await server.request('GET', '/api/v1/nodes/real')).json;
  real.status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } };
  assert.equal((await server.request('PUT', '/api/v1/nodes/real/status', { body: real })).status, 200);
  await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
  const pod = (name: string, spec: object) => created(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
  await pod('one', { containers: [{ name: 'c', image: 'busybox' }] });
  await pod('multi', { initContainers: [{ name: 'setup', image: 'busybox' }], containers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox' }] });
  await pod('onbare', { nodeName: 'bare', containers: [{ name: 'c', image: 'busybox' }] });
  const web = await pod('web', { nodeName: 'real', containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] });
  web.status = { podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }] };
  assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/pods/web/status`, { body: web })).status, 200);
  await created(`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nosel' }, spec: { ports: [{ name: 'web', port: 80 }] } });
  await created(`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sel' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } });
});

after(async () => {
  await server?.stop();
});

interface Row {
  name: string;
  method?: string;
  /** Under /api/v1/; NS is the test's namespace. */
  path: string;
  code: number;
  reason?: string;
  message?: string;
  /** A plain-text body instead of a Status. */
  text?: string;
}

const noAddress = 'no preferred addresses found; known addresses: []';
const panicked = 'This request caused apiserver to panic. Look in the logs for details.\n';

const rows: Row[] = [
  // pods/log: the options as upstream decodes and validates them (ValidatePodLogOptions, the
  // PodLogsQuerySplitStreams gate off), then the container, then the node's kubelet.
  { name: 'log with tailLines=-1', path: 'namespaces/NS/pods/one/log?tailLines=-1', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0' },
  { name: 'log with limitBytes=0', path: 'namespaces/NS/pods/one/log?limitBytes=0', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: limitBytes: Invalid value: 0: must be greater than 0' },
  { name: 'log with sinceSeconds=0', path: 'namespaces/NS/pods/one/log?sinceSeconds=0', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0' },
  { name: 'log with both sinceSeconds and sinceTime', path: 'namespaces/NS/pods/one/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' },
  { name: 'log with a sinceTime that is not RFC 3339', path: 'namespaces/NS/pods/one/log?sinceTime=2024-01-01', code: 400, reason: 'BadRequest', message: 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"' },
  { name: 'log of a container not in the pod', path: 'namespaces/NS/pods/one/log?container=nope', code: 400, reason: 'BadRequest', message: 'container nope is not valid for pod one' },
  { name: 'log with follow=maybe (Go reads anything but 0 and false as true)', path: 'namespaces/NS/pods/one/log?follow=maybe', code: 200, text: '' },
  { name: 'log with a repeated parameter: the first value counts', path: 'namespaces/NS/pods/one/log?tailLines=x&tailLines=1', code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "x": invalid syntax' },
  { name: 'log with an unknown parameter', path: 'namespaces/NS/pods/one/log?nonsense=1', code: 200, text: '' },
  { name: 'log with a stream (stream selection is an alpha gate, off)', path: 'namespaces/NS/pods/one/log?stream=Stdout', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: stream: Forbidden: may not be specified' },
  { name: 'log with an empty stream', path: 'namespaces/NS/pods/one/log?stream=', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: stream: Forbidden: may not be specified' },
  { name: 'log with a stream and tailLines=-1', path: 'namespaces/NS/pods/one/log?stream=All&tailLines=-1', code: 422, reason: 'Invalid', message: 'PodLogOptions "one" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, stream: Forbidden: may not be specified]' },
  { name: 'log of a pod with several containers and none named', path: 'namespaces/NS/pods/multi/log', code: 400, reason: 'BadRequest', message: 'a container name must be specified for pod multi, choose one of: [setup a b]' },
  { name: 'log of a pod on a node that reports no address', path: 'namespaces/NS/pods/onbare/log', code: 500, reason: '', message: noAddress },
  { name: 'log with HEAD (its route is GET only)', method: 'HEAD', path: 'namespaces/NS/pods/one/log', code: 405 },
  { name: 'log with a dry run (no connect handler: ignored)', path: 'namespaces/NS/pods/one/log?dryRun=All', code: 200, text: '' },
  // exec, attach, portforward: a dry run is refused before anything else, HEAD has no route.
  { name: 'exec with a dry run', method: 'POST', path: 'namespaces/NS/pods/one/exec?command=ls&dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  { name: 'exec with an empty dryRun', path: 'namespaces/NS/pods/nope/exec?dryRun', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  { name: 'attach with a dry run', method: 'POST', path: 'namespaces/NS/pods/one/attach?dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  { name: 'portforward with a dry run and bad ports: the dry run first', method: 'POST', path: 'namespaces/NS/pods/one/portforward?ports=x&dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  { name: 'exec with PUT', method: 'PUT', path: 'namespaces/NS/pods/one/exec', code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' },
  { name: 'exec with every stream off (the kubelet, not the server, refuses that)', method: 'POST', path: 'namespaces/NS/pods/one/exec?command=ls&stdin=false&stdout=false&stderr=false', code: 400, reason: 'BadRequest', message: 'pod one does not have a host assigned' },
  { name: 'exec of a container not in the pod', method: 'POST', path: 'namespaces/NS/pods/one/exec?command=ls&container=nope', code: 400, reason: 'BadRequest', message: 'container nope is not valid for pod one' },
  { name: 'portforward to port 0 (the query conversion takes it)', method: 'POST', path: 'namespaces/NS/pods/one/portforward?ports=0', code: 400, reason: 'BadRequest', message: 'pod one does not have a host assigned' },
  { name: 'portforward to a port past 65535', method: 'POST', path: 'namespaces/NS/pods/one/portforward?ports=65536', code: 400, reason: 'BadRequest', message: 'cannot convert to []int32: strconv.ParseUint: parsing "65536": value out of range' },
  { name: 'portforward to a port that is no number', method: 'POST', path: 'namespaces/NS/pods/one/portforward?ports=80,http', code: 400, reason: 'BadRequest', message: 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax' },
  { name: 'exec with HEAD', method: 'HEAD', path: 'namespaces/NS/pods/one/exec?command=ls', code: 405 },
  { name: 'attach with HEAD', method: 'HEAD', path: 'namespaces/NS/pods/one/attach', code: 405 },
  { name: 'portforward with HEAD', method: 'HEAD', path: 'namespaces/NS/pods/one/portforward?ports=80', code: 405 },
  { name: 'exec on a pod with several containers and none named', method: 'POST', path: 'namespaces/NS/pods/multi/exec?command=ls', code: 400, reason: 'BadRequest', message: 'a container name must be specified for pod multi, choose one of: [setup a b]' },
  { name: 'exec on a node that reports no address, before the upgrade is asked for', method: 'POST', path: 'namespaces/NS/pods/onbare/exec?command=ls', code: 500, reason: '', message: noAddress },
  // pods/proxy: the location upstream builds, then what its dialer makes of the port.
  { name: 'pod proxy with a dry run', path: 'namespaces/NS/pods/web:80/proxy/x?dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  { name: 'pod proxy with TRACE (no route)', method: 'TRACE', path: 'namespaces/NS/pods/web/proxy/x', code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' },
  { name: 'pod proxy to a port past 65535', path: 'namespaces/NS/pods/web:99999/proxy/x', code: 503, reason: 'ServiceUnavailable', message: 'error trying to reach service: dial tcp: address 99999: invalid port' },
  { name: 'pod proxy to port 0', path: 'namespaces/NS/pods/web:0/proxy/x', code: 503, reason: 'ServiceUnavailable', message: 'error trying to reach service: dial tcp 10.0.0.5:0: connect: connection refused' },
  { name: 'pod proxy root without its slash, port past 65535: redirected, nothing dialed', path: 'namespaces/NS/pods/web:99999/proxy', code: 301 },
  { name: 'pod proxy to a named port (upstream\'s normalizeLocation cannot parse it and panics)', path: 'namespaces/NS/pods/web:http/proxy/x', code: 500, text: panicked },
  { name: 'pod proxy to a negative port', path: 'namespaces/NS/pods/web:-1/proxy/x', code: 500, text: panicked },
  // services/proxy: a port number reads the service; the Endpoints are read for every request.
  { name: 'service proxy of a service without selector (no Endpoints)', path: 'namespaces/NS/services/nosel/proxy/', code: 404, reason: 'NotFound', message: 'endpoints "nosel" not found' },
  { name: 'service proxy by port name of a service without selector', path: 'namespaces/NS/services/nosel:web/proxy/', code: 404, reason: 'NotFound', message: 'endpoints "nosel" not found' },
  { name: 'service proxy of a missing service, no port', path: 'namespaces/NS/services/nope/proxy/', code: 404, reason: 'NotFound', message: 'endpoints "nope" not found' },
  { name: 'service proxy of a missing service, a port number', path: 'namespaces/NS/services/nope:80/proxy/', code: 404, reason: 'NotFound', message: 'services "nope" not found' },
  { name: 'service proxy of a service with a selector and no ready endpoints', path: 'namespaces/NS/services/sel/proxy/', code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "sel"' },
  { name: 'service proxy to a port past int64 (a port name then)', path: 'namespaces/NS/services/sel:99999999999999999999/proxy/', code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "sel"' },
  { name: 'service proxy with a dry run', path: 'namespaces/NS/services/sel/proxy/?dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  // nodes/proxy: the id is `name`, `name:port` or `scheme:name:port`, as for pods and services.
  { name: 'node proxy with too many colons', path: 'nodes/a:b:c:d/proxy/', code: 400, reason: 'BadRequest', message: 'invalid node request "a:b:c:d"' },
  { name: 'node proxy with a scheme that is not http(s)', path: 'nodes/ftp:real:21/proxy/', code: 400, reason: 'BadRequest', message: 'invalid node request "ftp:real:21"' },
  { name: 'node proxy without a name', path: 'nodes/:80/proxy/', code: 400, reason: 'BadRequest', message: 'invalid node request ":80"' },
  { name: 'node proxy of a missing node, with a port', path: 'nodes/missing:80/proxy/', code: 404, reason: 'NotFound', message: 'nodes "missing" not found' },
  { name: 'node proxy of a node that reports no address', path: 'nodes/bare/proxy/', code: 500, reason: '', message: noAddress },
  { name: 'node proxy to a port past 65535', path: 'nodes/real:99999/proxy/x', code: 503, reason: 'ServiceUnavailable', message: 'error trying to reach service: dial tcp: address 99999: invalid port' },
  { name: 'node proxy to a named port', path: 'nodes/http:real:abc/proxy/x', code: 500, text: panicked },
  { name: 'node proxy with a dry run', path: 'nodes/real/proxy/x?dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
];

for (const row of rows) {
  test(`${row.name}: ${row.code}`, async () => {
    const res = await server.request(row.method ?? 'GET', `/api/v1/${row.path.replace('NS', ns)}`);
    assert.equal(res.status, row.code, res.text);
    if (row.text !== undefined) {
      assert.equal(res.text, row.text);
      if (row.code >= 400) assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    }
    if (row.message !== undefined) assert.deepEqual([res.json?.reason ?? '', res.json?.message], [row.reason, row.message]);
  });
}

test('the pods listed for a missing container name run init containers first, then the pod\'s, then ephemeral ones', async () => {
  const eph = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/multi/ephemeralcontainers`, {
    raw: JSON.stringify({ spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] } }), headers: { 'content-type': 'application/strategic-merge-patch+json' },
  });
  assert.equal(eph.status, 200, eph.text);
  const res = await server.request('GET', `/api/v1/namespaces/${ns}/pods/multi/log`);
  assert.deepEqual([res.status, res.json.message], [400, 'a container name must be specified for pod multi, choose one of: [setup a b debug]']);
});

test('an upgrade through a pod\'s proxy to a port past 65535 is upstream\'s failed dial: 500 `error dialing backend`', async () => {
  const up = await upgradeThrough(server, `/api/v1/namespaces/${ns}/pods/web:99999/proxy/ws`, 'websocket', '', 'GET');
  up.socket.destroy();
  assert.match(up.head, /^HTTP\/1\.1 500 /);
  assert.deepEqual(JSON.parse(up.body).message, 'error dialing backend: dial tcp: address 99999: invalid port');
});

test('exec over SPDY on a node that reports no address is upstream\'s 500, as its kubelet cannot be named', async () => {
  const up = await upgradeThrough(server, `/api/v1/namespaces/${ns}/pods/onbare/exec?command=ls&stdout=1`, 'SPDY/3.1');
  up.socket.destroy();
  assert.match(up.head, /^HTTP\/1\.1 500 /);
  assert.deepEqual([JSON.parse(up.body).reason, JSON.parse(up.body).message], [undefined, noAddress]);
});

/** A WebSocket handshake sent as is; the answer's bytes until the server closes or a second passes. */
async function handshake(path: string, headers: string): Promise<string> {
  const url = new URL(server.url);
  const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caPem, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${headers}\r\n`);
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  socket.on('error', () => {});
  await new Promise((resolve) => {
    socket.once('close', resolve);
    setTimeout(resolve, 1000);
  });
  socket.destroy();
  return received;
}

const origin = 'Origin: https://dashboard.example\r\n';
const key = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
const v13 = 'Sec-WebSocket-Version: 13\r\n';

/** x/net/websocket's refusals, which upstream's watch server answers with: a status line, at most one header, the error's words. */
const handshakes: Array<{ name: string; headers: string; answer: string }> = [
  { name: 'no Sec-WebSocket-Key', headers: origin + v13, answer: 'HTTP/1.1 400 Bad Request\r\n\r\nmismatch challenge/response' },
  { name: 'no Sec-WebSocket-Version', headers: origin + key, answer: 'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version' },
  { name: 'version 8 (only 13 is spoken)', headers: `${origin}${key}Sec-WebSocket-Version: 8\r\n`, answer: 'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version' },
  { name: 'no Origin and a bad version: the version first', headers: `${key}Sec-WebSocket-Version: 7\r\n`, answer: 'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version' },
  { name: 'no Origin and no key: the key first', headers: v13, answer: 'HTTP/1.1 400 Bad Request\r\n\r\nmismatch challenge/response' },
  { name: 'a protocol list with an empty entry (two protocols)', headers: `${origin}${key}${v13}Sec-WebSocket-Protocol: base64.binary.k8s.io,\r\n`, answer: 'HTTP/1.1 400 Bad Request\r\n\r\n' },
];

for (const row of handshakes) {
  test(`a watch over WebSocket with ${row.name} is refused before the switch`, async () => {
    assert.equal(await handshake(`/api/v1/namespaces/${ns}/configmaps?watch=1`, row.headers), row.answer);
  });
}

test('a watch over WebSocket takes any Sec-WebSocket-Key, as x/net/websocket, and answers its hash', async () => {
  const answer = await handshake(`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`, `${origin}Sec-WebSocket-Key: not a nonce\r\n${v13}`);
  const accept = createHash('sha1').update('not a nonce258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  assert.match(answer, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.ok(answer.includes(`\r\nSec-WebSocket-Accept: ${accept}\r\n`), answer);
});

test('a watch over WebSocket names the one protocol offered, base64.binary.k8s.io too, and frames as ever', async () => {
  const answer = await handshake(`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`, `${origin}${key}${v13}Sec-WebSocket-Protocol: base64.binary.k8s.io\r\n`);
  assert.match(answer, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.ok(answer.includes('\r\nSec-WebSocket-Protocol: base64.binary.k8s.io\r\n'), answer);
});

test('a watch over WebSocket from a resourceVersion that is no number is a plain 400 before any switch; one too old an ERROR event after it', async () => {
  const bad = await handshake(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=abc`, origin + key + v13);
  assert.match(bad, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.ok(bad.endsWith('"message":"invalid resource version: strconv.ParseUint: parsing \\"abc\\": invalid syntax","reason":"BadRequest","code":400}'), bad);
  const old = await handshake(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1`, origin + key + v13);
  assert.match(old, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(old, /\{"type":"ERROR","object":\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"too old resource version: 1 \(\d+\)","reason":"Expired","code":410\}\}\n/);
});

test('a watch over WebSocket answers whatever the client sends or closes with a normal closure without reason, as x/net/websocket', async () => {
  const cases: Array<[string, (ws: WebSocket) => void]> = [
    ['a close with code 4000 and a reason', (ws) => ws.close(4000, 'bye')],
    ['a close without code', (ws) => ws.close()],
    ['text and binary messages, then a close', (ws) => {
      ws.send('hello');
      ws.send(Buffer.from([1, 2, 3]));
      setTimeout(() => ws.close(1001), 100);
    }],
  ];
  for (const [name, act] of cases) {
    const ws = new WebSocket(new URL(`/api/v1/namespaces/${ns}/configmaps?watch=1`, server.url.replace('https:', 'wss:')), { ca: server.caPem, origin: 'https://dashboard.example', headers: { authorization: `Bearer ${server.token}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code: number, reason: Buffer) => resolve([code, reason.toString()])));
    act(ws);
    assert.deepEqual(await closed, [1000, ''], name);
  }
  assert.equal((await server.request('GET', '/readyz')).status, 200);
});
