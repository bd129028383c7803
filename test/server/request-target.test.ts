// Request targets are parsed strictly: odd paths are refused or not found, never served as another path.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { parseRequestTarget, requestTarget } from '../../src/server/request-target.ts';
import { isStatusError } from '../../src/api/index.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

describe('parseRequestTarget', () => {
  const cases: { name: string; target: string; path: string; query?: Record<string, string> }[] = [
    { name: 'origin form', target: '/api/v1/namespaces?limit=5', path: '/api/v1/namespaces', query: { limit: '5' } },
    { name: 'a leading double slash stays in the path', target: '//x/api/v1/namespaces', path: '//x/api/v1/namespaces' },
    { name: 'just two slashes', target: '//', path: '//' },
    { name: 'dot segments are not resolved', target: '/api/v1/../v1/namespaces', path: '/api/v1/../v1/namespaces' },
    { name: 'backslashes are not slashes', target: '/api\\v1', path: '/api\\v1' },
    { name: 'percent escapes stay encoded', target: '/api/v1/namespaces/a%2Fb', path: '/api/v1/namespaces/a%2Fb' },
    { name: 'absolute form', target: 'https://example.com:6443/version?x=1', path: '/version', query: { x: '1' } },
    { name: 'absolute form without a path', target: 'https://example.com', path: '/' },
    { name: 'asterisk form', target: '*', path: '*' },
    // Go's url.ParseQuery drops a pair with a malformed escape or a semicolon; the others stay.
    { name: 'a malformed escape in the query drops its pair', target: '/api/v1/configmaps?watch=%zz&limit=5', path: '/api/v1/configmaps', query: { limit: '5' } },
    { name: 'a semicolon drops its pair', target: '/api/v1/configmaps?limit=5;x=1&watch=1', path: '/api/v1/configmaps', query: { watch: '1' } },
    { name: 'escapes and plus signs decode', target: '/x?fieldSelector=metadata.name%3Da&q=a+b', path: '/x', query: { fieldSelector: 'metadata.name=a', q: 'a b' } },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = parseRequestTarget(c.target);
      assert.equal(parsed.path, c.path);
      assert.deepEqual(Object.fromEntries(parsed.query), c.query ?? {});
    });
  }

  for (const target of ['', 'api/v1', 'x', '/api/%zz', '/api/v1/namespaces/%', 'ftp://example.com/x']) {
    test(`${JSON.stringify(target)} is a 400`, () => {
      assert.throws(() => parseRequestTarget(target), (err) => isStatusError(err) && err.code === 400);
    });
  }
});

describe('requestTarget', () => {
  // Go's readRequest: a CONNECT target not starting with "/" is an authority, parsed after "http://".
  const cases: { name: string; method: string; target: string; path: string; query?: Record<string, string> }[] = [
    { name: 'CONNECT to an authority has the path ""', method: 'CONNECT', target: 'example.com:443', path: '' },
    { name: 'CONNECT to a bare host', method: 'CONNECT', target: 'example.com', path: '' },
    { name: 'CONNECT to an authority with a query', method: 'CONNECT', target: 'example.com:443?a=b', path: '', query: { a: 'b' } },
    { name: 'CONNECT to an authority and a path', method: 'CONNECT', target: 'example.com:443/api/v1/pods', path: '/api/v1/pods' },
    { name: 'CONNECT in origin form is any request\'s', method: 'CONNECT', target: '/api/v1/namespaces?limit=1', path: '/api/v1/namespaces', query: { limit: '1' } },
    { name: 'another method is parseRequestTarget\'s', method: 'GET', target: '/version', path: '/version' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = requestTarget(c.method, c.target);
      assert.equal(parsed.path, c.path);
      assert.deepEqual(Object.fromEntries(parsed.query), c.query ?? {});
    });
  }
  test('an authority-form target is a 400 for any other method', () => {
    assert.throws(() => requestTarget('GET', 'example.com:443'), (err) => isStatusError(err) && err.code === 400);
  });
});

describe('odd request paths over HTTPS', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  /** A request with the path sent exactly as given (URL parsing would read `//x` as a host). */
  function rawRequest(path: string, opts: { token?: string } = {}): Promise<{ status: number; json: any; text: string; contentType: string | undefined }> {
    const url = new URL(server.url);
    const headers: Record<string, string> = {};
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    return new Promise((resolve, reject) => {
      const req = https.request({ host: url.hostname, port: url.port, path, method: 'GET', ca: server.caPem, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text, contentType: res.headers['content-type'] });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  // Upstream's director hands a path to go-restful when it starts with one of its web services'
  // roots and a `/` (`/api/v1//namespaces`: its 404 Status); any other reaches the end of the
  // delegation chain (`//api/...`: net/http's plain-text 404).
  const emptySegments: Array<[string, 'restful' | 'chain end']> = [
    ['//', 'chain end'],
    ['//x/api/v1/namespaces', 'chain end'],
    ['//api/v1/namespaces', 'chain end'],
    ['//version', 'chain end'],
    ['/apis//v1/pods', 'chain end'],
    ['/api/v1//namespaces', 'restful'],
    ['/api//v1/namespaces', 'restful'],
    ['/apis/apps//v1/deployments', 'restful'],
    ['/version//', 'restful'],
  ];
  test('paths with an empty segment answer 403 without credentials (system:anonymous) and 404 with them', async () => {
    for (const [path, answeredBy] of emptySegments) {
      const anonymous = await rawRequest(path);
      assert.equal(anonymous.status, 403, `${path} anonymous`);
      assert.equal(anonymous.json?.reason, 'Forbidden', path);
      const admin = await rawRequest(path, { token: server.token });
      assert.equal(admin.status, 404, `${path} as admin`);
      if (answeredBy === 'restful') {
        assert.deepEqual([admin.contentType, admin.json?.reason, admin.json?.details], ['application/json', 'NotFound', {}], path);
      } else {
        assert.deepEqual([admin.contentType, admin.text], ['text/plain; charset=utf-8', '404 page not found\n'], path);
      }
    }
  });

  test('a malformed escape answers 400', async () => {
    const answer = await rawRequest('/api/v1/namespaces/%zz', { token: server.token });
    assert.equal(answer.status, 400);
    assert.equal(answer.json?.reason, 'BadRequest');
  });

  test('watch=%zz is dropped as Go drops it: a list, not a watch', async () => {
    const answer = await rawRequest('/api/v1/namespaces/default/configmaps?watch=%zz', { token: server.token });
    assert.equal(answer.status, 200);
    assert.equal(answer.json?.kind, 'ConfigMapList');
  });

  test('over HTTP/2, //x/api/v1/namespaces is not served as /api/v1/namespaces', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '//x/api/v1/namespaces', authorization: `Bearer ${server.token}` });
        let code = 0;
        stream.on('response', (h) => (code = Number(h[':status'])));
        stream.resume();
        stream.on('end', () => resolve(code));
        stream.on('error', reject);
      });
      assert.equal(status, 404);
    } finally {
      session.close();
    }
  });
});
