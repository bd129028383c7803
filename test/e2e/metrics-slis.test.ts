// /metrics/slis: the health checks' SLI metrics as kube-apiserver v1.36 serves them
// (component-base's slis package): each check /healthz, /livez and /readyz run sets
// kubernetes_healthcheck{name,type} and counts kubernetes_healthchecks_total{name,status,type};
// DELETE resets them; the endpoint, like /metrics, answers any other method with the metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { GatedBackend } from '../helpers/gated-backend.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const tokens = { admin: 'admin-token', dana: 'dana-token' };

function tokenFile(): string {
  const file = path.join(tempDir('plinth-slis-'), 'tokens.csv');
  writeFileSync(file, [`${tokens.admin},admin,admin,"system:masters"`, `${tokens.dana},dana,dana-uid`].join('\n'));
  return file;
}

describe('/metrics/slis', () => {
  let server: TestServer;
  before(async () => void (server = await startServer({ tokenAuthFile: tokenFile() })));
  after(() => server?.stop());
  const scrape = async (pathname = '/metrics/slis') => {
    const res = await server.request('GET', pathname, { token: tokens.admin });
    assert.equal(res.status, 200, res.text);
    return res;
  };
  const probe = async (target: string) => assert.equal((await server.request('GET', target, { token: tokens.admin })).status, 200, target);
  const total = (text: string, name: string, type: string, status = 'success') => sample(text, 'kubernetes_healthchecks_total', { name, type, status });

  test('each check an endpoint runs is recorded under the endpoint\'s name, with upstream\'s names, help and labels', async () => {
    const before = (await scrape()).text;
    await probe('/healthz');
    await probe('/livez?verbose');
    await probe('/readyz?exclude=etcd');
    const res = await scrape();
    const text = res.text;
    assert.equal(res.headers['content-type'], (await scrape('/metrics')).headers['content-type']);
    assert.match(text, /^# HELP kubernetes_healthcheck \[STABLE\] This metric records the result of a single healthcheck\.\n# TYPE kubernetes_healthcheck gauge\n/m);
    assert.match(text, /^# HELP kubernetes_healthchecks_total \[STABLE\] This metric records the results of all healthcheck\.\n# TYPE kubernetes_healthchecks_total counter\n/m);
    // Labels written sorted by name, as Prometheus' Go client writes them.
    assert.match(text, /^kubernetes_healthcheck\{name="ping",type="healthz"\} 1$/m);
    assert.match(text, /^kubernetes_healthchecks_total\{name="ping",status="success",type="livez"\} \d+$/m);
    for (const type of ['healthz', 'livez', 'readyz']) {
      assert.equal(total(text, 'ping', type) - total(before, 'ping', type), 1, type);
      assert.equal(sample(text, 'kubernetes_healthcheck', { name: 'log', type }), 1, type);
    }
    assert.equal(total(text, 'etcd-readiness', 'readyz') - total(before, 'etcd-readiness', 'readyz'), 1);
    // An excluded check is not run, so not recorded.
    assert.equal(total(text, 'etcd', 'readyz') - total(before, 'etcd', 'readyz'), 0);
    assert.equal(total(text, 'etcd', 'healthz') - total(before, 'etcd', 'healthz'), 1);
    // A registry of its own: none of it in /metrics.
    assert.doesNotMatch((await scrape('/metrics')).text, /kubernetes_healthcheck/);
  });

  test('a check\'s own path records nothing', async () => {
    const before = (await scrape()).text;
    await probe('/healthz/ping');
    await probe('/readyz/etcd');
    const text = (await scrape()).text;
    assert.equal(total(text, 'ping', 'healthz'), total(before, 'ping', 'healthz'));
    assert.equal(total(text, 'etcd', 'readyz'), total(before, 'etcd', 'readyz'));
  });

  test('DELETE resets them: "metrics reset", then every series is gone until a check runs again', async () => {
    await probe('/healthz');
    const reset = await server.request('DELETE', '/metrics/slis', { token: tokens.admin });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.text, 'metrics reset\n');
    assert.equal(reset.headers['content-type'], 'text/plain; charset=utf-8');
    const emptied = (await scrape()).text;
    assert.doesNotMatch(emptied, /^kubernetes_healthchecks?(_total)?\{/m);
    await probe('/livez');
    const text = (await scrape()).text;
    assert.equal(total(text, 'ping', 'livez'), 1);
    assert.equal(sample(text, 'kubernetes_healthcheck', { name: 'ping', type: 'livez' }), 1);
    assert.doesNotMatch(text, /type="healthz"/);
  });

  test('other methods answer the metrics, on /metrics too, as upstream\'s promhttp handlers', async () => {
    for (const target of ['/metrics/slis', '/metrics']) {
      for (const method of ['POST', 'PUT', 'PATCH']) {
        const res = await server.request(method, target, { token: tokens.admin, body: {} });
        assert.equal(res.status, 200, `${method} ${target}: ${res.text}`);
        assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/, `${method} ${target}`);
      }
    }
    const head = await server.request('HEAD', '/metrics/slis', { token: tokens.admin });
    assert.deepEqual([head.status, head.text], [200, '']);
  });

  test('paths under it are served by nothing', async () => {
    for (const target of ['/metrics/slis/', '/metrics/slis/x', '/metrics/', '/metrics/nope']) {
      const res = await server.request('GET', target, { token: tokens.admin });
      assert.deepEqual([res.status, res.text], [404, '404 page not found\n'], target);
    }
  });

  test('reading needs the nonResourceURL /metrics/slis, which system:monitoring grants; resetting needs delete', async () => {
    assert.equal((await server.request('GET', '/metrics/slis', { token: tokens.dana })).status, 403);
    const binding = await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      token: tokens.admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'dana-monitoring' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:monitoring' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dana' }],
      },
    });
    assert.equal(binding.status, 201, binding.text);
    await eventually(async () => assert.equal((await server.request('GET', '/metrics/slis', { token: tokens.dana })).status, 200));
    assert.equal((await server.request('DELETE', '/metrics/slis', { token: tokens.dana })).status, 403);
  });
});

test('a failing check sets its gauge to 0 and counts an error, until it passes again', async (t) => {
  const apiServices = '/registry/apiregistration.k8s.io/apiservices/';
  const backend = new GatedBackend();
  backend.hold(apiServices);
  // Released before the server stops on a failure too: stopping waits for the aggregator's start.
  t.after(() => backend.release(apiServices));
  const server = await startServer({}, { backend }, { awaitStarted: false });
  t.after(() => server.stop());
  const check = 'poststarthook/start-kube-aggregator-informers';

  assert.equal((await server.request('GET', '/readyz')).status, 500);
  const failed = (await server.request('GET', '/metrics/slis')).text;
  assert.match(failed, new RegExp(`^kubernetes_healthcheck\\{name="${check}",type="readyz"\\} 0$`, 'm'));
  assert.match(failed, new RegExp(`^kubernetes_healthchecks_total\\{name="${check}",status="error",type="readyz"\\} 1$`, 'm'));
  assert.equal(sample(failed, 'kubernetes_healthchecks_total', { name: check, status: 'success', type: 'readyz' }), 0);

  backend.release(apiServices);
  await eventually(async () => assert.equal((await server.request('GET', '/readyz')).status, 200));
  // The probes while it waited count too.
  const passed = (await server.request('GET', '/metrics/slis')).text;
  assert.equal(sample(passed, 'kubernetes_healthcheck', { name: check, type: 'readyz' }), 1);
  assert.ok(sample(passed, 'kubernetes_healthchecks_total', { name: check, status: 'error', type: 'readyz' }) >= 1);
  assert.ok(sample(passed, 'kubernetes_healthchecks_total', { name: check, status: 'success', type: 'readyz' }) >= 1);
});

test('DELETE /metrics resets the registry as upstream\'s MetricsWithReset: a labelled series is gone until recorded again, Node\'s own metrics stay', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const list = '/api/v1/namespaces/default/configmaps';
  const listed = (text: string) => text.split('\n').filter((line) => /^apiserver_request_(total|duration_seconds_count)\{/.test(line) && line.includes('resource="configmaps"') && line.includes('verb="LIST"'));
  assert.equal((await server.request('GET', list)).status, 200);
  assert.equal(listed((await server.request('GET', '/metrics')).text).length, 2);

  const reset = await server.request('DELETE', '/metrics');
  assert.equal(reset.status, 200, reset.text);
  assert.equal(reset.text, 'metrics reset\n');
  assert.equal(reset.headers['content-type'], 'text/plain; charset=utf-8');
  const after = (await server.request('GET', '/metrics')).text;
  assert.deepEqual(listed(after), []);
  assert.match(after, /^process_cpu_user_seconds_total /m);

  assert.equal((await server.request('GET', list)).status, 200);
  const again = (await server.request('GET', '/metrics')).text;
  assert.equal(sample(again, 'apiserver_request_duration_seconds_count', { resource: 'configmaps', verb: 'LIST' }), 1);
  assert.equal(sample(again, 'apiserver_request_total', { resource: 'configmaps', verb: 'LIST', code: '200' }), 1);
});
