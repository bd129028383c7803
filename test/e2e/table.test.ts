// Server-side Tables (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`) for get,
// list and watch, and kubectl printing them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

const tableV1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const kubectlAccept = `${tableV1},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`;

let server: TestServer;
before(async () => {
  server = await startServer({ watchBookmarkIntervalMs: 200 });
});
after(async () => {
  await server.stop();
});

const namespace = () => server.newNamespace('table');

async function createConfigMap(ns: string, name: string, data: Record<string, string> = { a: '1' }) {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name }, data } });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

const get = (path: string, accept = kubectlAccept) => server.request('GET', path, { headers: { accept } });

const columnNames = (table: any) => table.columnDefinitions.map((c: any) => c.name);

describe('get', () => {
  test('a ConfigMap as a v1 Table: columns, one row, PartialObjectMetadata', async () => {
    const ns = await namespace();
    const cm = await createConfigMap(ns, 'settings', { a: '1', b: '2' });
    const res = await get(`/api/v1/namespaces/${ns}/configmaps/settings`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'application/json');
    const table = res.json;
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: cm.metadata.resourceVersion });
    assert.deepEqual(table.columnDefinitions[0], {
      name: 'Name', type: 'string', format: 'name', priority: 0, description: table.columnDefinitions[0].description,
    });
    assert.deepEqual(columnNames(table), ['Name', 'Data', 'Age']);
    assert.equal(table.rows.length, 1);
    assert.deepEqual(table.rows[0].cells.slice(0, 2), ['settings', 2]);
    assert.match(table.rows[0].cells[2], /^\d+s$/);
    assert.deepEqual(table.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata });
  });

  test('v1beta1 when asked for it, rows in the same version', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'c');
    const res = await get(`/api/v1/namespaces/${ns}/configmaps/c`, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    assert.equal(res.json.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(res.json.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('includeObject=None, Object and Metadata', async () => {
    const ns = await namespace();
    const cm = await createConfigMap(ns, 'c');
    const path = `/api/v1/namespaces/${ns}/configmaps/c`;
    assert.equal((await get(`${path}?includeObject=None`)).json.rows[0].object, null);
    assert.deepEqual((await get(`${path}?includeObject=Object`)).json.rows[0].object, cm);
    assert.equal((await get(`${path}?includeObject=Metadata`)).json.rows[0].object.kind, 'PartialObjectMetadata');
  });

  test('an unknown includeObject is 400', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'c');
    const res = await get(`/api/v1/namespaces/${ns}/configmaps/c?includeObject=Everything`);
    assert.equal(res.status, 400);
    assert.equal(res.json.reason, 'BadRequest');
    assert.match(res.json.message, /^Unable to convert to Table as requested: includeObject: Unsupported value: "Everything"/);
  });

  test('a missing object is still 404', async () => {
    const ns = await namespace();
    assert.equal((await get(`/api/v1/namespaces/${ns}/configmaps/nope`)).status, 404);
  });

  test('a pod row: Ready, Status, Restarts, Age and the wide columns', async () => {
    const ns = await namespace();
    const pod = { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }], nodeName: 'node-1' } };
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod })).status, 201);
    const table = (await get(`/api/v1/namespaces/${ns}/pods/web`)).json;
    assert.deepEqual(columnNames(table), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    assert.deepEqual(table.columnDefinitions.map((c: any) => c.priority), [0, 0, 0, 0, 0, 1, 1, 1, 1]);
    const cells = table.rows[0].cells;
    assert.deepEqual([...cells.slice(0, 4), ...cells.slice(5)], ['web', '0/1', 'Pending', '0', '<none>', 'node-1', '<none>', '<none>']);
  });
});

describe('list', () => {
  test('an empty list of a type without a printer (the default convertor: CRDs, LimitRanges) has null rows; a printer\'s has []', async () => {
    const ns = await namespace();
    const crds = await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions?labelSelector=none%3Dhere', tableV1);
    assert.equal(crds.status, 200, crds.text);
    assert.deepEqual(columnNames(crds.json), ['Name', 'Created At']);
    assert.equal(crds.json.rows, null);
    const limits = await get(`/api/v1/namespaces/${ns}/limitranges`, tableV1);
    assert.deepEqual(columnNames(limits.json), ['Name', 'Created At']);
    assert.equal(limits.json.rows, null);
    assert.deepEqual((await get(`/api/v1/namespaces/${ns}/configmaps`, tableV1)).json.rows, []);
    assert.deepEqual((await get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, tableV1)).json.rows, [], 'roles print Name and Created At with a printer of their own');
  });

  test('one row per object, the list resourceVersion', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b', 'c']) await createConfigMap(ns, name);
    const plain = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json;
    const table = (await get(`/api/v1/namespaces/${ns}/configmaps`)).json;
    assert.equal(table.kind, 'Table');
    assert.deepEqual(table.rows.map((r: any) => r.cells[0]), ['a', 'b', 'c']);
    assert.ok(Number(table.metadata.resourceVersion) >= Number(plain.metadata.resourceVersion));
    assert.equal(table.metadata.continue, undefined);
  });

  test('limit and continue page through Tables', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b', 'c']) await createConfigMap(ns, name);
    const first = (await get(`/api/v1/namespaces/${ns}/configmaps?limit=2`)).json;
    assert.deepEqual(first.rows.map((r: any) => r.cells[0]), ['a', 'b']);
    assert.equal(first.metadata.remainingItemCount, 1);
    assert.equal(typeof first.metadata.continue, 'string');
    assert.ok(first.columnDefinitions.length > 0);
    const second = (await get(`/api/v1/namespaces/${ns}/configmaps?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json;
    assert.deepEqual(second.rows.map((r: any) => r.cells[0]), ['c']);
    assert.equal(second.metadata.continue, undefined);
    assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);
  });

  test('an empty list is a Table without rows', async () => {
    const ns = await namespace();
    const table = (await get(`/api/v1/namespaces/${ns}/secrets`)).json;
    assert.deepEqual(table.rows, []);
    assert.deepEqual(columnNames(table), ['Name', 'Type', 'Data', 'Age']);
  });

  test('cluster-scoped: namespaces with their Status', async () => {
    const ns = await namespace();
    const table = (await get('/api/v1/namespaces')).json;
    const row = table.rows.find((r: any) => r.cells[0] === ns);
    assert.equal(row.cells[1], 'Active');
  });

  test('a YAML Table', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    const res = await get(`/api/v1/namespaces/${ns}/configmaps`, 'application/yaml;as=Table;g=meta.k8s.io;v=v1');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/yaml');
    // Keys sorted, as kube-apiserver's YAML serializer writes them.
    assert.match(res.text, /^apiVersion: meta\.k8s\.io\/v1\ncolumnDefinitions:\n/);
    assert.match(res.text, /^kind: Table$/m);
  });

  test('a Table of another version falls through to the next entry, or 406 without one', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    const fallback = await get(`/api/v1/namespaces/${ns}/configmaps`, 'application/json;as=Table;g=meta.k8s.io;v=v2,application/json');
    assert.equal(fallback.json.kind, 'ConfigMapList');
    const refused = await get(`/api/v1/namespaces/${ns}/configmaps`, 'application/json;as=Table;g=meta.k8s.io;v=v2');
    assert.equal(refused.status, 406);
    assert.equal(refused.json.reason, 'NotAcceptable');
  });

  test('writes answer Tables when asked, as upstream transforms every answer; a Status stays a Status', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const headers = { accept: kubectlAccept };
    const cases: { name: string; method: string; path: string; body?: unknown; contentType?: string; status: number; kind: string }[] = [
      { name: 'create', method: 'POST', path: base, body: { metadata: { name: 'w' }, data: { a: '1' } }, status: 201, kind: 'Table' },
      { name: 'update', method: 'PUT', path: `${base}/w`, body: { metadata: { name: 'w' }, data: { a: '2' } }, status: 200, kind: 'Table' },
      { name: 'merge patch', method: 'PATCH', path: `${base}/w`, body: { data: { b: '3' } }, contentType: 'application/merge-patch+json', status: 200, kind: 'Table' },
      { name: 'apply', method: 'PATCH', path: `${base}/w?fieldManager=t`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w' }, data: { c: '4' } }, contentType: 'application/apply-patch+yaml', status: 200, kind: 'Table' },
      { name: 'delete answers a Status, untransformed', method: 'DELETE', path: `${base}/w`, status: 200, kind: 'Status' },
    ];
    for (const c of cases) {
      const res = await server.request(c.method, c.path, { body: c.body, headers: { ...headers, ...(c.contentType === undefined ? {} : { 'content-type': c.contentType }) } });
      assert.equal(res.status, c.status, `${c.name}: ${res.text}`);
      assert.equal(res.json.kind, c.kind, c.name);
      if (c.kind === 'Table') {
        assert.equal(res.json.apiVersion, 'meta.k8s.io/v1', c.name);
        assert.deepEqual(columnNames(res.json), ['Name', 'Data', 'Age'], c.name);
        assert.equal(res.json.rows[0].cells[0], 'w', c.name);
        assert.equal(res.json.rows[0].object.kind, 'PartialObjectMetadata', c.name);
      }
    }
  });

  test('a scale answers a Table of its own columns', async () => {
    const ns = await namespace();
    const deployment = {
      metadata: { name: 'd' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    assert.equal((await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment })).status, 201);
    const res = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`, {
      body: { spec: { replicas: 3 } }, headers: { accept: kubectlAccept, 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(columnNames(res.json), ['Name', 'Desired', 'Available']);
    assert.deepEqual(res.json.rows[0].cells, ['d', 3, 0]);
  });
});

/** The next event that is not a bookmark. */
async function nextChange(stream: Awaited<ReturnType<typeof openStream>>): Promise<any> {
  for (;;) {
    const event = await stream.next();
    assert.ok(event, 'the stream ended');
    if (event.type !== 'BOOKMARK') return event;
  }
}

/** A revision to watch from, so that the first bookmark is a periodic one. */
async function currentRevision(ns: string): Promise<string> {
  return (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.metadata.resourceVersion;
}

describe('watch', () => {
  test('events are Tables of one row; column definitions only in the first', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1`, { accept: kubectlAccept });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], 'application/json');
    const added = await nextChange(stream);
    assert.equal(added.type, 'ADDED');
    assert.equal(added.object.kind, 'Table');
    assert.equal(added.object.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(columnNames(added.object), ['Name', 'Data', 'Age']);
    assert.equal(added.object.rows.length, 1);
    assert.deepEqual(added.object.rows[0].cells.slice(0, 2), ['a', 1]);
    assert.equal(added.object.rows[0].object.kind, 'PartialObjectMetadata');
    assert.equal(added.object.metadata.resourceVersion, added.object.rows[0].object.metadata.resourceVersion);

    const created = await createConfigMap(ns, 'b', { x: '1', y: '2' });
    const second = await nextChange(stream);
    assert.equal(second.type, 'ADDED');
    assert.equal(second.object.columnDefinitions, null);
    assert.deepEqual(second.object.rows[0].cells.slice(0, 2), ['b', 2]);
    assert.equal(second.object.metadata.resourceVersion, created.metadata.resourceVersion);

    await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/b`);
    const deleted = await nextChange(stream);
    assert.equal(deleted.type, 'DELETED');
    assert.equal(deleted.object.rows[0].cells[0], 'b');
    stream.close();
  });

  test('from a resourceVersion, with includeObject=Object, as `kubectl get -w` continues a list', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    const list = (await get(`/api/v1/namespaces/${ns}/configmaps`)).json;
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&includeObject=Object`, { accept: kubectlAccept });
    const cm = await createConfigMap(ns, 'b');
    const event = await nextChange(stream);
    assert.equal(event.type, 'ADDED');
    assert.ok(event.object.columnDefinitions.length > 0, 'the first event sent carries the headers');
    assert.deepEqual(event.object.rows[0].object, cm);
    stream.close();
  });

  // Upstream passes every event's object through the same transform, a BOOKMARK's too
  // (apiserver handlers/watch.go, response.go: watchEmbeddedEncoder): a bookmark is a Table
  // of one row printed from the bookmark's almost empty object, with its resourceVersion.
  test('a bookmark is a Table of one row from the bookmark object, and takes the headers when first', async () => {
    const ns = await namespace();
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${await currentRevision(ns)}`, { accept: kubectlAccept });
    const bookmark = await stream.next();
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.equal(bookmark.object.kind, 'Table');
    assert.equal(bookmark.object.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(columnNames(bookmark.object), ['Name', 'Data', 'Age']);
    const rv = bookmark.object.metadata.resourceVersion;
    assert.match(rv, /^\d+$/);
    assert.deepEqual(bookmark.object.rows, [{
      cells: ['', 0, '<unknown>'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: rv } },
    }]);
    await createConfigMap(ns, 'a');
    const added = await nextChange(stream);
    assert.equal(added.object.columnDefinitions, null, 'the bookmark carried the headers');
    assert.deepEqual(added.object.rows[0].cells.slice(0, 2), ['a', 1]);
    stream.close();
  });

  test('includeObject applies to a bookmark row as to any other', async () => {
    const ns = await namespace();
    const cases: { includeObject: string; object: (rv: string) => unknown }[] = [
      { includeObject: 'None', object: () => null },
      { includeObject: 'Metadata', object: (rv) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: rv } }) },
      { includeObject: 'Object', object: (rv) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: rv } }) },
    ];
    for (const c of cases) {
      const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${await currentRevision(ns)}&includeObject=${c.includeObject}`, { accept: kubectlAccept });
      const bookmark = await stream.next();
      stream.close();
      assert.equal(bookmark.type, 'BOOKMARK', c.includeObject);
      assert.deepEqual(bookmark.object.rows[0].object, c.object(bookmark.object.metadata.resourceVersion), c.includeObject);
    }
  });

  test('a pod bookmark prints as upstream prints an empty pod; v1beta1 when asked', async () => {
    const ns = await namespace();
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/pods?watch=1&allowWatchBookmarks=true`, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
    const bookmark = await stream.next();
    stream.close();
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.equal(bookmark.object.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(bookmark.object.rows[0].cells, ['', '0/0', '', '0', '<unknown>', '<none>', '<none>', '<none>', '<none>']);
    assert.equal(bookmark.object.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('the initial-events-end bookmark keeps its annotation in the row object', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    const stream = await openStream(server,
      `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, { accept: kubectlAccept });
    const added = await stream.next();
    assert.equal(added.type, 'ADDED');
    assert.ok(added.object.columnDefinitions.length > 0);
    let end: any;
    while ((end = await stream.next()).object.rows[0].object.metadata.annotations === undefined) assert.equal(end.type, 'BOOKMARK');
    stream.close();
    assert.equal(end.type, 'BOOKMARK');
    assert.equal(end.object.columnDefinitions, null);
    assert.deepEqual(end.object.rows[0].object.metadata, {
      resourceVersion: end.object.metadata.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' },
    });
  });

  test('an unknown includeObject is 400 before the stream starts', async () => {
    const ns = await namespace();
    const res = await get(`/api/v1/namespaces/${ns}/configmaps?watch=1&includeObject=bogus`);
    assert.equal(res.status, 400);
  });

  test('a YAML Table is passed over (YAML cannot stream): 406 without another entry', async () => {
    const ns = await namespace();
    const res = await get(`/api/v1/namespaces/${ns}/configmaps?watch=1`, 'application/yaml;as=Table;g=meta.k8s.io;v=v1');
    assert.equal(res.status, 406);
  });
});

const kubectlBin = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const run = promisify(execFile);

describe('kubectl 1.33 prints the Tables', { skip: existsSync(kubectlBin) ? false : `kubectl 1.33 is not installed at ${kubectlBin}` }, () => {
  const kubectl = async (...args: string[]) => {
    try {
      const { stdout } = await run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, ...args], { timeout: 30_000 });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
    }
  };
  const header = (out: string) => out.split('\n')[0]!.trim().split(/\s{2,}/);

  test('get pods, and -o wide', async () => {
    const ns = await namespace();
    const pod = { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod })).status, 201);
    const out = await kubectl('-n', ns, 'get', 'pods');
    assert.deepEqual(header(out), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.match(out, /^web\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    const wide = await kubectl('-n', ns, 'get', 'pods', '-o', 'wide');
    assert.deepEqual(header(wide), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
  });

  test('get deploy', async () => {
    const ns = await namespace();
    const deployment = {
      metadata: { name: 'api' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'api:1' }] } } },
    };
    assert.equal((await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment })).status, 201);
    const out = await kubectl('-n', ns, 'get', 'deploy');
    assert.deepEqual(header(out), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.match(out, /^api\s+0\/2\s+0\s+0\s+\d+s$/m);
    const wide = await kubectl('-n', ns, 'get', 'deploy', '-o', 'wide');
    assert.match(wide, /^api\s+0\/2\s+0\s+0\s+\d+s\s+api\s+api:1\s+app=api$/m);
  });

  test('get cm', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'settings', { a: '1', b: '2' });
    const out = await kubectl('-n', ns, 'get', 'cm');
    assert.deepEqual(header(out), ['NAME', 'DATA', 'AGE']);
    assert.match(out, /^settings\s+2\s+\d+s$/m);
  });
  test('get -w: the list, then a row per event without headers; --output-watch-events names the events', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'one');
    const watch = (...extra: string[]) => {
      const child = spawn(kubectlBin, ['--kubeconfig', server.kubeconfigPath, '-n', ns, 'get', 'cm', '-w', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
      const out = { text: '' };
      child.stdout.on('data', (d) => (out.text += d));
      return { out, stop: () => child.kill() };
    };
    const plain = watch();
    try {
      await eventually(() => assert.match(plain.out.text, /^one\s+1\s+\d+s\n/m));
      await createConfigMap(ns, 'two', { a: '1', b: '2' });
      await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/one`);
      await eventually(() => assert.equal(plain.out.text.split('\n').length, 5, plain.out.text));
    } finally {
      plain.stop();
    }
    const lines = plain.out.text.trimEnd().split('\n').map((l) => l.split(/\s+/).slice(0, 2));
    assert.deepEqual(lines, [['NAME', 'DATA'], ['one', '1'], ['two', '2'], ['one', '1']]);

    const events = watch('--output-watch-events');
    try {
      await eventually(() => assert.match(events.out.text, /^ADDED\s+two\s+2\s/m));
      await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/two`, { body: { metadata: { labels: { x: 'y' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
      await eventually(() => assert.match(events.out.text, /^MODIFIED\s+two\s+2\s/m));
    } finally {
      events.stop();
    }
    assert.deepEqual(events.out.text.split('\n')[0]!.trim().split(/\s+/), ['EVENT', 'NAME', 'DATA', 'AGE']);
  });
});
