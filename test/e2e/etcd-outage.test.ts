// A server on etcd while its etcd member is down and after it returns: requests that
// need etcd answer as kube-apiserver's registry does when storage is unreachable
// (500 ServerTimeout, Retry-After: 2), /readyz fails its etcd check, nothing crashes,
// and once the member is back the server writes, reads and serves lists from its
// watch cache again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../helpers/etcd.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

async function eventually<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a server whose etcd goes down and comes back', { skip: etcdUnavailable() }, () => {
  let etcd: TestEtcd;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcd();
    server = await startServer({ storage: 'etcd', etcdServers: [etcd.url], etcdPrefix: '/outage/registry' });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('etcd down: 500 ServerTimeout with Retry-After 2 and a failing /readyz; etcd back: writes, reads and cached lists work again', async () => {
    const ns = await server.newNamespace('outage');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await server.request('POST', base, { body: { metadata: { name: 'before' } } });
    assert.equal(created.status, 201, created.text);

    await etcd.kill();

    const cases: Array<{ method: string; path: string; operation: string; resource?: string; body?: unknown }> = [
      { method: 'GET', path: `${base}/before`, operation: 'get' },
      { method: 'GET', path: base, operation: 'list' },
      // NamespaceLifecycle reads the namespace from etcd before the create (upstream's reads its informer first).
      { method: 'POST', path: base, operation: 'get', resource: 'namespaces', body: { metadata: { name: 'during' } } },
      { method: 'PUT', path: `${base}/before`, operation: 'update', body: { metadata: { name: 'before' }, data: { a: '1' } } },
      { method: 'DELETE', path: `${base}/before`, operation: 'delete' },
    ];
    for (const { method, path, operation, resource = 'configmaps', body } of cases) {
      const res = await server.request(method, path, body === undefined ? {} : { body });
      assert.equal(res.status, 500, `${method} ${path}: ${res.text}`);
      assert.equal(res.headers['retry-after'], '2', `${method} ${path}`);
      assert.deepEqual(
        { reason: res.json.reason, message: res.json.message, details: res.json.details },
        {
          reason: 'ServerTimeout',
          message: `The ${operation} operation against ${resource} could not be completed at this time, please try again.`,
          details: { name: operation, kind: resource, retryAfterSeconds: 2 },
        },
        `${method} ${path}`,
      );
    }

    // Lists at resourceVersion 0 are the watch cache's, which needs no etcd.
    const cached = await server.request('GET', `${base}?resourceVersion=0`);
    assert.equal(cached.status, 200, cached.text);
    assert.deepEqual(cached.json.items.map((item: any) => item.metadata.name), ['before']);

    const started = Date.now();
    const readyz = await server.request('GET', '/readyz?verbose');
    assert.equal(readyz.status, 500, readyz.text);
    assert.match(readyz.text, /\[-\]etcd failed/);
    assert.match(readyz.text, /\[-\]etcd-readiness failed/);
    assert.ok(Date.now() - started < 5000, `/readyz took ${Date.now() - started} ms`);

    await etcd.restart();

    await eventually('/readyz passing', async () => ((await server.request('GET', '/readyz')).status === 200 ? true : undefined));
    const later = await eventually('a create', async () => {
      const res = await server.request('POST', base, { body: { metadata: { name: 'after' } } });
      return res.status === 201 ? res : undefined;
    });
    const got = await server.request('GET', `${base}/after`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.metadata.resourceVersion, later.json.metadata.resourceVersion);
    // The watch cache watches etcd again: its list (resourceVersion 0) hears of the new object.
    await eventually('the cached list showing "after"', async () => {
      const res = await server.request('GET', `${base}?resourceVersion=0`);
      const names = res.json.items.map((item: any) => item.metadata.name);
      return names.includes('after') ? names : undefined;
    });
  });
});
