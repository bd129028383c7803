// API Priority and Fairness' configuration and classification as a client sees them: the
// mandatory and suggested objects a server makes, and the headers that name the FlowSchema
// and priority level each request was classified into (upstream's X-Kubernetes-PF-*).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { heldCreate } from '../helpers/held-request.ts';
import { sample } from '../helpers/metrics.ts';
import { openStream, startServer, tempDir, type TestServer } from '../helpers/server.ts';

const base = '/apis/flowcontrol.apiserver.k8s.io/v1';

function tokenFile(): string {
  const file = path.join(tempDir('plinth-apf-'), 'tokens.csv');
  writeFileSync(file, ['admin-token,admin,admin,"system:masters"', 'alice-token,alice,alice-uid,""', 'ctl-token,system:serviceaccount:kube-system:ctl,ctl-uid,"system:serviceaccounts"'].join('\n'));
  return file;
}

type Schema = { metadata: { managedFields?: Array<{ manager: string; operation: string; subresource?: string }> }; status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } };

/** The schema's Dangling condition once it is `status` (the controller writes it after the change). */
async function dangling(server: TestServer, name: string, status: string): Promise<Schema> {
  for (let i = 0; ; i++) {
    const schema = (await server.request('GET', `${base}/flowschemas/${name}`, { token: 'admin-token' })).json as Schema;
    if (schema.status?.conditions?.find((c) => c.type === 'Dangling')?.status === status || i === 250) return schema;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function uids(server: TestServer, resource: string): Promise<Map<string, string>> {
  const list = await server.request('GET', `${base}/${resource}`, { token: 'admin-token' });
  assert.equal(list.status, 200);
  return new Map((list.json as { items: Array<{ metadata: { name: string; uid: string } }> }).items.map((o) => [o.metadata.name, o.metadata.uid]));
}

function classifiedAs(res: { headers: Record<string, string | string[] | undefined> }): [schema: unknown, level: unknown] {
  return [res.headers['x-kubernetes-pf-flowschema-uid'], res.headers['x-kubernetes-pf-prioritylevel-uid']];
}

test('a server makes the mandatory and suggested configuration, and names each request\'s schema and level in its answer', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'] });
  t.after(() => server.stop());
  const schemas = await uids(server, 'flowschemas');
  const levels = await uids(server, 'prioritylevelconfigurations');
  assert.deepEqual([...schemas.keys()].sort(), [
    'catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts',
    'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election',
  ]);
  assert.deepEqual([...levels.keys()].sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
  const probes = await server.request('GET', `${base}/flowschemas/probes`, { token: 'admin-token' });
  assert.deepEqual((probes.json as { spec: unknown }).spec, {
    priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 2,
    rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }],
  });
  // Its status is the controller's, written once it runs.
  assert.deepEqual((await dangling(server, 'probes', 'False')).status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['Dangling', 'False', 'Found']]);

  const admin = await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'admin-token' });
  assert.deepEqual(classifiedAs(admin), [schemas.get('exempt'), levels.get('exempt')]);
  const alice = await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
  assert.deepEqual(classifiedAs(alice), [schemas.get('global-default'), levels.get('global-default')]);
  assert.deepEqual(classifiedAs(await server.request('GET', '/livez', { token: 'alice-token' })), [schemas.get('probes'), levels.get('exempt')]);
  // The impersonated user is classified, as upstream's filter comes after impersonation.
  const asAlice = await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'admin-token', headers: { 'Impersonate-User': 'alice' } });
  assert.deepEqual(classifiedAs(asAlice), [schemas.get('global-default'), levels.get('global-default')]);
  // Watches are classified too.
  const watch = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1', { token: 'alice-token' });
  assert.deepEqual(classifiedAs(watch), [schemas.get('global-default'), levels.get('global-default')]);

  // A schema of alice's own, once its level exists, takes her requests.
  const mine = await server.request('POST', `${base}/flowschemas`, { token: 'admin-token', body: {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'alice' },
    spec: { priorityLevelConfiguration: { name: 'alice' }, matchingPrecedence: 100, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }] },
  } });
  assert.equal(mine.status, 201);
  const missing = await dangling(server, 'alice', 'True');
  assert.deepEqual(missing.status?.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message })), [
    { type: 'Dangling', status: 'True', reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "alice" but there is no such object' },
  ]);
  assert.ok(missing.metadata.managedFields?.some((f) => f.manager === 'api-priority-and-fairness-config-consumer-v1' && f.operation === 'Apply' && f.subresource === 'status'));
  assert.deepEqual(classifiedAs(await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' })), [schemas.get('global-default'), levels.get('global-default')]);
  const level = await server.request('POST', `${base}/prioritylevelconfigurations`, { token: 'admin-token', body: {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'alice' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Reject' } } },
  } });
  assert.equal(level.status, 201);
  const found = await dangling(server, 'alice', 'False');
  assert.deepEqual(found.status?.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message })), [
    { type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "alice" and it exists' },
  ]);
  const want = [(mine.json as { metadata: { uid: string } }).metadata.uid, (level.json as { metadata: { uid: string } }).metadata.uid];
  let seen: unknown[] = [];
  for (let i = 0; i < 250 && JSON.stringify(seen) !== JSON.stringify(want); i++) {
    seen = classifiedAs(await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' }));
    if (JSON.stringify(seen) !== JSON.stringify(want)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.deepEqual(seen, want);
});

test('--enable-priority-and-fairness=false: no classification, no headers', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'], enablePriorityAndFairness: false });
  t.after(() => server.stop());
  const res = await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
  assert.equal(res.status, 200);
  assert.deepEqual(classifiedAs(res), [undefined, undefined]);
});

test('each priority level has seats of its own: a full level holds its requests, another level\'s go on', async (t) => {
  // One seat for the server: every Limited level gets one (its share, rounded up).
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'], maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, inflightQueueWaitMs: 300 });
  t.after(() => server.stop());
  // alice's create, its body still coming, holds global-default's seat.
  const { answered, finish } = heldCreate(server, { token: 'alice-token', name: 'held' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const [held, other] = await Promise.all([
    server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' }),
    // A kube-system service account's request is workload-high's (kube-system-service-accounts).
    server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'ctl-token' }),
  ]);
  assert.equal(other.status, 200);
  assert.equal(held.status, 429, held.text);
  const levels = await uids(server, 'prioritylevelconfigurations');
  assert.deepEqual([held.headers['x-kubernetes-pf-prioritylevel-uid'], other.headers['x-kubernetes-pf-prioritylevel-uid']], [levels.get('global-default'), levels.get('workload-high')]);
  finish();
  assert.equal(await answered, 201);
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' })).status, 200, 'the seat is free again');
});

test('a request whose client goes away while it waits leaves its queue: the seat is not lost', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'], maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, inflightQueueWaitMs: 3000 });
  t.after(() => server.stop());
  const { answered, finish } = heldCreate(server, { token: 'alice-token', name: 'held' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  // alice's list waits for global-default's one seat; her client gives up.
  await new Promise<void>((resolve) => {
    const req = https.get(new URL('/api/v1/namespaces/default/configmaps', server.url), { ca: server.caPem, agent: false, headers: { authorization: 'Bearer alice-token' } });
    req.on('error', () => {});
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 200);
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  finish();
  assert.equal(await answered, 201);
  // The seat is free again: the next request has it at once (a seat given to the request
  // nobody waits for any more would be held for ever, and this one refused after 3 s).
  const next = await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
  assert.equal(next.status, 200, next.text);
});

test('a request\'s seats are its estimated work: a large list several, a write several more while its watches hear of it', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'] });
  t.after(() => server.stop());
  assert.equal((await server.request('POST', '/api/v1/namespaces', { token: 'admin-token', body: { metadata: { name: 'work' } } })).status, 201);
  for (let i = 0; i < 250; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => server.request('POST', '/api/v1/namespaces/work/configmaps', { token: 'admin-token', body: { metadata: { name: `cm-${i + j}` } } })));
  }
  const global = { flow_schema: 'global-default', priority_level: 'global-default' };
  const scrape = async () => (await server.request('GET', '/metrics', { token: 'admin-token' })).text;
  // alice's list goes through 250 objects of the watch cache: three seats.
  assert.equal((await server.request('GET', '/api/v1/namespaces/work/configmaps', { token: 'alice-token' })).status, 200);
  let text = await scrape();
  assert.equal(sample(text, 'apiserver_flowcontrol_work_estimated_seats_sum', global), 3);
  assert.equal(sample(text, 'apiserver_flowcontrol_work_estimated_seats_bucket', { ...global, le: '2' }), 0);
  assert.equal(sample(text, 'apiserver_flowcontrol_work_estimated_seats_bucket', { ...global, le: '4' }), 1);
  // Twenty watches of the namespace's ConfigMaps (and one of another namespace's, not told of it): a create there takes two seats.
  const watches = await Promise.all([
    ...Array.from({ length: 20 }, () => openStream(server, '/api/v1/namespaces/work/configmaps?watch=1', { authorization: 'Bearer alice-token' })),
    openStream(server, '/api/v1/namespaces/default/configmaps?watch=1', { authorization: 'Bearer alice-token' }),
  ]);
  t.after(() => watches.forEach((w) => w.close()));
  assert.equal((await server.request('POST', '/api/v1/namespaces/work/configmaps', { token: 'alice-token', body: { metadata: { name: 'heard' } } })).status, 201);
  text = await scrape();
  assert.equal(sample(text, 'apiserver_flowcontrol_watch_count_samples_sum', global), 20);
  // The list's 3, a seat for each watch's start, the create's 2.
  assert.equal(sample(text, 'apiserver_flowcontrol_work_estimated_seats_sum', global), 3 + 21 + 2);
  // The watches gone, a create is one seat again.
  for (const w of watches) w.close();
  await eventually(async () => {
    const before = sample(text, 'apiserver_flowcontrol_work_estimated_seats_sum', global);
    assert.equal((await server.request('POST', '/api/v1/namespaces/work/configmaps', { token: 'alice-token', body: { metadata: { generateName: 'quiet-' } } })).status, 201);
    text = await scrape();
    assert.equal(sample(text, 'apiserver_flowcontrol_work_estimated_seats_sum', global) - before, 1);
  });
  assert.equal(sample(text, 'apiserver_flowcontrol_current_executing_seats', global), 0);
  assert.equal(sample(text, 'apiserver_flowcontrol_current_inqueue_seats', global), 0);
});

test('/debug/api_priority_and_fairness dumps the levels, their queues and who waits, as upstream\'s tables', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'], maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, inflightQueueWaitMs: 5000 });
  t.after(() => server.stop());
  const { answered, finish } = heldCreate(server, { token: 'alice-token', name: 'held' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  // alice's list waits for global-default's seat, which her create holds.
  const waiting = server.request('GET', '/api/v1/namespaces/default/configmaps?limit=5', { token: 'alice-token' });
  const dump = async (name: string) => {
    const res = await server.request('GET', `/debug/api_priority_and_fairness/${name}`, { token: 'admin-token' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    return res.text.split('\n').filter((line) => line !== '').map((line) => line.split(',').map((cell) => cell.trim()));
  };
  const levels = await eventually(async () => {
    const rows = await dump('dump_priority_levels');
    assert.deepEqual(rows.find((r) => r[0] === 'global-default')?.slice(4, 6), ['1', '1']);
    return rows;
  });
  assert.deepEqual(levels[0], ['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests']);
  assert.deepEqual(levels.map((r) => r[0]).slice(1), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
  assert.deepEqual(levels.find((r) => r[0] === 'global-default'), ['global-default', '1', 'false', 'false', '1', '1', '1', '0', '0', '0']);
  // The queue alice's flow was dealt holds her list.
  const queues = await dump('dump_queues');
  assert.deepEqual(queues[0], ['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum']);
  assert.equal(queues.filter((r) => r[0] === 'global-default').length, 128);
  assert.deepEqual(queues.filter((r) => r[0] === 'global-default' && r[2] !== '0').map((r) => [r[2], r[6], r[7]]), [['1', '1', '1']]);
  const requests = await dump('dump_requests?includeRequestDetails=1');
  assert.equal(requests.length, 2);
  const [header, row] = requests as [string[], string[]];
  const named = Object.fromEntries(header.map((h, i) => [h, row[i]]));
  assert.equal(named.PriorityLevelName, 'global-default');
  assert.equal(named.FlowSchemaName, 'global-default');
  assert.equal(named.FlowDistingsher, 'alice');
  assert.match(named.ArriveTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.deepEqual([named.InitialSeats, named.FinalSeats, named.AdditionalLatency], ['1', '0', '0s']);
  assert.deepEqual([named.UserName, named.Verb, named.APIPath, named.Namespace, named.APIVersion, named.Resource], ['alice', 'list', '/api/v1/namespaces/default/configmaps', 'default', 'v1', 'configmaps']);
  assert.equal((await dump('dump_requests'))[0]!.length, 9);
  assert.equal((await server.request('GET', '/debug/api_priority_and_fairness/dump_other', { token: 'admin-token' })).status, 404);
  finish();
  assert.equal(await answered, 201);
  assert.equal((await waiting).status, 200);
});

test('a watch takes a seat of its level while it starts, waiting for it as other requests do, and gives it back once established', async (t) => {
  const server = await startServer({ tokenAuthFile: tokenFile(), authorizationModes: ['AlwaysAllow'], maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, inflightQueueWaitMs: 300 });
  t.after(() => server.stop());
  const { answered, finish } = heldCreate(server, { token: 'alice-token', name: 'held' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  // global-default's seat is taken: alice's watch waits, and is refused after the wait limit.
  const refused = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1', { token: 'alice-token' });
  assert.equal(refused.status, 429, refused.text);
  finish();
  assert.equal(await answered, 201);
  // Established, the watch holds no seat: alice's list has it at once, while the watch goes on.
  const watch = await openStream(server, '/api/v1/namespaces/default/configmaps?watch=1', { authorization: 'Bearer alice-token' });
  t.after(() => watch.close());
  assert.equal(watch.status, 200);
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'alice-token' })).status, 200);
  assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { token: 'alice-token', body: { metadata: { name: 'seen' } } })).status, 201);
  const names: string[] = [];
  while (!names.includes('seen')) names.push((await watch.next()).object.metadata.name);
  assert.deepEqual(names, ['held', 'seen']);
  const global = { flow_schema: 'global-default', priority_level: 'global-default' };
  // Every request has ended (its seat's release comes with its stream's close).
  const text = await eventually(async () => {
    const scraped = (await server.request('GET', '/metrics', { token: 'admin-token' })).text;
    assert.equal(sample(scraped, 'apiserver_flowcontrol_current_executing_requests', global), 0);
    return scraped;
  });
  assert.equal(sample(text, 'apiserver_flowcontrol_rejected_requests_total', { ...global, reason: 'time-out' }), 1);
  // Each request's wait (the refused watch's 300 ms among them), how long each ran (the watch until it was established), its queue's length.
  assert.equal(sample(text, 'apiserver_flowcontrol_request_wait_duration_seconds_count', { ...global, execute: 'true' }), 4);
  assert.equal(sample(text, 'apiserver_flowcontrol_request_wait_duration_seconds_count', { ...global, execute: 'false' }), 1);
  assert.ok(sample(text, 'apiserver_flowcontrol_request_wait_duration_seconds_sum', { ...global, execute: 'false' }) >= 0.29);
  assert.equal(sample(text, 'apiserver_flowcontrol_request_wait_duration_seconds_bucket', { ...global, execute: 'false', le: '0.2' }), 0);
  assert.equal(sample(text, 'apiserver_flowcontrol_request_execution_seconds_count', { ...global, type: 'watch' }), 1);
  assert.equal(sample(text, 'apiserver_flowcontrol_request_execution_seconds_count', { ...global, type: 'regular' }), 3);
  assert.equal(sample(text, 'apiserver_flowcontrol_request_queue_length_after_enqueue_count', global), 5);
  assert.equal(sample(text, 'apiserver_flowcontrol_request_queue_length_after_enqueue_bucket', { ...global, le: '0' }), 0);
  // The scrape is the admin's own, exempt, and counted while it runs.
  assert.equal(sample(text, 'apiserver_flowcontrol_current_executing_requests', { flow_schema: 'exempt', priority_level: 'exempt' }), 1);
});
