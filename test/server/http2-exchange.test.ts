// HTTP/2 requests served on Node's core stream API: what the compatibility layer did for us, we do.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { once } from 'node:events';
import { admitHttp2Request, Http2Response } from '../../src/server/http2-exchange.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let session: http2.ClientHttp2Session;
before(async () => {
  server = await startServer();
  session = http2.connect(server.url, { ca: server.caPem });
  session.on('error', () => {});
});
after(async () => {
  session.destroy();
  await server.stop();
});

interface Answer {
  headers: http2.IncomingHttpHeaders;
  body: string;
  informational: number[];
}

function call(headers: http2.OutgoingHttpHeaders, body?: string, onContinue?: (stream: http2.ClientHttp2Stream) => void): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ authorization: `Bearer ${server.token}`, ...headers }, { endStream: body === undefined && onContinue === undefined });
    const informational: number[] = [];
    let answer: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('headers', (h) => informational.push(Number(h[':status'])));
    stream.on('continue', () => onContinue?.(stream));
    stream.on('response', (h) => (answer = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ headers: answer, body: Buffer.concat(chunks).toString(), informational }));
    stream.on('error', reject);
    if (body !== undefined) stream.end(body);
  });
}

test('a created object comes back whole, with the date, its length and type', async () => {
  const body = JSON.stringify({ metadata: { name: 'h2-created' }, data: { a: 'b'.repeat(100_000) } });
  const answer = await call({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' }, body);
  assert.equal(answer.headers[':status'], 201);
  assert.equal(answer.headers['content-type'], 'application/json');
  assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body));
  assert.ok(answer.headers.date !== undefined);
  assert.equal(JSON.parse(answer.body).data.a.length, 100_000);
});

test('HEAD answers the headers of a GET and no body', async () => {
  const get = await call({ ':path': '/version' });
  const head = await call({ ':method': 'HEAD', ':path': '/version' });
  assert.equal(head.headers[':status'], 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-length'], get.headers['content-length']);
  assert.equal(head.headers['content-type'], get.headers['content-type']);
});

test('CONNECT reaches the handlers (its authority no path they serve: 404) and an expectation other than 100-continue is 417', async () => {
  // Go's server hands a CONNECT to kube-apiserver's handler, whose mux chain ends in net/http's NotFound.
  const connect = await new Promise<Answer>((resolve, reject) => {
    const stream = session.request({ ':method': 'CONNECT', ':authority': 'example.com:443', authorization: `Bearer ${server.token}` });
    const chunks: Buffer[] = [];
    let headers: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('data', (c: Buffer) => {
      chunks.push(c);
      if (Buffer.concat(chunks).toString().endsWith('\n')) {
        resolve({ headers, body: Buffer.concat(chunks).toString(), informational: [] });
        stream.close();
      }
    });
    stream.on('error', reject);
  });
  assert.deepEqual([connect.headers[':status'], connect.headers['content-type'], connect.body], [404, 'text/plain; charset=utf-8', '404 page not found\n']);
  const expect = await call({ ':path': '/version', expect: 'something-else' });
  assert.equal(expect.headers[':status'], 417);
});

test('Expect: 100-continue gets its interim answer, then the answer to the body sent after it', async () => {
  const body = JSON.stringify({ metadata: { name: 'h2-continued' } });
  const answer = await call({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json', expect: '100-continue' }, undefined, (stream) => stream.end(body));
  assert.deepEqual(answer.informational, [100]);
  assert.equal(answer.headers[':status'], 201);
  assert.equal(JSON.parse(answer.body).metadata.name, 'h2-continued');
});

test('repeated warnings arrive as one header value each', async () => {
  const body = JSON.stringify({ metadata: { name: 'h2-warned' }, unknownOne: 1, unknownTwo: 2 });
  const answer = await call({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps?fieldValidation=Warn&dryRun=All', 'content-type': 'application/json' }, body);
  assert.equal(answer.headers[':status'], 201);
  const warning = answer.headers.warning;
  assert.ok(Array.isArray(warning) ? warning.length === 2 : String(warning).split('", 299').length === 2, `warnings: ${String(warning)}`);
  assert.match(String(warning), /unknown field \\"unknownOne\\"/);
  assert.match(String(warning), /unknown field \\"unknownTwo\\"/);
});

test('streams the client resets with an error, mid-body or mid-watch, end without harm to the server', async () => {
  const body = session.request({ authorization: `Bearer ${server.token}`, ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json', 'content-length': 1_000_000 }, { endStream: false });
  body.on('error', () => {});
  body.write(Buffer.alloc(20_000, 'a'), () => body.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  await new Promise((resolve) => body.on('close', resolve));
  // A watch reads no body: nothing but the server's own listener hears its stream's error.
  const watch = session.request({ authorization: `Bearer ${server.token}`, ':path': '/api/v1/namespaces/default/configmaps?watch=1' });
  watch.on('error', () => {});
  watch.once('response', () => watch.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  await new Promise((resolve) => watch.on('close', resolve));
  // Unheard, a server stream's error would have ended the process.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const version = await call({ ':path': '/version' });
  assert.equal(version.headers[':status'], 200);
});

test('connection-specific headers are dropped from an HTTP/2 answer, as HTTP/2 has none', async () => {
  const plain = http2.createServer();
  plain.on('stream', (stream) => {
    const res = new Http2Response(stream, 'GET');
    res.setHeader('Connection', 'close');
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  });
  plain.listen(0, '127.0.0.1');
  await once(plain, 'listening');
  const address = plain.address() as { port: number };
  const client = http2.connect(`http://127.0.0.1:${address.port}`);
  try {
    const answer = await new Promise<{ headers: http2.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const stream = client.request({ ':path': '/' });
      let headers: http2.IncomingHttpHeaders = {};
      let body = '';
      stream.on('response', (h) => (headers = h));
      stream.on('data', (c: Buffer) => (body += c.toString()));
      stream.on('end', () => resolve({ headers, body }));
      stream.on('error', reject);
    });
    assert.equal(answer.headers[':status'], 200);
    assert.equal(answer.headers.connection, undefined);
    assert.equal(answer.body, 'ok');
  } finally {
    client.destroy();
    plain.close();
  }
});

test('a stream reset before it is served is neither answered nor handed on', () => {
  const answered: unknown[] = [];
  const reset = { destroyed: true, closed: true, respond: (h: unknown) => answered.push(h), additionalHeaders: (h: unknown) => answered.push(h) };
  for (const headers of [{ ':method': 'GET' }, { ':method': 'CONNECT' }, { ':method': 'POST', expect: '100-continue' }]) {
    assert.equal(admitHttp2Request(reset as unknown as http2.ServerHttp2Stream, headers), false);
  }
  assert.deepEqual(answered, []);
});
