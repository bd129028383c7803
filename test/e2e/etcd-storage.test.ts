// A Plinth server on etcd (--storage etcd --etcd-servers, --etcd-prefix): ConfigMaps
// created, read, listed and watched through the API land in a real etcd member under
// upstream's key layout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../helpers/etcd.ts';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';

describe('a server on etcd storage', { skip: etcdUnavailable() }, () => {
  let etcd: TestEtcd;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd();
    server = await startServer({ storage: 'etcd', etcdServers: [etcd.url], etcdPrefix: '/smoke/registry' });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('ConfigMaps: create, get, list and watch go through etcd, under <prefix>/configmaps/<namespace>/<name>', async () => {
    const ns = await server.newNamespace('etcd');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await server.request('POST', base, { body: { metadata: { name: 'one' }, data: { a: '1' } } });
    assert.equal(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion;

    const got = await server.request('GET', `${base}/one`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual([got.json.data, got.json.metadata.resourceVersion], [{ a: '1' }, rv]);

    const listed = await server.request('GET', base);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.json.items.map((item: any) => item.metadata.name), ['one']);

    const stream = await openStream(server, `${base}?watch=true&resourceVersion=${rv}`);
    try {
      const updated = await server.request('PUT', `${base}/one`, { body: { ...got.json, data: { a: '2' } } });
      assert.equal(updated.status, 200, updated.text);
      const event = await stream.next();
      assert.deepEqual([event?.type, event?.object.metadata.name, event?.object.data], ['MODIFIED', 'one', { a: '2' }]);
    } finally {
      stream.close();
    }

    // What etcdctl get --prefix would show: the object under upstream's layout, with its revision as resourceVersion.
    const client = new Etcd3({ hosts: etcd.url });
    try {
      const kv = (await client.kv.range({ key: Buffer.from(`/smoke/registry/configmaps/${ns}/one`) })).kvs[0];
      assert.ok(kv, 'the ConfigMap is in etcd');
      assert.equal(JSON.parse(kv.value.toString()).data.a, '2');
    } finally {
      client.close();
    }
  });

  test('an object too large for etcd is a plain 500 in etcd\'s words, not a retryable timeout, and nothing is stored', async () => {
    // A custom resource: built-in types with values this large refuse them in validation first.
    const group = 'big.example.com';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `blobs.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'blobs', singular: 'blob', kind: 'Blob' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const ns = await server.newNamespace('etcd');
    const base = `/apis/${group}/v1/namespaces/${ns}/blobs`;
    await eventually(async () => assert.equal((await server.request('GET', base)).status, 200), { what: 'blobs to be served' });
    // Under the 3 MiB body limit, past etcd's 1.5 MiB request limit.
    const res = await server.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Blob', metadata: { name: 'big' }, data: 'x'.repeat(1_700_000) } });
    assert.equal(res.status, 500, res.text);
    assert.equal(res.json.message, 'etcdserver: request is too large');
    assert.equal(res.json.reason, undefined);
    assert.equal(res.headers['retry-after'], undefined);
    assert.equal((await server.request('GET', `${base}/big`)).status, 404);
  });

  test('consistent reads go to etcd (Debian\'s 3.4.23 has no reliable progress notifications): a write another replica made is seen at once', async () => {
    const ns = await server.newNamespace('etcd');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const template = (await server.request('POST', base, { body: { metadata: { name: 'seed' } } })).json;
    // Another writer (as another replica would) puts an object straight into etcd.
    const client = new Etcd3({ hosts: etcd.url });
    try {
      for (let i = 0; i < 20; i++) {
        const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...template.metadata, name: `direct-${i}`, uid: `u-${i}`, resourceVersion: undefined } };
        await client.kv.put({ key: Buffer.from(`/smoke/registry/configmaps/${ns}/direct-${i}`), value: Buffer.from(JSON.stringify(object)) });
        const got = await server.request('GET', `${base}/direct-${i}`);
        assert.equal(got.status, 200, `get right after the write ${i}: ${got.text}`);
        const listed = await server.request('GET', base);
        assert.ok(listed.json.items.some((item: any) => item.metadata.name === `direct-${i}`), `list right after the write ${i}`);
      }
    } finally {
      client.close();
    }
  });
});
