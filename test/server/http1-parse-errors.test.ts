// HTTP/1.1 requests Node's parser refuses before the server's handlers see them, answered as
// kube-apiserver answers them (Go's parser takes any method) or as Node does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

describe('methods over HTTP/1.1', () => {
  /** A raw HTTP/1.1 exchange: Node's client refuses to send a method its parser does not know. */
  async function raw(head: string): Promise<string> {
    const url = new URL(server.url);
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: server.caPem, ALPNProtocols: ['http/1.1'] });
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write(head);
    await new Promise((resolve) => socket.once('close', resolve));
    return text;
  }

  test('a method Node\'s parser does not know is a 405 Status, as any unknown method is upstream', async () => {
    const text = await raw(`FOO /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    assert.match(text, /\r\nContent-Type: application\/json\r\n/);
    assert.deepEqual(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405,
    });
    // A known one the API does not serve takes the API's own path to the same answer.
    assert.match(await raw(`PROPFIND /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 405 /);
  });

  test('a request the parser refuses after one being served is answered after it: the served request\'s answer comes first', async () => {
    // Node's own client sends a DELETE's body without Content-Length: the server reads a
    // DELETE without a body, then the body as the next request. Go's server answers the
    // DELETE before it reads on; the DELETE's answer must not be lost to the refusal's.
    const ns = await server.newNamespace('pipelined');
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed' } } });
    assert.equal(created.status, 201, created.text);
    const text = await raw(`DELETE /api/v1/namespaces/${ns}/configmaps/doomed HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n`
      + 'Content-Type: application/json\r\n\r\n{"gracePeriodSeconds":0}');
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/, text);
    assert.match(text, /"status":"Success"/);
    // The body read as a request line is no request to Go's server either: a 400, after the DELETE's answer.
    assert.match(text, /\r\n\r\n[^]*HTTP\/1\.1 400 Bad Request\r\n/, 'the refusal follows');
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/doomed`)).status, 404);
  });

  test('a pipelined request of an unknown method is a 405 after the answer to the one before it', async () => {
    const text = await raw(`GET /readyz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\nFOO /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nokHTTP\/1\.1 405 Method Not Allowed\r\n/, text);
  });

  test('a request line that is no HTTP is still a bare 400, and the server serves on', async () => {
    assert.equal(await raw('GET / NOT-HTTP\r\n\r\n'), 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    assert.equal((await server.request('GET', '/readyz')).status, 200);
  });
});
