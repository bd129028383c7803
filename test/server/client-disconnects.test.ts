// Clients that go away mid-request are logged as such at debug level, never as internal errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { rmSync } from 'node:fs';
import { defaultConfig } from '../../src/cli/config.ts';
import { serve, type RunningServer } from '../../src/cli/serve.ts';
import { eventually } from '../helpers/eventually.ts';
import { tempDir } from '../helpers/server.ts';

let server: RunningServer;
let dataDir: string;
const lines: string[] = [];

before(async () => {
  dataDir = tempDir();
  server = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir, verbosity: 4 }, (line) => lines.push(line));
});
after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Waits for the debug line about `path`, failing at once on any internal error logged meanwhile. */
async function loggedAsGone(path: string): Promise<void> {
  await eventually(() => {
    const internal = lines.filter((l) => l.includes('internal error'));
    assert.deepEqual(internal, [], 'a client going away was logged as an internal error');
    assert.ok(lines.some((l) => l.startsWith('client went away') && l.includes(path)), `no debug line for ${path}:\n${lines.join('\n')}`);
  }, { what: `the disconnect on ${path} to be logged` });
}

function h1(path: string, method: string, headers: Record<string, string | number>) {
  const url = new URL(server.url);
  const req = https.request({ host: url.hostname, port: url.port, path, method, ca: server.caPem, agent: false, headers: { authorization: `Bearer ${server.token}`, ...headers } });
  req.on('error', () => {});
  return req;
}

test('HTTP/1.1: a client aborting mid-body', async () => {
  const path = '/api/v1/namespaces/default/configmaps?case=h1-body';
  const req = h1(path, 'POST', { 'content-type': 'application/json', 'content-length': 1_000_000 });
  req.write(Buffer.alloc(100_000, 'a'), () => req.destroy());
  await loggedAsGone('case=h1-body');
});

test('HTTP/1.1: a client aborting a watch mid-answer', async () => {
  const path = '/api/v1/namespaces/default/configmaps?watch=1&case=h1-watch';
  const req = h1(path, 'GET', {});
  req.on('response', () => req.destroy());
  req.end();
  await loggedAsGone('case=h1-watch');
});

test('HTTP/2: streams cancelled mid-body, mid-list and mid-watch', async () => {
  const session = http2.connect(server.url, { ca: server.caPem });
  session.on('error', () => {});
  const request = (headers: http2.OutgoingHttpHeaders, opts: http2.ClientSessionRequestOptions = {}) => {
    const stream = session.request({ authorization: `Bearer ${server.token}`, ...headers }, opts);
    stream.on('error', () => {});
    return stream;
  };
  try {
    const body = request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps?case=h2-body', 'content-type': 'application/json', 'content-length': 1_000_000 }, { endStream: false });
    body.write(Buffer.alloc(30_000, 'a'), () => body.close(http2.constants.NGHTTP2_CANCEL));
    await loggedAsGone('case=h2-body');

    // A list larger than the client's flow-control window: the answer cannot be complete when the client cancels.
    for (let i = 0; i < 4; i++) {
      const created = await new Promise<number>((resolve) => {
        const s = request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' }, { endStream: false });
        s.on('response', (h) => resolve(Number(h[':status'])));
        s.resume();
        s.end(JSON.stringify({ metadata: { name: `big-${i}` }, data: { x: 'y'.repeat(500_000) } }));
      });
      assert.equal(created, 201);
    }
    const list = request({ ':path': '/api/v1/namespaces/default/configmaps?case=h2-list' });
    list.once('data', () => list.close(http2.constants.NGHTTP2_CANCEL));
    await loggedAsGone('case=h2-list');

    const watch = request({ ':path': '/api/v1/namespaces/default/configmaps?watch=1&case=h2-watch' });
    watch.once('response', () => watch.close(http2.constants.NGHTTP2_CANCEL));
    await loggedAsGone('case=h2-watch');
  } finally {
    session.destroy();
  }
});
