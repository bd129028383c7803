// Request headers up to 1 MiB, as kube-apiserver takes them (Go's http.DefaultMaxHeaderBytes),
// over HTTP/1.1 and HTTP/2: long label selectors, and paths naming objects by long names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

interface Answer {
  status: number;
  text: string;
}

/**
 * One request over a fresh HTTP/2 connection. Node's client sends a header block of at
 * most 64 KiB unless told otherwise (nghttp2's own default), whatever the server takes.
 */
function http2Request(method: string, path: string): Promise<Answer> {
  const session = http2.connect(server.url, { ca: server.caPem, maxSendHeaderBlockLength: 4 * 1024 * 1024 });
  session.on('error', () => {});
  return new Promise<Answer>((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, authorization: `Bearer ${server.token}` });
    let status = 0;
    let text = '';
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status, text })).on('error', reject);
    stream.end();
  }).finally(() => session.destroy());
}

const overBoth = [
  { protocol: 'HTTP/1.1', request: (method: string, path: string): Promise<Answer> => server.request(method, path) },
  { protocol: 'HTTP/2', request: http2Request },
];

describe('request headers up to 1 MiB', () => {
  for (const { protocol, request } of overBoth) {
    test(`a label selector of 3,000 values (a 23 KB URL) lists, over ${protocol}`, async () => {
      const ns = await server.newNamespace(`selector-${protocol === 'HTTP/2' ? 'h2' : 'h1'}`);
      const values = Array.from({ length: 3000 }, (_, i) => `v${i}`).join(',');
      const path = `/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent(`a in (${values})`)}`;
      assert.ok(path.length > 20_000, `${path.length}`);
      const answer = await request('GET', path);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(JSON.parse(answer.text).kind, 'ConfigMapList');
    });
  }

  // A name in a path has no length limit upstream. HTTP/2 carries the path in one header
  // field, which nghttp2 takes up to 64 KiB as HPACK encodes it: a's and 1's take 5 bits each.
  for (const [i, { protocol, request }] of overBoth.entries()) {
    test(`a ClusterRole named by 100,000 characters is read and deleted by name, over ${protocol}`, async () => {
      const name = `${'a'.repeat(99_999)}${i + 1}`;
      const created = await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name } },
      });
      assert.equal(created.status, 201, created.text.slice(0, 300));
      const clusterRole = `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
      const read = await request('GET', clusterRole);
      assert.equal(read.status, 200, read.text.slice(0, 300));
      assert.equal(JSON.parse(read.text).metadata.name, name);
      const deleted = await request('DELETE', clusterRole);
      assert.equal(deleted.status, 200, deleted.text.slice(0, 300));
      assert.equal((await request('GET', clusterRole)).status, 404);
    });
  }

  test('HTTP/2 advertises a header list of 1 MiB and 320 bytes, as kube-apiserver (Go adds 32 bytes for each of ten fields)', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    session.on('error', () => {});
    try {
      const settings = await new Promise<http2.Settings>((resolve) => session.once('remoteSettings', resolve));
      assert.equal(settings.maxHeaderListSize, 1024 * 1024 + 320);
    } finally {
      session.destroy();
    }
  });
});

describe('request headers past the limits', () => {
  test('HTTP/1.1 headers past 1 MiB are refused (431, or the connection closed) and the server serves on', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = https.request(new URL('/version', server.url), {
        agent: false, ca: server.caPem, headers: { authorization: `Bearer ${server.token}`, 'x-padding': 'p'.repeat(1024 * 1024 + 8192) },
      }, (res) => {
        res.resume();
        resolve(String(res.statusCode));
      });
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      req.end();
    });
    assert.ok(['431', 'ECONNRESET', 'EPIPE'].includes(outcome), outcome);
    assert.equal((await server.request('GET', '/readyz')).status, 200);
  });

  test('over HTTP/2, a header field too long for nghttp2\'s decoder ends its connection only', async () => {
    const bystander = http2.connect(server.url, { ca: server.caPem });
    bystander.on('error', () => {});
    try {
      const ping = () => new Promise<number>((resolve, reject) => {
        const stream = bystander.request({ ':path': '/readyz' });
        stream.on('response', (headers) => resolve(Number(headers[':status']))).on('error', reject).resume();
      });
      assert.equal(await ping(), 200);
      // 100,000 x's take 87.5 KB in HPACK (7 bits each): past the 64 KiB nghttp2 decodes in one field.
      await assert.rejects(http2Request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${'x'.repeat(100_000)}`), /COMPRESSION_ERROR|code 9/);
      assert.equal(await ping(), 200);
      assert.equal((await http2Request('GET', '/readyz')).status, 200);
    } finally {
      bystander.destroy();
    }
  });
});
