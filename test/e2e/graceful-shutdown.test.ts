// Graceful termination as kube-apiserver's: --shutdown-delay-duration (serving on while
// /readyz fails), then the listener closed (or, with --shutdown-send-retry-after, kept while
// those in flight finish, new requests answered 429 Retry-After), and watches ended spread
// over --shutdown-watch-termination-grace-period.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heldCreate } from '../helpers/held-request.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('--shutdown-delay-duration: /readyz fails at once while everything else is served, then the server stops', async (t) => {
  const server = await startServer({ shutdownDelayMs: 1000 });
  t.after(() => server.stop());
  const closing = server.close();
  const ready = await server.request('GET', '/readyz');
  assert.equal(ready.status, 500);
  assert.match(ready.text, /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
  assert.equal((await server.request('GET', '/livez')).status, 200);
  assert.equal((await server.request('GET', '/api/v1/namespaces/default')).status, 200);
  await closing;
  await assert.rejects(server.request('GET', '/livez'), /ECONNREFUSED|ECONNRESET|socket hang up/);
});

test('--shutdown-send-retry-after: new requests get 429 Retry-After and the listener stays until the one in flight is answered', async (t) => {
  const server = await startServer({ shutdownSendRetryAfter: true });
  t.after(() => server.stop());
  const held = heldCreate(server);
  await held.arrived;
  const closing = server.close();
  const refused = await server.request('GET', '/api/v1/namespaces/default');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers['retry-after'], '5');
  assert.equal(refused.headers.connection, 'close');
  assert.equal(refused.text, 'The apiserver is shutting down, please try again later.\n');
  // Health checks and the server's own requests are still served.
  assert.equal((await server.request('GET', '/livez')).status, 200);
  assert.equal((await server.request('GET', '/readyz')).status, 500);
  assert.equal((await server.request('GET', '/api/v1/namespaces/default', { headers: { 'user-agent': 'kube-apiserver/v1.36.2 (linux/amd64) kubernetes/abcdef' } })).status, 200);
  held.finish();
  assert.equal(await held.answered, 201);
  await closing;
  await assert.rejects(server.request('GET', '/livez'), /ECONNREFUSED|ECONNRESET|socket hang up/);
});

test('without it, the listener closes at once and the request in flight is still answered', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const held = heldCreate(server);
  await held.arrived;
  const closing = server.close();
  await pause(100);
  await assert.rejects(server.request('GET', '/livez'), /ECONNREFUSED|ECONNRESET|socket hang up/);
  held.finish();
  assert.equal(await held.answered, 201);
  await closing;
});

test('--shutdown-watch-termination-grace-period: open watches end one after the other over it, not all at once', async (t) => {
  const ends = async (server: TestServer): Promise<number[]> => {
    const watches = Array.from({ length: 5 }, () => server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1'));
    await pause(300);
    const started = performance.now();
    const ended = watches.map((w) => w.then(() => performance.now() - started));
    await server.close();
    return (await Promise.all(ended)).sort((a, b) => a - b);
  };
  const spread = await startServer({ shutdownWatchTerminationGraceMs: 1000 });
  t.after(() => spread.stop());
  const spreadEnds = await ends(spread);
  assert.ok(spreadEnds[0]! < 300 && spreadEnds[4]! >= 700 && spreadEnds[4]! < 3000, `ended after ${spreadEnds.map(Math.round).join(', ')} ms`);
  const together = await startServer();
  t.after(() => together.stop());
  const togetherEnds = await ends(together);
  assert.ok(togetherEnds[4]! < 500, `ended after ${togetherEnds.map(Math.round).join(', ')} ms`);
});
