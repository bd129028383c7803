// get and list over resourceVersion × resourceVersionMatch × limit/continue, as
// upstream's "Semantics for get and list" table; chunking; gzip.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import http2 from 'node:http2';
import https from 'node:https';
import { spyOnJson } from '../helpers/json-spy.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ watchCacheWaitMs: 500 });
});
after(async () => {
  await server.stop();
});

const namespace = () => server.newNamespace('rv');

async function createCm(ns: string, name: string, labels: Record<string, string> = {}): Promise<string> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name, labels }, data: { a: '1' } } });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.resourceVersion;
}

const names = (list: any) => list.items.map((i: any) => i.metadata.name);

describe('list parameters that are invalid', () => {
  const rows: [string, string, number, RegExp][] = [
    ['resourceVersionMatch without resourceVersion', 'resourceVersionMatch=NotOlderThan', 422, /resourceVersionMatch is forbidden unless resourceVersion is provided/],
    ['Exact with resourceVersion 0', 'resourceVersion=0&resourceVersionMatch=Exact', 422, /resourceVersionMatch "exact" is forbidden for resourceVersion "0"/],
    ['Exact with resourceVersion unset', 'resourceVersionMatch=Exact', 422, /forbidden unless resourceVersion is provided/],
    ['an unknown resourceVersionMatch', 'resourceVersion=1&resourceVersionMatch=Newest', 422, /Unsupported value: "Newest"/],
    ['sendInitialEvents on a plain list', 'sendInitialEvents=true', 422, /sendInitialEvents is forbidden for list/],
    ['continue with a non-zero resourceVersion', 'continue=abc&resourceVersion=5', 400, /specifying resource version is not allowed when using continue/],
    ['a malformed continue token', 'limit=1&continue=not-a-token', 400, /continue/],
    ['resourceVersionMatch with continue', 'continue=abc&resourceVersion=1&resourceVersionMatch=NotOlderThan', 422, /forbidden when continue is provided/],
    ['a resourceVersion that is not a number', 'resourceVersion=abc', 400, /invalid resource version/],
    ['a resourceVersion past uint64', 'resourceVersion=18446744073709551616', 400, /^invalid resource version: strconv\.ParseUint: parsing "18446744073709551616": value out of range$/],
    ['a timeoutSeconds that does not parse (decoded for lists too)', 'timeoutSeconds=abc', 400, /^strconv\.ParseInt: parsing "abc": invalid syntax$/],
  ];
  for (const [name, query, code, message] of rows) {
    test(`${name} answers ${code}`, async () => {
      const res = await server.request('GET', `/api/v1/namespaces/default/configmaps?${query}`);
      assert.equal(res.status, code, res.text);
      assert.equal(res.json.kind, 'Status');
      assert.match(res.json.message, message);
    });
  }
});

describe('list semantics', () => {
  test('resourceVersion unset: most recent, at the current revision', async () => {
    const ns = await namespace();
    const rv = await createCm(ns, 'a');
    const list = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json;
    assert.deepEqual(names(list), ['a']);
    assert.ok(Number(list.metadata.resourceVersion) >= Number(rv));
  });

  test('resourceVersion 0: any (served from the cache)', async () => {
    const ns = await namespace();
    await createCm(ns, 'a');
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`);
    assert.equal(res.status, 200);
    assert.ok(Number(res.json.metadata.resourceVersion) > 0);
  });

  for (const match of ['', '&resourceVersionMatch=NotOlderThan']) {
    test(`resourceVersion n${match ? ' NotOlderThan' : ''}: not older than n`, async () => {
      const ns = await namespace();
      const rv = await createCm(ns, 'a');
      const list = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}${match}`)).json;
      assert.ok(Number(list.metadata.resourceVersion) >= Number(rv));
      assert.deepEqual(names(list), ['a']);
    });
  }

  test('Exact n: the list exactly as it was at n', async () => {
    const ns = await namespace();
    const rv1 = await createCm(ns, 'a');
    await createCm(ns, 'b');
    await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`);
    const list = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv1}&resourceVersionMatch=Exact`)).json;
    assert.deepEqual(names(list), ['a']);
    assert.equal(list.metadata.resourceVersion, rv1);
  });

  test('Exact n with limit: pages at n', async () => {
    const ns = await namespace();
    await createCm(ns, 'a');
    const rv = await createCm(ns, 'b');
    await createCm(ns, 'c');
    const first = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact&limit=1`)).json;
    assert.deepEqual(names(first), ['a']);
    assert.equal(first.metadata.resourceVersion, rv);
    const second = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${first.metadata.continue}`)).json;
    assert.deepEqual(names(second), ['b']);
    assert.equal(second.metadata.continue, undefined, 'c was created after n');
  });

  // The cacher's computeListLimit ignores the limit at resourceVersion "0"; events have no
  // watch cache upstream (DefaultWatchCacheSizes), so their lists page from etcd.
  for (const match of ['', '&resourceVersionMatch=NotOlderThan']) {
    test(`resourceVersion 0${match ? ' NotOlderThan' : ''} with limit: the whole list, unpaged`, async () => {
      const ns = await namespace();
      for (const name of ['a', 'b', 'c']) await createCm(ns, name);
      const list = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0&limit=1${match}`)).json;
      assert.deepEqual(names(list), ['a', 'b', 'c']);
      assert.equal(list.metadata.continue, undefined);
      assert.equal(list.metadata.remainingItemCount, undefined);
    });
  }

  test('resourceVersion 0 with limit pages events, which upstream lists from etcd', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b']) {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/events`, {
        body: { metadata: { name }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: ns }, reason: 'R', message: 'm', type: 'Normal' },
      });
      assert.equal(res.status, 201, res.text);
    }
    const list = (await server.request('GET', `/api/v1/namespaces/${ns}/events?resourceVersion=0&limit=1`)).json;
    assert.deepEqual(names(list), ['a']);
    assert.equal(typeof list.metadata.continue, 'string');
  });

  test('resourceVersion n with limit and no resourceVersionMatch: exact at n (the legacy exact match)', async () => {
    const ns = await namespace();
    const rv = await createCm(ns, 'a');
    await createCm(ns, 'b');
    const list = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}&limit=5`)).json;
    assert.deepEqual(names(list), ['a']);
    assert.equal(list.metadata.resourceVersion, rv);
  });

  test('a resourceVersion newer than the server has seen: 504 Timeout "Too large resource version" with Retry-After', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=999999999');
    assert.equal(res.status, 504, res.text);
    assert.equal(res.json.reason, 'Timeout');
    assert.match(res.json.message, /Too large resource version/);
    assert.equal(res.headers['retry-after'], '1');
  });

  test('a resourceVersion past 2^53 is quoted as sent (the uint64 upstream parses), for a list, a get and a watch', async () => {
    for (const path of ['/api/v1/namespaces/default/configmaps', '/api/v1/namespaces/default/configmaps/none', '/api/v1/namespaces/default/configmaps?watch=1&x=']) {
      const res = await server.request('GET', `${path}${path.includes('?') ? '&' : '?'}resourceVersion=18446744073709551615`);
      assert.equal(res.status, 504, `${path}: ${res.text}`);
      assert.match(res.json.message, /^Timeout: Too large resource version: 18446744073709551615, current: \d+$/, path);
    }
  });
});

describe('get semantics', () => {
  test('get with resourceVersion unset, 0 and n', async () => {
    const ns = await namespace();
    const rv = await createCm(ns, 'a');
    for (const q of ['', '?resourceVersion=0', `?resourceVersion=${rv}`]) {
      const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/a${q}`);
      assert.equal(res.status, 200, q);
      assert.equal(res.json.metadata.resourceVersion, rv);
    }
    const future = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/a?resourceVersion=999999999`);
    assert.equal(future.status, 504);
  });

  test('a read right after a write sees it (consistent reads)', async () => {
    const ns = await namespace();
    for (let i = 0; i < 20; i++) {
      await createCm(ns, `c${i}`);
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c${i}`)).status, 200);
    }
  });
});

describe('chunks', () => {
  test('every chunk is at the first chunk\'s revision; remainingItemCount on non-last chunks only', async () => {
    const ns = await namespace();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await createCm(ns, n, { keep: n === 'c' ? 'no' : 'yes' });
    const seen: string[] = [];
    let token = '';
    let rv: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2${token ? `&continue=${token}` : ''}`)).json;
      rv ??= res.metadata.resourceVersion;
      assert.equal(res.metadata.resourceVersion, rv);
      seen.push(...names(res));
      if (page === 0) await createCm(ns, 'aa');
      if (!res.metadata.continue) {
        assert.equal(res.metadata.remainingItemCount, undefined);
        break;
      }
      assert.equal(res.metadata.remainingItemCount, 5 - seen.length);
      token = res.metadata.continue;
    }
    assert.deepEqual(seen, ['a', 'b', 'c', 'd', 'e']);
  });

  test('with a selector, remainingItemCount is omitted', async () => {
    const ns = await namespace();
    for (const n of ['a', 'b', 'c', 'd']) await createCm(ns, n, { keep: 'yes' });
    const res = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&labelSelector=keep%3Dyes`)).json;
    assert.deepEqual(names(res), ['a', 'b']);
    assert.ok(res.metadata.continue);
    assert.equal(res.metadata.remainingItemCount, undefined);
  });
});

describe('gzip', () => {
  const getRaw = (path: string, headers: Record<string, string>) => new Promise<{ headers: any; body: Buffer }>((resolve, reject) => {
    const agent = new https.Agent({ ca: server.caPem });
    https.get(new URL(path, server.url), { agent, headers: { authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        agent.destroy();
        resolve({ headers: res.headers, body: Buffer.concat(chunks) });
      });
    }).on('error', reject);
  });

  test('a large list is gzip-compressed when the client accepts it; small answers are not', async () => {
    const ns = await namespace();
    for (let i = 0; i < 40; i++) {
      await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `big-${i}` }, data: { blob: 'x'.repeat(4096) } } });
    }
    const big = await getRaw(`/api/v1/namespaces/${ns}/configmaps`, { 'accept-encoding': 'gzip' });
    assert.equal(big.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(big.body).toString()).items.length, 40);
    const plain = await getRaw(`/api/v1/namespaces/${ns}/configmaps`, {});
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(plain.body.toString()).items.length, 40);
    const small = await getRaw(`/api/v1/namespaces/${ns}/configmaps/big-0`, { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined, 'under the 128 KiB threshold');
  });

  test('a list written from its items\' bytes reads the same over HTTP/1.1 and HTTP/2, gzipped or not, and is as long as it says', async () => {
    const ns = await namespace();
    for (let i = 0; i < 60; i++) {
      await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `piece-${i}`, labels: { i: String(i) } }, data: { blob: `${i}`.repeat(3000) } } });
    }
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const http1 = await getRaw(path, {});
    const session = http2.connect(server.url, { ca: server.caPem });
    try {
      const overHttp2 = (headers: Record<string, string>) => new Promise<{ headers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const stream = session.request({ ':path': path, authorization: `Bearer ${server.token}`, ...headers });
        const chunks: Buffer[] = [];
        let answered: http2.IncomingHttpHeaders = {};
        stream.on('response', (h) => (answered = h));
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve({ headers: answered, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
      });
      const plain = await overHttp2({});
      const zipped = await overHttp2({ 'accept-encoding': 'gzip' });
      for (const answer of [http1, plain]) assert.equal(Number(answer.headers['content-length']), answer.body.length);
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      // The list's own resourceVersion is the server's revision at each read, and the
      // server's controllers may write between the three; the rest must match byte for byte.
      const listRevision = /^(\{"kind":"ConfigMapList","apiVersion":"v1","metadata":\{"resourceVersion":")\d+"/;
      const withoutListRevision = (body: Buffer) => {
        const text = body.toString();
        assert.match(text, listRevision);
        return text.replace(listRevision, '$1"');
      };
      assert.equal(withoutListRevision(plain.body), withoutListRevision(http1.body));
      assert.equal(withoutListRevision(gunzipSync(zipped.body)), withoutListRevision(http1.body));
      const list = JSON.parse(http1.body.toString());
      assert.deepEqual(list.items.map((item: any) => item.metadata.labels.i), Array.from({ length: 60 }, (_, i) => String(i)).sort());
      assert.equal(list.items[7].data.blob, list.items[7].metadata.labels.i.repeat(3000));
    } finally {
      session.close();
    }
  });
});

describe('gzip of lists joined in a reused buffer', () => {
  test('lists of different sizes, one after another and at once, each unzip to their own list', async () => {
    const sizes = [90, 45, 120];
    const namespaces: string[] = [];
    for (const [n, count] of sizes.entries()) {
      const ns = await namespace();
      namespaces.push(ns);
      for (let i = 0; i < count; i++) {
        const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `z-${i}` }, data: { blob: `${n}${i}`.repeat(1500) } } });
        assert.equal(res.status, 201, res.text);
      }
    }
    const session = http2.connect(server.url, { ca: server.caPem });
    try {
      const list = (ns: string, encoding: string) => new Promise<{ encoding: unknown; body: Buffer }>((resolve, reject) => {
        const stream = session.request({ ':path': `/api/v1/namespaces/${ns}/configmaps`, authorization: `Bearer ${server.token}`, 'accept-encoding': encoding });
        const chunks: Buffer[] = [];
        let encodingAnswered: unknown;
        stream.on('response', (h) => (encodingAnswered = h['content-encoding']));
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve({ encoding: encodingAnswered, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
      });
      const items = (body: Buffer) => (JSON.parse(body.toString()) as { items: Array<{ metadata: { name: string }; data: { blob: string } }> }).items;
      const check = (zipped: { encoding: unknown; body: Buffer }, n: number) => {
        assert.equal(zipped.encoding, 'gzip');
        const got = items(gunzipSync(zipped.body));
        assert.equal(got.length, sizes[n]);
        for (const item of got) assert.equal(item.data.blob, `${n}${item.metadata.name.slice(2)}`.repeat(1500));
      };
      // Largest, then smaller: a shorter list in the larger buffer must not carry its tail.
      for (const n of [2, 0, 1, 2, 1]) check(await list(namespaces[n]!, 'gzip'), n);
      const together = await Promise.all([0, 1, 2, 0, 1, 2].map((n) => list(namespaces[n]!, 'gzip')));
      together.forEach((zipped, i) => check(zipped, i % 3));
    } finally {
      session.close();
    }
  });
});

describe('identity lists joined in a reused buffer', () => {
  test('a list the client has not read yet keeps its bytes while other lists are answered', async () => {
    const make = async (count: number, tag: string) => {
      const ns = await namespace();
      for (let i = 0; i < count; i++) {
        const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `j-${i}` }, data: { blob: `${tag}${i}`.repeat(1500) } } });
        assert.equal(res.status, 201, res.text);
      }
      return ns;
    };
    const large = await make(120, 'a');
    const small = await make(60, 'b');
    const check = (body: Buffer, tag: string, count: number) => {
      const items = (JSON.parse(body.toString()) as { items: Array<{ metadata: { name: string }; data: { blob: string } }> }).items;
      assert.equal(items.length, count);
      for (const item of items) assert.equal(item.data.blob, `${tag}${item.metadata.name.slice(2)}`.repeat(1500));
    };
    const sessions = [http2.connect(server.url, { ca: server.caPem }), http2.connect(server.url, { ca: server.caPem })];
    try {
      const open = (session: http2.ClientHttp2Session, ns: string, encoding = 'identity') => {
        const stream = session.request({ ':path': `/api/v1/namespaces/${ns}/configmaps`, authorization: `Bearer ${server.token}`, 'accept-encoding': encoding });
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        const done = new Promise<Buffer>((resolve, reject) => {
          stream.on('end', () => resolve(Buffer.concat(chunks)));
          stream.on('error', reject);
        });
        return { stream, done };
      };
      // The large list first, in a buffer of its own, then read no further than the first
      // chunk: the server holds the rest, unsent, in that buffer.
      const held = open(sessions[0]!, large);
      await new Promise<void>((resolve) => held.stream.once('data', () => resolve()));
      held.stream.pause();
      // Other lists meanwhile: identity ones go out in parts while the held one is open,
      // gzip ones join (the smaller fitting the held buffer, were it given back too soon).
      for (let i = 0; i < 2; i++) {
        check(await open(sessions[1]!, small).done, 'b', 60);
        check(gunzipSync(await open(sessions[1]!, small, 'gzip').done), 'b', 60);
      }
      check(await open(sessions[1]!, large).done, 'a', 120);
      held.stream.resume();
      check(await held.done, 'a', 120);
      // Closed: the next lists join again, into the buffer the held one gave back.
      for (const [ns, tag, count] of [[small, 'b', 60], [large, 'a', 120], [small, 'b', 60]] as const) check(await open(sessions[1]!, ns).done, tag, count);
    } finally {
      for (const session of sessions) session.close();
    }
  });
});

describe('answers from the cache', () => {
  test('a JSON GET writes the cached bytes and decodes nothing, after the collector took the cached object', async () => {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const ns = await namespace();
    const marker = `marker-${Date.now()}`;
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'cached' }, data: { marker } } });
    assert.equal(res.status, 201, res.text);
    const agent = new https.Agent({ ca: server.caPem, keepAlive: true });
    const get = () => new Promise<string>((resolve, reject) => {
      https.get(new URL(`/api/v1/namespaces/${ns}/configmaps/cached`, server.url), { agent, headers: { authorization: `Bearer ${server.token}` } }, (r) => {
        let body = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (body += c));
        r.on('end', () => resolve(body));
      }).on('error', reject);
    });
    // Counts the decodings of the object: the test itself reads the answers as text.
    const json = spyOnJson(marker);
    try {
      for (let i = 0; i < 3; i++) {
        gc();
        assert.match(await get(), new RegExp(`"marker":"${marker}"`));
      }
    } finally {
      json.restore();
      agent.destroy();
    }
    assert.equal(json.count, 0, 'GETs decoded the cached object');
  });
});

describe('continue tokens as upstream\'s storage reads them', () => {
  const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  test('a token that does not read is 400 in DecodeContinue\'s words, under "invalid continue token"', async () => {
    const ns = await namespace();
    const cases: [string, string][] = [
      ['a+b', 'continue key is not valid: illegal base64 data at input byte 1'],
      [token({ v: 'meta.k8s.io/v2', rv: 5, start: 'a\u0000' }), 'continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2'],
      [token({ v: 'meta.k8s.io/v1', rv: 0, start: 'a\u0000' }), 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
      [token({ v: 'meta.k8s.io/v1', rv: 5, start: '' }), 'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)'],
      [token({ v: 'meta.k8s.io/v1', rv: 5, start: '../x' }), 'continue key is not valid: ../x'],
    ];
    for (const [text, message] of cases) {
      const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${encodeURIComponent(text)}`);
      assert.equal(res.status, 400, text);
      assert.equal(res.json.message, `invalid continue token: ${message}`);
    }
  });

  test('an expired continue is 410 with a token to go on at the latest revision, which lists the rest', async () => {
    const short = await startServer({ etcdCompactionIntervalMs: 300 });
    try {
      for (const name of ['a', 'b', 'c']) {
        assert.equal((await short.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } })).status, 201);
      }
      const first = (await short.request('GET', '/api/v1/namespaces/default/configmaps?limit=1')).json;
      assert.deepEqual(first.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a']);
      let expired;
      for (let i = 0; i < 100; i++) {
        await short.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `later-${i}` } } });
        expired = await short.request('GET', `/api/v1/namespaces/default/configmaps?limit=1&continue=${encodeURIComponent(first.metadata.continue)}`);
        if (expired.status === 410) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(expired!.status, 410, expired!.text);
      assert.equal(expired!.json.reason, 'Expired');
      assert.match(expired!.json.message, /or use the continue token in this response to retrieve the remainder of the results/);
      const next = expired!.json.metadata.continue as string;
      assert.deepEqual(JSON.parse(Buffer.from(next, 'base64url').toString()), { v: 'meta.k8s.io/v1', rv: -1, start: 'a\u0000' });
      const rest = await short.request('GET', `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(next)}`);
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(rest.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['b', 'c']);
    } finally {
      await short.stop();
    }
  });
});
