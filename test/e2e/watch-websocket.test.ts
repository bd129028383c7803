// Watches over WebSocket, as upstream's watch server serves them when the request asks:
// each event one text message (the JSON stream's line), the watch's end a close; a watch
// asked for without a WebSocket, or over HTTP/2, is the usual stream.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { eventually } from '../helpers/eventually.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.close();
});

/** A WebSocket to the server with an Origin, as a browser opens one (x/net/websocket's handler, upstream's, requires one). */
function open(path: string, protocols: string[] = [], headers: Record<string, string> = {}, origin: string | null = 'https://dashboard.example'): WebSocket {
  return new WebSocket(new URL(path, server.url.replace('https:', 'wss:')), protocols, { ca: server.caPem, headers: { authorization: `Bearer ${server.token}`, ...headers }, ...(origin === null ? {} : { origin }) });
}

/** The status a WebSocket's handshake was refused with (101 when it was not: the test then fails rather than wait). */
function refusedWith(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)).once('error', () => resolve(-1));
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
  });
}

test('a watch over WebSocket sends each event as a text message and closes when the watch ends', async () => {
  const ns = await server.newNamespace('ws-watch');
  const ws = open(`/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=2`);
  const messages: Array<{ text: string; binary: boolean }> = [];
  ws.on('message', (data: Buffer, binary: boolean) => messages.push({ text: data.toString(), binary }));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  for (const name of ['a', 'b']) {
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } } })).status, 201);
  }
  await eventually(() => assert.equal(messages.length, 2));
  for (const [i, { text, binary }] of messages.entries()) {
    assert.equal(binary, false);
    assert.ok(text.endsWith('\n'), 'the JSON stream\'s line, newline included');
    const event = JSON.parse(text);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata.name, ['a', 'b'][i]);
  }
  // timeoutSeconds ends the watch: the server closes the WebSocket.
  const code = await new Promise<number>((resolve) => ws.once('close', resolve));
  assert.equal(code, 1000);
  const scrape = (await server.request('GET', '/metrics')).text;
  assert.equal(sample(scrape, 'apiserver_request_total', { verb: 'WATCH', resource: 'configmaps', code: '101' }), 1);
});

test('a watch over WebSocket names the one protocol the client asked for; a bad request is answered before any WebSocket', async () => {
  const ns = await server.newNamespace('ws-watch-410');
  const ws = open(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1`, ['v1.watch.example']);
  const messages: string[] = [];
  ws.on('message', (data: Buffer) => messages.push(data.toString()));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  assert.equal(ws.protocol, 'v1.watch.example');
  ws.close();
  await new Promise((resolve) => ws.once('close', resolve));
  // A bad request is answered before any WebSocket: an HTTP error.
  const bad = open(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=x`);
  assert.equal(await refusedWith(bad), 400);
});

test('a watch over WebSocket is refused as x/net/websocket\'s handler refuses it: no Origin or one that is no URL 403, several protocols 400', async () => {
  const ns = await server.newNamespace('ws-watch-refused');
  const path = `/api/v1/namespaces/${ns}/configmaps?watch=1`;
  const refusals = async () => sample((await server.request('GET', '/metrics')).text, 'apiserver_request_total', { verb: 'WATCH', resource: 'configmaps', code: '403' });
  const before = await refusals();
  assert.equal(await refusedWith(open(path, [], {}, null)), 403);
  assert.equal(await refusedWith(open(path, [], {}, 'null')), 403);
  assert.equal(await refusedWith(open(path, ['v1.a.example', 'v1.b.example'])), 400);
  assert.equal(await refusals(), before + 2);
  // An Origin that is a path, or any absolute URL, is one.
  for (const origin of ['/', 'app://console']) {
    const ws = open(path, [], {}, origin);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.close();
    await new Promise((resolve) => ws.once('close', resolve));
  }
});

test('a Protobuf watch over WebSocket sends each event as a binary message, without the stream\'s length prefix', async () => {
  const ns = await server.newNamespace('ws-watch-pb');
  const ws = open(`/api/v1/namespaces/${ns}/configmaps?watch=true`, [], { accept: 'application/vnd.kubernetes.protobuf;stream=watch' });
  const messages: Array<{ data: Buffer; binary: boolean }> = [];
  ws.on('message', (data: Buffer, binary: boolean) => messages.push({ data, binary }));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } })).status, 201);
  await eventually(() => assert.equal(messages.length, 1));
  assert.equal(messages[0]!.binary, true);
  // The WatchEvent itself starts the message: its type, field 1, "ADDED" (no 4-byte length before it).
  assert.deepEqual(messages[0]!.data.subarray(0, 7), Buffer.from([0x0a, 0x05, ...Buffer.from('ADDED')]));
  ws.close();
  await new Promise((resolve) => ws.once('close', resolve));
});

test('a watch asking to upgrade to anything but a WebSocket is the usual stream', async () => {
  const ns = await server.newNamespace('ws-watch-plain');
  const url = new URL(server.url);
  const { connect } = await import('node:tls');
  const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caPem, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(`GET /api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1 HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.token}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`);
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString(); });
  await new Promise((resolve) => socket.once('close', resolve));
  assert.match(received, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(received, /\r\ntransfer-encoding: chunked\r\n/i);
  assert.match(received, /\r\n0\r\n\r\n$/, 'the stream ends when the watch does');
});

test('a message past 32 MiB (x/net/websocket\'s limit) closes the WebSocket rather than fill the server', { timeout: 30_000 }, async () => {
  const ns = await server.newNamespace('ws-watch-big');
  const ws = open(`/api/v1/namespaces/${ns}/configmaps?watch=true`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const closed = new Promise<number>((resolve) => ws.once('close', resolve));
  ws.on('error', () => {});
  ws.send(Buffer.alloc((32 << 20) + 1));
  // x/net/websocket's reader stops there and the watch ends: a normal closure, as every end of upstream's watch.
  assert.equal(await closed, 1000);
  assert.equal((await server.request('GET', '/readyz')).status, 200);
});
