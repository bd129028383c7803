// Anonymous clients reach exactly the paths of upstream's system:public-info-viewer role.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

test('/healthz, /livez, /readyz, /version and /version/ answer anonymous clients, with or without ?verbose', async () => {
  for (const path of ['/healthz', '/livez', '/readyz', '/readyz?verbose', '/healthz?verbose', '/version', '/version/']) {
    const res = await server.request('GET', path, { anonymous: true });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
  }
});

test('named health checks and other paths are not public-info-viewer\'s: 403 anonymous (system:anonymous), 200 with the admin token', async () => {
  for (const path of ['/readyz/etcd', '/livez/ping', '/healthz/ping', '/readyz/shutdown', '/readyz/ping?verbose']) {
    const anonymous = await server.request('GET', path, { anonymous: true });
    assert.equal(anonymous.status, 403, `${path} anonymous: ${anonymous.text}`);
    assert.equal(anonymous.json?.reason, 'Forbidden');
    const admin = await server.request('GET', path);
    assert.equal(admin.status, 200, `${path} as admin: ${admin.text}`);
  }
  for (const path of ['/healthz/', '/readyz/', '/api', '/openapi/v3']) {
    assert.equal((await server.request('GET', path, { anonymous: true })).status, 403, path);
  }
});

test('/readyz checks the storage\'s readiness (etcd-readiness) besides its health (etcd); /livez its health alone', async () => {
  const ready = await server.request('GET', '/readyz?verbose');
  // The post-start hooks' checks aside (test/endpoints/health-checks.test.ts).
  const checks = (text: string) => text.split('\n').filter((line) => line.startsWith('[') && !line.includes('poststarthook/'));
  assert.deepEqual(checks(ready.text), ['[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok', '[+]shutdown ok']);
  const live = await server.request('GET', '/livez?verbose');
  assert.deepEqual(checks(live.text), ['[+]ping ok', '[+]log ok', '[+]etcd ok']);
});
