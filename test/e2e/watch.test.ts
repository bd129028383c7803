// Watch over HTTP: start points, bookmarks, initial events, selectors, endings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ watchBookmarkIntervalMs: 200, watchCacheWaitMs: 500 });
});
after(async () => {
  await server.stop();
});

const namespace = () => server.newNamespace('w');

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = { a: '1' }) => ({ metadata: { name, labels }, data });

async function create(ns: string, name: string, labels: Record<string, string> = {}) {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(name, labels) });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

async function patch(ns: string, name: string, body: unknown) {
  const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, { raw: JSON.stringify(body), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

/** Events other than bookmarks, as "TYPE name". */
async function nextChange(stream: Awaited<ReturnType<typeof openStream>>): Promise<string> {
  for (;;) {
    const event = await stream.next();
    assert.ok(event, 'the stream ended');
    if (event.type !== 'BOOKMARK') return `${event.type} ${event.object.metadata.name}`;
  }
}

describe('start points', () => {
  for (const rv of ['', '0']) {
    test(`resourceVersion "${rv}": ADDED for the current state, then changes`, async () => {
      const ns = await namespace();
      await create(ns, 'a');
      await create(ns, 'b');
      const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1${rv === '' ? '' : `&resourceVersion=${rv}`}`);
      assert.equal(stream.status, 200);
      assert.equal(await nextChange(stream), 'ADDED a');
      assert.equal(await nextChange(stream), 'ADDED b');
      await patch(ns, 'a', { data: { a: '2' } });
      assert.equal(await nextChange(stream), 'MODIFIED a');
      await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/b`);
      assert.equal(await nextChange(stream), 'DELETED b');
      stream.close();
    });
  }

  test('resourceVersion n: only changes after n, in order, with their resourceVersions', async () => {
    const ns = await namespace();
    const a = await create(ns, 'a');
    const b = await create(ns, 'b');
    const changed = await patch(ns, 'a', { data: { a: '3' } });
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
    const first = await stream.next();
    assert.equal(first.type, 'ADDED');
    assert.equal(first.object.metadata.name, 'b');
    assert.equal(first.object.metadata.resourceVersion, b.metadata.resourceVersion);
    const second = await stream.next();
    assert.equal(second.type, 'MODIFIED');
    assert.equal(second.object.metadata.resourceVersion, changed.metadata.resourceVersion);
    stream.close();
  });

  test('DELETED carries the object with the deletion\'s resourceVersion', async () => {
    const ns = await namespace();
    const a = await create(ns, 'a');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${a.metadata.resourceVersion}`);
    await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`);
    const event = await stream.next();
    assert.equal(event.type, 'DELETED');
    assert.equal(event.object.data.a, '1');
    assert.ok(Number(event.object.metadata.resourceVersion) > Number(a.metadata.resourceVersion));
    stream.close();
  });

  test('a single object is watched by its path or by metadata.name', async () => {
    const ns = await namespace();
    await create(ns, 'a');
    await create(ns, 'b');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&fieldSelector=metadata.name%3Db&resourceVersion=0`);
    assert.equal(await nextChange(stream), 'ADDED b');
    await patch(ns, 'a', { data: { a: '9' } });
    await patch(ns, 'b', { data: { a: '9' } });
    assert.equal(await nextChange(stream), 'MODIFIED b');
    stream.close();
    const legacy = await openStream(server, `/api/v1/watch/namespaces/${ns}/configmaps/a`);
    assert.equal(await nextChange(legacy), 'ADDED a');
    legacy.close();
  });

  test('a resourceVersion newer than the server has seen: 504 Too large resource version', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=999999999');
    assert.equal(res.status, 504, res.text);
    assert.match(res.json.message, /Too large resource version/);
  });
});

describe('bookmarks and initial events', () => {
  test('allowWatchBookmarks: BOOKMARK events carry only kind, apiVersion and resourceVersion', async () => {
    const ns = await namespace();
    const a = await create(ns, 'a');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${a.metadata.resourceVersion}`);
    const event = await stream.next(3000);
    assert.equal(event.type, 'BOOKMARK');
    assert.equal(event.object.kind, 'ConfigMap');
    assert.equal(event.object.apiVersion, 'v1');
    assert.ok(Number(event.object.metadata.resourceVersion) >= Number(a.metadata.resourceVersion));
    assert.deepEqual(Object.keys(event.object.metadata).filter((k) => k !== 'annotations'), ['resourceVersion']);
    stream.close();
  });

  test('no bookmarks unless asked', async () => {
    const ns = await namespace();
    const a = await create(ns, 'a');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${a.metadata.resourceVersion}`);
    const asked = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${a.metadata.resourceVersion}`);
    // Two bookmarks reach the watch that asked, so the other was open through at least one round...
    assert.equal((await asked.next(3000)).type, 'BOOKMARK');
    assert.equal((await asked.next(3000)).type, 'BOOKMARK');
    asked.close();
    // ...and its next event is the next change: no bookmark came before it.
    await create(ns, 'b');
    const event = await stream.next();
    assert.deepEqual([event.type, event.object.metadata.name], ['ADDED', 'b']);
    stream.close();
  });

  test('sendInitialEvents: ADDED for the state, then a BOOKMARK annotated initial-events-end', async () => {
    const ns = await namespace();
    await create(ns, 'a');
    const b = await create(ns, 'b');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    assert.equal(await nextChange(stream), 'ADDED a');
    assert.equal(await nextChange(stream).catch(() => ''), 'ADDED b');
    let bookmark;
    do bookmark = await stream.next(); while (bookmark.type === 'BOOKMARK' && bookmark.object.metadata.annotations?.['k8s.io/initial-events-end'] !== 'true');
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(b.metadata.resourceVersion));
    await create(ns, 'c');
    assert.equal(await nextChange(stream), 'ADDED c');
    stream.close();
  });

  test('a watch without resourceVersion starts from the state but gets no initial-events-end bookmark (only sendInitialEvents does)', async () => {
    const ns = await namespace();
    await create(ns, 'a');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true`);
    assert.equal(await nextChange(stream), 'ADDED a');
    // Periodic bookmarks come every 200 ms here: read a few, none may carry the annotation.
    for (let seen = 0; seen < 3;) {
      const event = await stream.next();
      if (event.type !== 'BOOKMARK') continue;
      assert.equal(event.object.metadata.annotations?.['k8s.io/initial-events-end'], undefined);
      seen++;
    }
    stream.close();
  });

  test('watch and allowWatchBookmarks without a value, or with yes, are true, as Go reads them', async () => {
    const ns = await namespace();
    await create(ns, 'a');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch&allowWatchBookmarks=yes`);
    assert.equal(await nextChange(stream), 'ADDED a');
    stream.close();
  });

  const invalid: [string, RegExp][] = [
    ['sendInitialEvents=true', /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/],
    ['resourceVersionMatch=NotOlderThan&resourceVersion=1', /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/],
    ['sendInitialEvents=true&resourceVersionMatch=Exact', /Unsupported value: "Exact"/],
    // Any value but 0 and false is true, as Go's query decoding reads it.
    ['sendInitialEvents=yes', /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/],
  ];
  for (const [query, message] of invalid) {
    test(`watch with ${query} answers 422`, async () => {
      const res = await server.request('GET', `/api/v1/namespaces/default/configmaps?watch=1&${query}`);
      assert.equal(res.status, 422, res.text);
      assert.match(res.json.message, message);
    });
  }

  // Decoded with the other ListOptions before the watch starts, though a watch has no use for it.
  const undecodable: [string, string][] = [
    ['limit=ten', 'strconv.ParseInt: parsing "ten": invalid syntax'],
    ['limit=9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['resourceVersion=18446744073709551616', 'invalid resource version: strconv.ParseUint: parsing "18446744073709551616": value out of range'],
  ];
  for (const [query, message] of undecodable) {
    test(`watch with ${query} answers 400`, async () => {
      const res = await server.request('GET', `/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&${query}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.message, message);
    });
  }
});

describe('selectors', () => {
  test('an object that stops matching is DELETED (as it was), one that starts matching is ADDED', async () => {
    const ns = await namespace();
    await create(ns, 'a', { app: 'web' });
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&labelSelector=app%3Dweb`);
    assert.equal(await nextChange(stream), 'ADDED a');
    await patch(ns, 'a', { metadata: { labels: { app: 'db' } } });
    const gone = await stream.next();
    assert.equal(gone.type, 'DELETED');
    assert.equal(gone.object.metadata.labels.app, 'web', 'the object as it was before the change');
    await patch(ns, 'a', { metadata: { labels: { app: 'web' } } });
    assert.equal(await nextChange(stream), 'ADDED a');
    await create(ns, 'other', { app: 'db' });
    await create(ns, 'z', { app: 'web' });
    assert.equal(await nextChange(stream), 'ADDED z');
    stream.close();
  });
});

describe('endings', () => {
  test('timeoutSeconds ends the stream cleanly, after the changes until then', async () => {
    const ns = await namespace();
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`);
    assert.equal(stream.status, 200);
    await create(ns, 'a');
    assert.equal(await nextChange(stream), 'ADDED a');
    assert.deepEqual(await stream.rest(), []);
  });

  test('a start revision older than the history is an ERROR event with a 410 Expired Status', async () => {
    const short = await startServer({ etcdCompactionIntervalMs: 300 });
    try {
      const first = await short.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('old') });
      for (let i = 0; i < 5; i++) await short.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`n${i}`) });
      // Until the history (300 ms here) has let go of it, a watch from `first` streams what came after.
      const event = await eventually(async () => {
        const stream = await openStream(short, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${first.json.metadata.resourceVersion}`);
        try {
          assert.equal(stream.status, 200);
          const event = await stream.next();
          assert.equal(event.type, 'ERROR');
          assert.equal(await stream.next(), undefined);
          return event;
        } finally {
          stream.close();
        }
      });
      assert.equal(event.object.kind, 'Status');
      assert.equal(event.object.code, 410);
      assert.equal(event.object.reason, 'Expired');
    } finally {
      await short.stop();
    }
  });

  test('server shutdown ends open watches and the server still exits', async () => {
    const temp = await startServer();
    const stream = await openStream(temp, '/api/v1/namespaces/default/configmaps?watch=1');
    const ended = stream.rest();
    await temp.stop();
    assert.ok(Array.isArray(await ended));
  });
});

describe('resources', () => {
  test('watchers are released when clients disconnect or time out', async () => {
    const base = server.watcherCount();
    const streams = await Promise.all(Array.from({ length: 10 }, () => openStream(server, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0')));
    const timed = await openStream(server, '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
    assert.equal(server.watcherCount(), base + 11);
    for (const s of streams) s.close();
    await timed.rest();
    await eventually(() => assert.equal(server.watcherCount(), base));
  });
});
