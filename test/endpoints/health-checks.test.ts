// The checks a real server lists on /healthz, /livez and /readyz: upstream's own, the
// post-start hooks Plinth shares with kube-apiserver (in upstream's order), and checks that
// fail while their step has not finished.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { GatedBackend } from '../helpers/gated-backend.ts';
import { startServer } from '../helpers/server.ts';

// kube-apiserver v1.36's hooks, in its order, that Plinth has a step for.
const hooks = [
  'generic-apiserver-start-informers',
  'priority-and-fairness-config-consumer',
  'start-apiextensions-informers',
  'crd-informer-synced',
  'start-system-namespaces-controller',
  'start-cluster-authentication-info-controller',
  'start-kube-apiserver-identity-lease-controller',
  'start-kube-apiserver-identity-lease-garbage-collector',
  'start-legacy-token-tracking-controller',
  'start-service-ip-repair-controllers',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'priority-and-fairness-config-producer',
  'bootstrap-controller',
  'start-kubernetes-service-cidr-controller',
  'start-kube-aggregator-informers',
  'apiservice-registration-controller',
  'kube-apiserver-autoregistration',
].map((hook) => `[+]poststarthook/${hook} ok`);

const lines = (...checks: string[]) => `${checks.join('\n')}\n`;

test('?verbose lists the checks of each endpoint, the post-start hooks on all three', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const ready = await eventually(async () => {
    const res = await server.request('GET', '/readyz?verbose');
    assert.equal(res.status, 200, res.text);
    return res;
  });
  // Upstream's order: etcd-readiness after etcd, informer-sync before the post-start hooks, shutdown last.
  assert.equal(ready.text, lines('[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok', ...hooks, '[+]shutdown ok', 'readyz check passed'));
  for (const endpoint of ['healthz', 'livez']) {
    const res = await server.request('GET', `/${endpoint}?verbose`);
    assert.equal(res.status, 200);
    assert.equal(res.text, lines('[+]ping ok', '[+]log ok', '[+]etcd ok', ...hooks, `${endpoint} check passed`));
  }
});

test('a post-start hook has its own path, under each endpoint', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  for (const endpoint of ['healthz', 'livez', 'readyz']) {
    const res = await server.request('GET', `/${endpoint}/poststarthook/rbac/bootstrap-roles`);
    assert.deepEqual([res.status, res.text], [200, 'ok']);
  }
  const excluded = await server.request('GET', '/readyz?verbose&exclude=poststarthook/bootstrap-controller');
  assert.match(excluded.text, /\n\[\+\]poststarthook\/bootstrap-controller excluded: ok\n/);
});

test('without priority and fairness its config consumer is not a check', async (t) => {
  const server = await startServer({ enablePriorityAndFairness: false });
  t.after(() => server.stop());
  const res = await server.request('GET', '/healthz?verbose');
  assert.doesNotMatch(res.text, /priority-and-fairness-config-consumer/);
  assert.match(res.text, /\[\+\]poststarthook\/priority-and-fairness-config-producer ok/);
  assert.equal((await server.request('GET', '/healthz/poststarthook/priority-and-fairness-config-consumer')).status, 404);
});

test('the aggregator\'s hooks fail, on all three endpoints, until its informers have listed the APIServices', async (t) => {
  const apiServices = '/registry/apiregistration.k8s.io/apiservices/';
  const backend = new GatedBackend();
  backend.hold(apiServices);
  // Released before the server stops on a failure too: stopping waits for the aggregator's start.
  t.after(() => backend.release(apiServices));
  const server = await startServer({}, { backend }, { awaitStarted: false });
  t.after(() => server.stop());

  for (const endpoint of ['healthz', 'livez', 'readyz']) {
    const res = await server.request('GET', `/${endpoint}`);
    assert.equal(res.status, 500);
    assert.match(res.text, /\n\[-\]poststarthook\/start-kube-aggregator-informers failed: reason withheld\n\[-\]poststarthook\/apiservice-registration-controller failed: reason withheld\n/);
    assert.match(res.text, new RegExp(`\\n${endpoint} check failed\\n$`));
  }
  const own = await server.request('GET', '/readyz/poststarthook/start-kube-aggregator-informers');
  assert.deepEqual([own.status, own.text], [500, 'internal server error: not finished\n']);
  const excluded = await server.request('GET', '/readyz?exclude=poststarthook/start-kube-aggregator-informers&exclude=poststarthook/apiservice-registration-controller');
  assert.deepEqual([excluded.status, excluded.text], [200, 'ok']);

  backend.release(apiServices);
  await eventually(async () => assert.equal((await server.request('GET', '/readyz')).status, 200));
});

test('the shutdown check\'s own path gives upstream\'s reason while the shutdown delay runs', async (t) => {
  const server = await startServer({ shutdownDelayMs: 1000 });
  t.after(() => server.stop());
  const closing = server.close();
  const res = await server.request('GET', '/readyz/shutdown');
  assert.deepEqual([res.status, res.text], [500, 'internal server error: process is shutting down\n']);
  await closing;
});
