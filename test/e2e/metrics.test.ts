// /metrics: Prometheus text with kube-apiserver's names and labels, counts that move with
// the requests made, the embedded storage's syncs, RBAC on the nonResourceURL; the in-flight limits answering 429 past
// --max-mutating-requests-inflight, watches and system:masters exempt; and /metrics from
// the start-up bundle that `npm start` runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freshManifest } from '../../src/cli/bundle-manifest.ts';
import { eventually } from '../helpers/eventually.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, startServerProcess, tempDir, type TestServer } from '../helpers/server.ts';
import { allow, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

const tokens = { admin: 'admin-token', carol: 'carol-token' };

function tokenFile(): string {
  const file = path.join(tempDir('plinth-metrics-'), 'tokens.csv');
  writeFileSync(file, [`${tokens.admin},admin,admin,"system:masters"`, `${tokens.carol},carol,carol-uid`].join('\n'));
  return file;
}

describe('/metrics', () => {
  let server: TestServer;
  before(async () => void (server = await startServer({ tokenAuthFile: tokenFile() })));
  after(() => server?.stop());
  const scrape = async () => {
    const res = await server.request('GET', '/metrics', { token: tokens.admin });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
    return res.text;
  };

  test('request counts and durations move with the requests made, with upstream\'s labels', async () => {
    const ns = await server.newNamespace('metrics');
    const labels = { verb: 'POST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '201', dry_run: '' };
    const before = await scrape();
    for (let i = 0; i < 3; i++) assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `m${i}` } }, token: tokens.admin })).status, 201);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`, { token: tokens.admin })).status, 404);
    assert.equal((await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/m0?fieldManager=t`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm0' }, data: { a: 'b' } }), headers: { 'content-type': 'application/apply-patch+yaml' }, token: tokens.admin,
    })).status, 200);
    const after = await scrape();
    assert.equal(sample(after, 'apiserver_request_total', labels) - sample(before, 'apiserver_request_total', labels), 3);
    assert.equal(sample(after, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', scope: 'resource', code: '404' }) - sample(before, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', scope: 'resource', code: '404' }), 1);
    assert.equal(sample(after, 'apiserver_request_total', { verb: 'APPLY', resource: 'configmaps', code: '200' }), 1);
    const durationLabels = { verb: 'POST', resource: 'configmaps', scope: 'namespace' };
    assert.equal(sample(after, 'apiserver_request_duration_seconds_count', durationLabels) - sample(before, 'apiserver_request_duration_seconds_count', durationLabels), 3);
    assert.equal(sample(after, 'apiserver_request_duration_seconds_bucket', { ...durationLabels, le: '60' }), sample(after, 'apiserver_request_duration_seconds_count', durationLabels));
    // Storage calls are timed whatever the backend; objects are counted from the caches.
    assert.ok(sample(after, 'etcd_request_duration_seconds_count', { operation: 'create', resource: 'configmaps' }) >= 3);
    assert.ok(sample(after, 'apiserver_storage_objects', { resource: 'configmaps' }) >= 3);
    assert.ok(sample(after, 'process_resident_memory_bytes') > 0);
    // The in-flight filter's counts: the last whole second's most (0 or 1 here, as the writes went one at a time), and over time.
    assert.ok([0, 1].includes(sample(after, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })));
    assert.ok([0, 1].includes(sample(after, 'apiserver_current_inqueue_requests', { request_kind: 'readOnly' })));
    const executingWrites = { phase: 'executing', request_kind: 'mutating' };
    assert.ok(sample(after, 'apiserver_flowcontrol_read_vs_write_current_requests_sum', executingWrites) > sample(before, 'apiserver_flowcontrol_read_vs_write_current_requests_sum', executingWrites), 'the writes executed for a while');
    assert.ok(sample(after, 'apiserver_flowcontrol_read_vs_write_current_requests_count', { phase: 'waiting', request_kind: 'readOnly' }) > 0);
  });

  test('a request to a deprecated API sets its apiserver_requested_deprecated_apis series', async () => {
    const before = await scrape();
    assert.equal(sample(before, 'apiserver_requested_deprecated_apis', { resource: 'endpoints' }), 0);
    assert.equal((await server.request('GET', '/api/v1/endpoints', { token: tokens.admin })).status, 200);
    assert.equal((await server.request('GET', '/apis/discovery.k8s.io/v1/endpointslices', { token: tokens.admin })).status, 200);
    const after = await scrape();
    assert.equal(sample(after, 'apiserver_requested_deprecated_apis', { group: '', version: 'v1', resource: 'endpoints', subresource: '', removed_release: '' }), 1);
    assert.equal(sample(after, 'apiserver_requested_deprecated_apis', { resource: 'endpointslices' }), 0);
  });

  test('requests to connect subresources (log, exec, attach, portforward, proxy) are counted as CONNECT, whatever their method, as upstream counts them', async () => {
    const ns = await server.newNamespace('connect-metrics');
    // With a selector: its Endpoints (none ready) are upstream's 503; one without has none, a 404.
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, token: tokens.admin });
    assert.equal(created.status, 201, created.text);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, token: tokens.admin })).status, 201);
    const before = await scrape();
    const proxied = await server.request('GET', `/api/v1/namespaces/${ns}/services/web/proxy/`, { token: tokens.admin });
    assert.equal(proxied.status, 503, proxied.text);
    const logs = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/log`, { token: tokens.admin });
    const exec = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/exec?command=true&stdout=1`, { token: tokens.admin });
    const after = await scrape();
    const counted = (labels: Record<string, string>) => sample(after, 'apiserver_request_total', labels) - sample(before, 'apiserver_request_total', labels);
    assert.equal(counted({ verb: 'CONNECT', resource: 'services', subresource: 'proxy', scope: 'resource', code: '503' }), 1);
    assert.equal(counted({ verb: 'CONNECT', resource: 'pods', subresource: 'log', code: String(logs.status) }), 1);
    assert.equal(counted({ verb: 'CONNECT', resource: 'pods', subresource: 'exec', code: String(exec.status) }), 1);
    // Not as the method's verb: an exec's POST is no write to the SLO rules that count them.
    assert.equal(counted({ verb: 'GET', resource: 'services', subresource: 'proxy' }), 0);
    assert.equal(counted({ verb: 'POST', resource: 'pods', subresource: 'exec' }), 0);
    // Timed too, as upstream times every request, connections and watches included.
    const durations = { verb: 'CONNECT', resource: 'pods', subresource: 'log' };
    assert.equal(sample(after, 'apiserver_request_duration_seconds_count', durations) - sample(before, 'apiserver_request_duration_seconds_count', durations), 1);
  });

  test('on SQLite, each commit\'s sync of the write-ahead log is timed, by where it ran', async (t) => {
    const sqlite = await startServer({ storage: 'sqlite', tokenAuthFile: tokenFile() });
    t.after(() => sqlite.stop());
    const ns = await sqlite.newNamespace('wal');
    for (let i = 0; i < 3; i++) assert.equal((await sqlite.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `w${i}` } } })).status, 201);
    const text = (await sqlite.request('GET', '/metrics', { token: tokens.admin })).text;
    const name = 'plinth_storage_wal_sync_duration_seconds';
    // Each write is answered after its commit's sync: at least one per write made one after the
    // other, on the loop or (a slow disk) the thread pool.
    const count = (where: string) => sample(text, `${name}_count`, { where });
    assert.ok(count('loop') + count('thread_pool') >= 3, text.split('\n').filter((l) => l.startsWith(name)).join('\n'));
    assert.ok(sample(text, `${name}_sum`, { where: 'loop' }) + sample(text, `${name}_sum`, { where: 'thread_pool' }) > 0);
    for (const where of ['loop', 'thread_pool']) assert.equal(sample(text, `${name}_bucket`, { where, le: '+Inf' }), count(where));
    // The memory backend has no log to sync.
    const memory = await scrape();
    assert.equal(sample(memory, `${name}_count`, { where: 'loop' }) + sample(memory, `${name}_count`, { where: 'thread_pool' }), 0);
  });

  test('a watch is a long-running request and a registered watcher; its events are counted', async () => {
    const ns = await server.newNamespace('watched');
    const controller = new AbortController();
    const watch = fetchWatch(server, `/api/v1/namespaces/${ns}/configmaps?watch=1`, controller.signal);
    try {
      await eventually(async () => {
        const text = await scrape();
        assert.equal(sample(text, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps', scope: 'namespace' }), 1);
        assert.ok(sample(text, 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'ConfigMap' }) >= 1);
      });
      const beforeEvents = sample(await scrape(), 'apiserver_watch_events_total', { version: 'v1', kind: 'ConfigMap' });
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'w' } }, token: tokens.admin })).status, 201);
      await eventually(async () => assert.equal(sample(await scrape(), 'apiserver_watch_events_total', { version: 'v1', kind: 'ConfigMap' }) - beforeEvents, 1));
    } finally {
      controller.abort();
      await watch.catch(() => undefined);
    }
    await eventually(async () => assert.equal(sample(await scrape(), 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps', scope: 'namespace' }), 0));
    // Its duration is observed once it ends, as upstream's MonitorRequest observes a watch's.
    await eventually(async () => assert.equal(sample(await scrape(), 'apiserver_request_duration_seconds_count', { verb: 'WATCH', resource: 'configmaps', scope: 'namespace' }), 1));
  });

  test('/metrics needs the nonResourceURL permission (system:monitoring grants it)', async () => {
    assert.equal((await server.request('GET', '/metrics', { token: tokens.carol })).status, 403);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'carol-monitoring' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:monitoring' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
    };
    assert.equal((await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: binding, token: tokens.admin })).status, 201);
    await eventually(async () => assert.equal((await server.request('GET', '/metrics', { token: tokens.carol })).status, 200));
  });
});

/** A watch read until aborted. */
async function fetchWatch(server: TestServer, urlPath: string, signal: AbortSignal): Promise<void> {
  const https = await import('node:https');
  await new Promise<void>((resolve, reject) => {
    const req = https.request(new URL(urlPath, server.url), { headers: { authorization: `Bearer ${tokens.admin}` }, ca: server.caPem, signal }, (res) => {
      res.on('data', () => undefined);
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('in-flight limits', () => {
  let server: TestServer;
  let hooks: WebhookServer;
  let release: () => void = () => undefined;
  before(async () => {
    [server, hooks] = await Promise.all([startServer({ tokenAuthFile: tokenFile(), maxMutatingRequestsInflight: 1, maxRequestsInflight: 0, inflightQueueWaitMs: 300 }), startWebhookServer()]);
  });
  after(async () => {
    release();
    await server?.stop();
    await hooks?.close();
  });

  test('past its priority level\'s seats a request waits its turn, then is upstream\'s 429 with Retry-After; system:masters go on', async () => {
    const ns = await server.newNamespace('limited');
    // carol may write ConfigMaps in the namespace.
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'carol-edit' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }] };
    assert.equal((await server.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, { body: role, token: tokens.admin })).status, 201);
    // A validating webhook holds one write in flight until released.
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    hooks.handle('/hold', async (review) => {
      if (review.request.name === 'held') await holding;
      return allow();
    });
    release = held;
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hold' },
      webhooks: [{
        name: 'hold.example.com', clientConfig: { url: `${hooks.url}/hold`, caBundle: hooks.caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 30,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      }],
    };
    assert.equal((await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: config, token: tokens.admin })).status, 201);
    await eventually(async () => {
      const list = await server.request('GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?resourceVersion=0', { token: tokens.admin });
      assert.ok(list.json.items.some((c: { metadata: { name: string } }) => c.metadata.name === 'hold'));
    });
    const heldWrite = server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'held' } }, token: tokens.carol });
    await eventually(() => assert.equal(hooks.received('/hold').length, 1, 'the held write reached the webhook'));

    // The server's one seat (both flags' sum) is global-default's, which the held write takes:
    // another write waits its turn, and is refused once it waited too long (upstream's plain-text
    // answer, Go's http.Error), still naming its schema and level.
    const refused = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'second' } }, token: tokens.carol });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');
    assert.equal(refused.text, 'Too many requests, please try again later.\n');
    const levels = (await server.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/global-default', { token: tokens.admin })).json;
    assert.equal(refused.headers['x-kubernetes-pf-prioritylevel-uid'], levels.metadata.uid);
    // Reads share the level's seats, as upstream's priority and fairness has them; system:masters always gets an answer.
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: tokens.carol })).status, 429);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'by-admin' } }, token: tokens.admin })).status, 201);

    release();
    assert.equal((await heldWrite).status, 201);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'after' } }, token: tokens.carol })).status, 201, 'the slot is free again');
    // Priority and fairness' own metrics, by upstream's names and labels.
    const text = (await server.request('GET', '/metrics', { token: tokens.admin })).text;
    const global = { flow_schema: 'global-default', priority_level: 'global-default' };
    assert.equal(sample(text, 'apiserver_flowcontrol_rejected_requests_total', { ...global, reason: 'time-out' }), 2);
    // Both refusals are requests ended in self-defense (upstream's RecordRequestTermination and RecordDroppedRequest).
    const terminated = { group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '429' };
    assert.equal(sample(text, 'apiserver_request_terminations_total', { ...terminated, verb: 'POST' }), 1);
    assert.equal(sample(text, 'apiserver_request_terminations_total', { ...terminated, verb: 'LIST' }), 1);
    assert.equal(sample(text, 'apiserver_dropped_requests_total', { request_kind: 'mutating' }), 1);
    assert.equal(sample(text, 'apiserver_dropped_requests_total', { request_kind: 'readOnly' }), 1);
    // carol's held write and the one after it.
    assert.equal(sample(text, 'apiserver_flowcontrol_dispatched_requests_total', global), 2);
    assert.ok(sample(text, 'apiserver_flowcontrol_dispatched_requests_total', { flow_schema: 'exempt', priority_level: 'exempt' }) >= 2);
    assert.equal(sample(text, 'apiserver_flowcontrol_current_inqueue_requests', global), 0);
    // The scrape itself is the admin's (exempt): nobody of global-default runs now.
    assert.equal(sample(text, 'apiserver_flowcontrol_current_executing_requests', global), 0);
    // One seat for the server (--max-mutating-requests-inflight=1, --max-requests-inflight=0): each Limited level's share rounds up to one.
    assert.equal(sample(text, 'apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'global-default' }), 1);
    assert.equal(sample(text, 'apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'exempt' }), 0);
    // What it may lend (50% of one seat, rounded) and borrow (as many as the server has), and what it has now.
    assert.equal(sample(text, 'apiserver_flowcontrol_lower_limit_seats', { priority_level: 'global-default' }), 0);
    assert.equal(sample(text, 'apiserver_flowcontrol_upper_limit_seats', { priority_level: 'global-default' }), 2);
    assert.equal(sample(text, 'apiserver_flowcontrol_lower_limit_seats', { priority_level: 'catch-all' }), 1);
    for (const name of ['current_limit_seats', 'demand_seats_high_watermark', 'demand_seats_average', 'demand_seats_stdev', 'demand_seats_smoothed', 'target_seats']) {
      assert.ok(Number.isFinite(sample(text, `apiserver_flowcontrol_${name}`, { priority_level: 'global-default' })), name);
    }
    assert.match(text, /^apiserver_flowcontrol_seat_fair_frac \d/m);
    // The levels' virtual clocks (seat-seconds; still at 0 here, where a level with its one seat lent away serves a
    // request at a time, and always for the exempt level, without queues); global-default dispatched from its queues.
    assert.match(text, /^apiserver_flowcontrol_current_r\{priority_level="catch-all"\} 0$/m);
    for (const name of ['dispatch_r', 'latest_s']) assert.match(text, new RegExp(`^apiserver_flowcontrol_${name}\\{priority_level="global-default"\\} `, 'm'), name);
    for (const name of ['next_s_bounds', 'next_discounted_s_bounds']) {
      for (const bound of ['min', 'max']) assert.match(text, new RegExp(`^apiserver_flowcontrol_${name}\\{priority_level="global-default",bound="${bound}"\\} `, 'm'), `${name} ${bound}`);
    }
    const dispatchR = sample(text, 'apiserver_flowcontrol_dispatch_r', { priority_level: 'global-default' });
    assert.ok(dispatchR >= 0 && dispatchR <= sample(text, 'apiserver_flowcontrol_current_r', { priority_level: 'global-default' }));
    const latestS = sample(text, 'apiserver_flowcontrol_latest_s', { priority_level: 'global-default' });
    assert.ok(latestS >= sample(text, 'apiserver_flowcontrol_next_s_bounds', { priority_level: 'global-default', bound: 'min' }));
    assert.ok(latestS <= sample(text, 'apiserver_flowcontrol_next_s_bounds', { priority_level: 'global-default', bound: 'max' }));
    assert.ok(Number.isFinite(sample(text, 'apiserver_flowcontrol_next_discounted_s_bounds', { priority_level: 'global-default', bound: 'min' })));
    assert.match(text, /^apiserver_flowcontrol_current_r\{priority_level="exempt"\} 0$/m);
    // Utilization over time (nanoseconds at each ratio): every level's, since the server started.
    const utilized = sample(text, 'apiserver_flowcontrol_priority_level_seat_utilization_count', { phase: 'executing', priority_level: 'global-default' });
    assert.ok(utilized > 1e6, String(utilized));
    assert.equal(sample(text, 'apiserver_flowcontrol_priority_level_seat_utilization_bucket', { phase: 'executing', priority_level: 'global-default', le: '+Inf' }), utilized);
    for (const phase of ['waiting', 'executing']) {
      assert.ok(sample(text, 'apiserver_flowcontrol_priority_level_request_utilization_count', { phase, priority_level: 'global-default' }) > 0, phase);
    }
    // carol's write waited: some of global-default's time its queues were not empty.
    const waitedAtNone = sample(text, 'apiserver_flowcontrol_priority_level_request_utilization_bucket', { phase: 'waiting', priority_level: 'global-default', le: '0' });
    assert.ok(waitedAtNone < sample(text, 'apiserver_flowcontrol_priority_level_request_utilization_count', { phase: 'waiting', priority_level: 'global-default' }));
    // So a write waited, counted among all writes (upstream's read_vs_write_current_requests: with priority and fairness a count, not a fraction).
    const writesWaiting = { phase: 'waiting', request_kind: 'mutating' };
    assert.ok(sample(text, 'apiserver_flowcontrol_read_vs_write_current_requests_bucket', { ...writesWaiting, le: '0' }) < sample(text, 'apiserver_flowcontrol_read_vs_write_current_requests_count', writesWaiting));
    assert.ok(sample(text, 'apiserver_flowcontrol_read_vs_write_current_requests_sum', writesWaiting) > 1e6, 'a write waited over a millisecond');
    assert.ok(sample(text, 'apiserver_flowcontrol_demand_seats_count', { priority_level: 'exempt' }) > 0);
  });
});

describe('/metrics from the start-up bundle', () => {
  test('npm start\'s bundle loads prom-client on the first scrape and answers the metrics', async () => {
    // The test process bundles before the tests (pretest); main.cjs runs the bundle while it is fresh.
    assert.ok(freshManifest() !== undefined, 'the start-up bundle is not fresh: run `node tools/bundle.ts` first');
    const proc = await startServerProcess(['--storage', 'memory']);
    try {
      const { stdout } = await promisify(execFile)('kubectl', ['--kubeconfig', proc.kubeconfigPath, 'get', '--raw', '/metrics'], { timeout: 30_000 });
      assert.match(stdout, /^apiserver_request_total\{/m);
      assert.match(stdout, /^process_resident_memory_bytes /m);
    } finally {
      await proc.stop();
    }
  });
});
