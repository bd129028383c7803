// Request bodies the server answers without reading must not wedge the connection they came on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  // A short grace for the rest of an unread body, so the stalled-body case ends soon.
  server = await startServer({ unreadBodyGraceMs: 500 });
});
after(async () => {
  await server.stop();
});

const big = Buffer.alloc(4 * 1024 * 1024, 'a');
const medium = Buffer.alloc(2 * 1024 * 1024, 'a');

interface Call {
  method: string;
  path: string;
  body?: Buffer;
  /** `content-length: ''` sends the body without a declared length. */
  headers?: Record<string, string>;
}

interface Rejection extends Call {
  name: string;
  status: number;
}

/** Answers given before (or without) reading the whole body, one of each kind. */
const rejections: Rejection[] = [
  { name: 'unknown resource', method: 'POST', path: '/api/v1/namespaces/default/widgets', body: big, status: 404 },
  { name: 'read-only path', method: 'POST', path: '/version', body: big, status: 405 },
  { name: 'body over the limit', method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: big, status: 413 },
  { name: 'body over the limit, length not declared', method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: big, status: 413, headers: { 'content-length': '' } },
  { name: 'bad token', method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: big, status: 401, headers: { authorization: 'Bearer wrong' } },
  { name: 'invalid query parameter', method: 'POST', path: '/api/v1/namespaces/default/configmaps?dryRun=Foo', body: medium, status: 422 },
  { name: 'wrong content type', method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: medium, status: 415, headers: { 'content-type': 'text/plain' } },
  { name: 'GET with a body it ignores', method: 'GET', path: '/version', body: big, status: 200 },
];

interface Answer {
  status: number;
  text: string;
  /** HTTP/2: the code the stream closed with (0 when reset with NO_ERROR or ended normally). */
  rstCode?: number | undefined;
  /** HTTP/1.1: the answer's Connection header, and whether the request went on a reused connection. */
  connection?: string | undefined;
  reusedSocket?: boolean;
}

/** Fails the test rather than hanging it when the server never answers. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within 30 s`)), 30_000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One request on the session, resolved once the stream has closed (answer read and
 * body sent or cut off), so that requests follow each other as a simple client's do.
 * `stream` writes the body as flow control lets it through, rather than queueing it all.
 */
function h2Request(session: http2.ClientHttp2Session, call: Call, opts: { stream?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http2.OutgoingHttpHeaders = {
      ':method': call.method,
      ':path': call.path,
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
    };
    if (call.body !== undefined) headers['content-length'] = call.body.length;
    Object.assign(headers, call.headers);
    if (headers['content-length'] === '') delete headers['content-length'];
    const stream = session.request(headers, { endStream: call.body === undefined });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', () => {});
    stream.on('close', () => {
      if (status === 0) reject(new Error(`${call.method} ${call.path}: stream closed without an answer (code ${stream.rstCode})`));
      else resolve({ status, text: Buffer.concat(chunks).toString(), rstCode: stream.rstCode });
    });
    if (call.body === undefined) return;
    if (opts.stream) void writeAsAllowed(stream, call.body);
    else stream.end(call.body);
  });
}

async function writeAsAllowed(stream: http2.ClientHttp2Stream, body: Buffer): Promise<void> {
  const chunk = 64 * 1024;
  for (let at = 0; at < body.length; at += chunk) {
    if (stream.closed || stream.destroyed) return;
    if (!stream.write(body.subarray(at, at + chunk))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
      });
    }
  }
  if (!stream.closed && !stream.destroyed) stream.end();
}

function h1Request(agent: https.Agent, call: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    if (call.body !== undefined) headers['content-length'] = call.body.length;
    Object.assign(headers, call.headers);
    const chunked = headers['content-length'] === '';
    if (chunked) delete headers['content-length'];
    let answered = false;
    const req = https.request(new URL(call.path, server.url), { method: call.method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        answered = true;
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), connection: res.headers.connection, reusedSocket: req.reusedSocket });
      });
    });
    // The server may stop reading once it has answered and close the connection: a write error then is no failure.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (chunked && call.body !== undefined) {
      req.write(call.body);
      req.end();
    } else {
      req.end(call.body);
    }
  });
}

describe('unread request bodies', () => {
  test('HTTP/2: 200 rejected bodies on one connection, then GET /version still answers', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    session.on('error', () => {});
    try {
      for (let i = 0; i < 200; i++) {
        const r = rejections[i % rejections.length]!;
        const answer = await within(h2Request(session, r), `request ${i} (${r.name})`);
        assert.equal(answer.status, r.status, `request ${i} (${r.name}): ${answer.text}`);
      }
      const version = await within(h2Request(session, { method: 'GET', path: '/version' }), 'GET /version');
      assert.equal(version.status, 200);
      assert.match(JSON.parse(version.text).gitVersion, /^v\d/);
    } finally {
      session.destroy();
    }
  });

  test('HTTP/2: a body too large to drain is cut off with RST_STREAM NO_ERROR after the answer', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    session.on('error', () => {});
    try {
      const huge = Buffer.alloc(64 * 1024 * 1024);
      const answer = await within(h2Request(session, { method: 'POST', path: '/api/v1/namespaces/default/widgets', body: huge }, { stream: true }), 'huge body');
      assert.equal(answer.status, 404);
      assert.equal(JSON.parse(answer.text).reason, 'NotFound');
      assert.equal(answer.rstCode, http2.constants.NGHTTP2_NO_ERROR);
      const version = await within(h2Request(session, { method: 'GET', path: '/version' }), 'GET /version');
      assert.equal(version.status, 200);
    } finally {
      session.destroy();
    }
  });

  test('HTTP/2: a client that stops sending the rest of a rejected body has its stream reset', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    session.on('error', () => {});
    try {
      const answer = await within(new Promise<Answer>((resolve) => {
        const stream = session.request({
          ':method': 'POST', ':path': '/api/v1/namespaces/default/widgets', authorization: `Bearer ${server.token}`, 'content-length': big.length,
        }, { endStream: false });
        let status = 0;
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.resume();
        stream.on('error', () => {});
        stream.on('close', () => resolve({ status, text: '', rstCode: stream.rstCode }));
        // A first part of the body, then nothing more.
        stream.write(big.subarray(0, 1000));
      }), 'stalled body');
      assert.equal(answer.status, 404);
      assert.equal(answer.rstCode, http2.constants.NGHTTP2_NO_ERROR);
      const version = await within(h2Request(session, { method: 'GET', path: '/version' }), 'GET /version');
      assert.equal(version.status, 200);
    } finally {
      session.destroy();
    }
  });

  test('HTTP/1.1 keep-alive: 200 rejected bodies, then GET /version still answers', async () => {
    const agent = new https.Agent({ ca: server.caPem, keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 200; i++) {
        const r = rejections[i % rejections.length]!;
        const answer = await within(h1Request(agent, r), `request ${i} (${r.name})`);
        assert.equal(answer.status, r.status, `request ${i} (${r.name}): ${answer.text}`);
      }
      const version = await within(h1Request(agent, { method: 'GET', path: '/version' }), 'GET /version');
      assert.equal(version.status, 200);
    } finally {
      agent.destroy();
    }
  });

  test('HTTP/1.1: a small unread body is drained and the connection kept; a large one closes it', async () => {
    const agent = new https.Agent({ ca: server.caPem, keepAlive: true, maxSockets: 1 });
    try {
      const unknown = '/api/v1/namespaces/default/widgets';
      const first = await within(h1Request(agent, { method: 'POST', path: unknown, body: Buffer.alloc(100 * 1024) }), 'small body');
      assert.equal(first.status, 404);
      assert.notEqual(first.connection, 'close');
      const reused = await within(h1Request(agent, { method: 'GET', path: '/version' }), 'GET /version');
      assert.equal(reused.status, 200);
      assert.equal(reused.reusedSocket, true);

      const large = await within(h1Request(agent, { method: 'POST', path: unknown, body: big }), 'large body');
      assert.equal(large.status, 404);
      assert.equal(large.connection, 'close');
      const chunked = await within(h1Request(agent, { method: 'POST', path: unknown, body: medium, headers: { 'content-length': '' } }), 'chunked body');
      assert.equal(chunked.status, 404);
      assert.equal(chunked.connection, 'close');
      const fresh = await within(h1Request(agent, { method: 'GET', path: '/version' }), 'GET /version');
      assert.equal(fresh.status, 200);
      assert.equal(fresh.reusedSocket, false);
    } finally {
      agent.destroy();
    }
  });
});
