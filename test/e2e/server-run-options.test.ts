// kube-apiserver's server run options: CORS for allowed origins (preflights answered before
// authentication), the HSTS header on every answer, a probabilistic GOAWAY on HTTP/2, and
// the watches' minimum timeout.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import tls from 'node:tls';
import { parseServeFlags } from '../../src/cli/config.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

test('CORS: an allowed origin gets the headers and its preflight a 204 without credentials; another origin nothing', async (t) => {
  const server = await startServer({ corsAllowedOrigins: ['//example\\.com(:|$)', '^https://dashboard\\.test$'] });
  t.after(() => server.stop());
  const preflight = await server.request('OPTIONS', '/api/v1/namespaces/default/configmaps', { anonymous: true, headers: { origin: 'https://example.com:8443', 'access-control-request-method': 'POST' } });
  assert.equal(preflight.status, 204, preflight.text);
  assert.equal(preflight.text, '');
  assert.deepEqual(
    ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers', 'access-control-allow-credentials'].map((h) => preflight.headers[h]),
    ['https://example.com:8443', 'POST, GET, OPTIONS, PUT, DELETE, PATCH', 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since', 'Date', 'true'],
  );
  const read = await server.request('GET', '/api/v1/namespaces/default', { headers: { origin: 'https://dashboard.test' } });
  assert.equal(read.status, 200);
  assert.equal(read.headers['access-control-allow-origin'], 'https://dashboard.test');
  // Authentication still decides; its refusal carries the headers, so the page can read it.
  const refused = await server.request('GET', '/api/v1/namespaces/default', { token: 'not-a-token', headers: { origin: 'https://example.com' } });
  assert.equal(refused.status, 401);
  assert.equal(refused.headers['access-control-allow-origin'], 'https://example.com');
  for (const origin of ['https://example.com.evil.test', 'https://notexample.com', 'https://dashboard.test.evil']) {
    const other = await server.request('OPTIONS', '/api/v1/namespaces/default/configmaps', { anonymous: true, headers: { origin } });
    assert.notEqual(other.status, 204, origin);
    assert.equal(other.headers['access-control-allow-origin'], undefined, origin);
  }
});

test('HSTS: every answer, a refusal and a 404 included, carries the directives joined by "; "', async (t) => {
  const server = await startServer({ hstsDirectives: ['max-age=31536000', 'includeSubDomains', 'preload'] });
  t.after(() => server.stop());
  for (const [path, opts, status] of [['/api', {}, 200], ['/api/v1/namespaces/none', {}, 404], ['/api/v1/namespaces', { token: 'wrong' }, 401]] as const) {
    const answer = await server.request('GET', path, opts);
    assert.equal(answer.status, status, path);
    assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains; preload', path);
  }
  const plain = await startServer();
  t.after(() => plain.stop());
  assert.equal((await plain.request('GET', '/api')).headers['strict-transport-security'], undefined);
});

/** `count` GETs over HTTP/2, 8 at a time, a new connection whenever the server sent GOAWAY; answers how many connections it took. */
async function getsOverHttp2(server: TestServer, count: number): Promise<{ sessions: number; ok: number }> {
  let session: http2.ClientHttp2Session | undefined;
  let sessions = 0;
  const current = () => {
    if (session === undefined || session.closed || session.destroyed) {
      session = http2.connect(server.url, { ca: server.caPem });
      session.on('error', () => {});
      sessions++;
    }
    return session;
  };
  const get = (attempt = 1): Promise<number> => {
    const used = current();
    return new Promise<number>((resolve, reject) => {
      const stream = used.request({ ':path': '/api', authorization: `Bearer ${server.token}` });
      stream.on('response', (headers) => resolve(Number(headers[':status'])));
      stream.on('error', reject);
      stream.resume();
      stream.end();
    }).catch((err: unknown) => {
      // A stream sent as the GOAWAY arrived is refused: the client sends it again on a new connection, as Go's does.
      if (session === used) session = undefined;
      if (attempt < 10) return get(attempt + 1);
      throw err;
    });
  };
  let next = 0;
  let ok = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < count) {
      next++;
      if ((await get()) === 200) ok++;
    }
  }));
  session?.close();
  return { sessions, ok };
}

test('--goaway-chance: HTTP/2 connections are closed gracefully after some requests, none lost; without it one connection serves all', async (t) => {
  const server = await startServer({ goawayChance: 0.02 });
  t.after(() => server.stop());
  const spread = await getsOverHttp2(server, 1000);
  assert.equal(spread.ok, 1000);
  assert.ok(spread.sessions > 1, `one connection served 1,000 requests at a chance of 2%`);
  const plain = await startServer();
  t.after(() => plain.stop());
  assert.deepEqual(await getsOverHttp2(plain, 300), { sessions: 1, ok: 300 });
});

test('--min-request-timeout: a watch without timeoutSeconds ends between it and twice it; 0 lets it run', async (t) => {
  const quick = await startServer({ minRequestTimeoutSeconds: 1 });
  t.after(() => quick.stop());
  const started = performance.now();
  const ended = await quick.request('GET', '/api/v1/namespaces/default/configmaps?watch=1');
  const seconds = (performance.now() - started) / 1000;
  assert.equal(ended.status, 200);
  assert.ok(seconds >= 0.95 && seconds < 3, `the watch lasted ${seconds} s`);

  const endless = await startServer({ minRequestTimeoutSeconds: 0 });
  t.after(() => endless.stop());
  const watch = endless.request('GET', '/api/v1/namespaces/default/configmaps?watch=1').then(() => 'ended');
  const still = await Promise.race([watch, new Promise((resolve) => setTimeout(() => resolve('open'), 2500))]);
  assert.equal(still, 'open');
});

/** How a TLS handshake with these client options ends: the protocol and Go's name of the suite, or the error. */
function handshake(server: TestServer, opts: tls.ConnectionOptions): Promise<{ protocol: string | null; suite: string | undefined } | { error: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: server.caPem, servername: 'localhost', ...opts }, () => {
      resolve({ protocol: socket.getProtocol(), suite: socket.getCipher().standardName });
      socket.end();
    });
    socket.on('error', (err) => resolve({ error: err.message }));
  });
}

test('--tls-min-version and --tls-cipher-suites: older protocols and other TLS 1.2 suites refused, TLS 1.3 kept', async (t) => {
  const plain = await startServer();
  t.after(() => plain.stop());
  assert.deepEqual(await handshake(plain, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), { protocol: 'TLSv1.2', suite: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256' });

  const modern = await startServer({ tlsMinVersion: 'TLSv1.3' });
  t.after(() => modern.stop());
  assert.ok('error' in await handshake(modern, { maxVersion: 'TLSv1.2' }));
  assert.equal(((await handshake(modern, {})) as { protocol: string }).protocol, 'TLSv1.3');

  const suites = parseServeFlags(['--tls-cipher-suites', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384']).tlsCiphers!;
  const chosen = await startServer({ tlsCiphers: suites });
  t.after(() => chosen.stop());
  assert.ok('error' in await handshake(chosen, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }));
  assert.deepEqual(await handshake(chosen, { maxVersion: 'TLSv1.2' }), { protocol: 'TLSv1.2', suite: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384' });
  assert.equal(((await handshake(chosen, {})) as { protocol: string }).protocol, 'TLSv1.3');
  assert.equal((await chosen.request('GET', '/api')).status, 200);
});
