// Events that wait for a watch's client (it fell behind, or a burst came) are written to
// it in one go when it takes data again: every event arrives whole, once and in order,
// over HTTP/1.1 and HTTP/2; past the watcher's queue bound too, from the cache's history,
// and when the history let go of what it had not read, the watch ends with a 410 ERROR.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { startServer, type TestServer } from '../helpers/server.ts';

const UPDATES = 120;
/** Large enough that the updates fill the client's flow-control window and the kernel's buffers, so events wait in the server. */
const PAYLOAD = 'x'.repeat(100 * 1024);

interface PausedWatch {
  /** Reads again, until `count` events other than bookmarks came. */
  readAll(count: number): Promise<any[]>;
  /** Reads again, until the server ends the watch: the events other than bookmarks. */
  readToEnd(): Promise<any[]>;
  close(): void;
}

/** Parses a stream of JSON lines, answering once `count` events came (Infinity: once the stream ends). */
function collect(source: NodeJS.ReadableStream, count: number): Promise<any[]> {
  const events: any[] = [];
  let buffer = '';
  return new Promise((resolve, reject) => {
    source.setEncoding('utf8');
    source.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const event = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (event.type !== 'BOOKMARK') events.push(event);
        if (events.length === count) resolve(events);
      }
    });
    source.on('error', reject);
    source.on('end', () => (count === Infinity ? resolve(events) : reject(new Error(`the watch ended after ${events.length} events`))));
    source.on('close', () => reject(new Error(`the watch closed after ${events.length} events`)));
    source.resume();
  });
}

function pausedHttp2(url: string, path: string, token: string, ca: string): PausedWatch {
  const session = http2.connect(url, { ca });
  session.on('error', () => {});
  const stream = session.request({ ':path': path, authorization: `Bearer ${token}` });
  stream.pause();
  return { readAll: (count) => collect(stream, count), readToEnd: () => collect(stream, Infinity), close: () => session.destroy() };
}

function pausedHttp1(url: string, path: string, token: string, ca: string): Promise<PausedWatch> {
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca });
    const req = https.get(new URL(path, url), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.pause();
      resolve({ readAll: (count) => collect(res, count), readToEnd: () => collect(res, Infinity), close: () => { req.destroy(); agent.destroy(); } });
    });
    req.on('error', reject);
  });
}

/** Starts a paused watch over HTTP/1.1 and one over HTTP/2, then makes the updates: their revisions. */
async function pausedWatchesThenUpdates(t: TestContext, server: TestServer): Promise<{ watches: PausedWatch[]; revisions: number[] }> {
  const ns = await server.newNamespace('bursts');
  const collection = `/api/v1/namespaces/${ns}/configmaps`;
  const created = await server.request('POST', collection, { body: { metadata: { name: 'cm' }, data: { n: '0' } } });
  assert.equal(created.status, 201);
  const path = `${collection}?watch=1&resourceVersion=${created.json.metadata.resourceVersion}`;
  const watches = [await pausedHttp1(server.url, path, server.token, server.caPem), pausedHttp2(server.url, path, server.token, server.caPem)];
  t.after(() => watches.forEach((w) => w.close()));
  const revisions: number[] = [];
  for (let i = 1; i <= UPDATES; i++) {
    const res = await server.request('PUT', `${collection}/cm`, { body: { metadata: { name: 'cm' }, data: { n: String(i), payload: PAYLOAD } } });
    assert.equal(res.status, 200);
    revisions.push(Number(res.json.metadata.resourceVersion));
  }
  return { watches, revisions };
}

/** Starts the paused watches, makes the updates, then lets the clients read: every update arrives once, in order. */
async function checkSlowClients(t: TestContext, server: TestServer): Promise<void> {
  const { watches, revisions } = await pausedWatchesThenUpdates(t, server);
  const [h1, h2] = await Promise.all(watches.map((w) => w.readAll(UPDATES)));
  for (const [protocol, events] of [['HTTP/1.1', h1!], ['HTTP/2', h2!]] as const) {
    assert.deepEqual(events.map((e) => Number(e.object.metadata.resourceVersion)), revisions, `${protocol}: every update once, in order`);
    assert.deepEqual(events.map((e) => e.object.data.n), revisions.map((_, i) => String(i + 1)), protocol);
    assert.ok(events.every((e) => e.type === 'MODIFIED' && e.object.data.payload === PAYLOAD), protocol);
  }
}

test('events that waited for a slow client reach HTTP/1.1 and HTTP/2 watches whole, once and in order', { timeout: 30_000 }, async (t) => {
  const server = await startServer({ enableGarbageCollector: false });
  t.after(() => server.stop());
  await checkSlowClients(t, server);
});

test('past its queue bound a slow client\'s watch reads on from the history and still gets every event', { timeout: 30_000 }, async (t) => {
  // 12 MiB of updates against a 1 MiB bound: both watchers fall behind and stay open.
  const server = await startServer({ enableGarbageCollector: false, watchMaxQueuedBytes: 1024 * 1024 });
  t.after(() => server.stop());
  await checkSlowClients(t, server);
  assert.equal(server.watchStreamStats().reset, 0, 'no watch reset');
});

test('a slow client whose unread events the history let go of gets what it had, then a 410 ERROR event, and the watch ends', { timeout: 30_000 }, async (t) => {
  // 12 MiB of updates against a 1 MiB queue bound and a 4 MiB history: both watchers fall
  // behind, and the history keeps only the last ~40 updates by the time they read again.
  const server = await startServer({ enableGarbageCollector: false, watchMaxQueuedBytes: 1024 * 1024, watchCacheWindowBytes: 4 * 1024 * 1024 });
  t.after(() => server.stop());
  const { watches, revisions } = await pausedWatchesThenUpdates(t, server);
  const [h1, h2] = await Promise.all(watches.map((w) => w.readToEnd()));
  for (const [protocol, events] of [['HTTP/1.1', h1!], ['HTTP/2', h2!]] as const) {
    const last = events.at(-1);
    assert.equal(last?.type, 'ERROR', `${protocol}: ends with an ERROR event`);
    assert.equal(last.object.code, 410, protocol);
    assert.equal(last.object.reason, 'Expired', protocol);
    const had = events.slice(0, -1);
    assert.ok(had.length > 0 && had.length < UPDATES, `${protocol}: some updates, not all (${had.length})`);
    assert.deepEqual(had.map((e) => Number(e.object.metadata.resourceVersion)), revisions.slice(0, had.length), `${protocol}: the first updates, once, in order`);
    assert.match(last.object.message, new RegExp(`^too old resource version: ${revisions[had.length - 1]} \\(`), `${protocol}: names the last it had`);
  }
});
