// Watch clients that stop reading, over HTTP/1.1 and HTTP/2: the server ends their
// watches, resets their streams or connections after the grace period, and what it
// holds for each stays bounded; a client that reads meanwhile gets every event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import tls from 'node:tls';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer } from '../helpers/server.ts';

const PAUSED_PER_PROTOCOL = 6;
const MAX_QUEUED = 128 * 1024;
const GRACE_MS = 300;
/** What a stream may hold past the cache's queue bound: the response's buffer (64 KiB in Node 24), the frame that filled it and the event that overran the queue. */
const RESPONSE_SLACK = 128 * 1024;

interface PausedClient {
  protocol: 'HTTP/1.1' | 'HTTP/2';
  closed: boolean;
  /** HTTP/1.1: the socket's error; HTTP/2: the RST_STREAM code. */
  error?: string;
  rstCode?: number;
  resume(): void;
  destroy(): void;
}

function pausedHttp1Watch(url: URL, path: string, token: string, ca: string): Promise<PausedClient> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca, ALPNProtocols: ['http/1.1'] }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      // Never read: the response piles up in the kernel's buffers, then in the server's.
      socket.pause();
      resolve(client);
    });
    const client: PausedClient = {
      protocol: 'HTTP/1.1',
      closed: false,
      resume: () => socket.resume(),
      destroy: () => socket.destroy(),
    };
    socket.once('error', (err: NodeJS.ErrnoException) => {
      client.error = err.code;
      reject(err);
    });
    socket.once('close', () => (client.closed = true));
  });
}

function pausedHttp2Watch(url: URL, path: string, token: string, ca: string): PausedClient {
  // A connection of its own: a paused stream holds the connection's flow-control window too.
  const session = http2.connect(url, { ca });
  session.on('error', () => {});
  const stream = session.request({ ':path': path, authorization: `Bearer ${token}` });
  // Never read: the stream's window stays used up, so the server's writes queue behind it.
  stream.pause();
  const client: PausedClient = {
    protocol: 'HTTP/2',
    closed: false,
    resume: () => stream.resume(),
    destroy: () => session.destroy(),
  };
  stream.on('error', () => {});
  stream.once('close', () => {
    client.closed = true;
    client.rstCode = stream.rstCode;
  });
  return client;
}

test('watchers that stop reading are ended and reset after the grace period, holding a bounded amount meanwhile', async (t) => {
  const server = await startServer({ watchMaxQueuedBytes: MAX_QUEUED, watchWriteGraceMs: GRACE_MS, enableGarbageCollector: false });
  const clients: PausedClient[] = [];
  t.after(async () => {
    for (const client of clients) client.destroy();
    await server.stop();
  });
  const ns = await server.newNamespace('slow-watchers');
  const collection = `/api/v1/namespaces/${ns}/configmaps`;
  const created = await server.request('POST', collection, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { payload: '' } } });
  assert.equal(created.status, 201);
  const watchPath = `${collection}?watch=1&resourceVersion=${created.json.metadata.resourceVersion}`;
  const url = new URL(server.url);

  // The server's own controllers watch too.
  const internal = server.watcherCount();
  const reader = await openStream(server, watchPath);
  for (let i = 0; i < PAUSED_PER_PROTOCOL; i++) {
    clients.push(await pausedHttp1Watch(url, watchPath, server.token, server.caPem));
    clients.push(pausedHttp2Watch(url, watchPath, server.token, server.caPem));
  }
  await eventually(() => assert.equal(server.watcherCount(), internal + clients.length + 1), { what: 'every watch to be established' });

  // ~10 KiB updates until every paused watch has ended (bounded: the kernel's buffers of
  // the HTTP/1.1 connections take a few MiB each before the server's writes wait).
  let peak = 0;
  let updates = 0;
  let lastRevision = '';
  const sample = () => {
    for (const bytes of server.watchStreamStats().bytesInFlight) peak = Math.max(peak, bytes);
  };
  while (server.watcherCount() > internal + 1 && updates < 3000) {
    updates++;
    const res = await server.request('PATCH', `${collection}/big`, {
      raw: JSON.stringify({ data: { payload: `${updates}:`.padEnd(10 * 1024, 'x') } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.status, 200);
    lastRevision = res.json.metadata.resourceVersion;
    sample();
  }
  assert.equal(server.watcherCount(), internal + 1, `paused watches still open after ${updates} updates`);

  // Their streams are reset, their connections closed: nothing stays open for them.
  await eventually(() => {
    sample();
    const stats = server.watchStreamStats();
    assert.equal(stats.open, 1, 'only the reading watch is open');
    assert.equal(stats.reset, clients.length);
  }, { what: 'the paused watches to be reset' });
  assert.ok(peak <= MAX_QUEUED + RESPONSE_SLACK, `a watch held ${peak} bytes for its client`);

  const h2 = clients.filter((c) => c.protocol === 'HTTP/2');
  const h1 = clients.filter((c) => c.protocol === 'HTTP/1.1');
  // A paused HTTP/2 stream still gets the RST_STREAM; a paused HTTP/1.1 client sees its
  // connection reset as soon as it reads again.
  await eventually(() => assert.deepEqual(h2.map((c) => c.closed), h2.map(() => true)), { what: 'the HTTP/2 streams to be reset' });
  assert.deepEqual(h2.map((c) => c.rstCode), h2.map(() => http2.constants.NGHTTP2_CANCEL));
  for (const client of h1) client.resume();
  await eventually(() => assert.deepEqual(h1.map((c) => c.closed), h1.map(() => true)), { what: 'the HTTP/1.1 connections to be closed' });
  assert.deepEqual(h1.map((c) => c.error), h1.map(() => 'ECONNRESET'));

  // The client that kept reading got every update.
  let event;
  do event = await reader.next(10_000); while (event !== undefined && event.object.metadata.resourceVersion !== lastRevision);
  assert.equal(event?.type, 'MODIFIED');
  reader.close();
});

test('a watcher whose client takes nothing for the grace period is reset even when no more events come', async (t) => {
  // The cache's queue bound is far off: only the stalled write ends this watch.
  const server = await startServer({ watchWriteGraceMs: GRACE_MS, enableGarbageCollector: false });
  const clients: PausedClient[] = [];
  t.after(async () => {
    for (const client of clients) client.destroy();
    await server.stop();
  });
  const ns = await server.newNamespace('stalled-watcher');
  const collection = `/api/v1/namespaces/${ns}/configmaps`;
  const created = await server.request('POST', collection, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { payload: '' } } });
  const internal = server.watcherCount();
  const client = pausedHttp2Watch(new URL(server.url), `${collection}?watch=1&resourceVersion=${created.json.metadata.resourceVersion}`, server.token, server.caPem);
  clients.push(client);
  await eventually(() => assert.equal(server.watcherCount(), internal + 1));
  // Enough to fill the stream's flow-control window (64 KiB) and the response's buffer, then stop writing.
  for (let i = 0; i < 20; i++) {
    const res = await server.request('PATCH', `${collection}/big`, {
      raw: JSON.stringify({ data: { payload: `${i}:`.padEnd(10 * 1024, 'x') } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.status, 200);
  }
  await eventually(() => {
    assert.equal(server.watchStreamStats().reset, 1);
    assert.equal(server.watchStreamStats().open, 0);
    assert.ok(client.closed);
  }, { what: 'the stalled watch to be reset' });
  assert.equal(client.rstCode, http2.constants.NGHTTP2_CANCEL);
  assert.equal(server.watcherCount(), internal);
});
