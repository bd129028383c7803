// POST pods/{name}/eviction with PodDisruptionBudgets (policy/v1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const namespace = () => server.newNamespace('evict');

/** A pod as a kubelet would have made it: Running and, unless told otherwise, Ready. */
async function runningPod(ns: string, name: string, labels: Record<string, string>, ready = true): Promise<void> {
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
  assert.equal(created.status, 201, created.text);
  const status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
  const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { raw: JSON.stringify({ status }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(res.status, 200, res.text);
}

async function budget(ns: string, name: string, spec: Record<string, unknown>): Promise<void> {
  const res = await server.request('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec } });
  assert.equal(res.status, 201, res.text);
}

function evict(ns: string, name: string, extra: Record<string, unknown> = {}, query = '') {
  return server.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction${query}`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns }, ...extra } });
}

async function exists(ns: string, name: string): Promise<boolean> {
  return (await server.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`)).status === 200;
}

describe('eviction without a budget', () => {
  test('201 with a Success Status, and the pod is deleted', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p', { app: 'x' });
    const res = await evict(ns, 'p');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal(await exists(ns, 'p'), false);
  });

  test('a missing pod is 404', async () => {
    const ns = await namespace();
    const res = await evict(ns, 'none');
    assert.equal(res.status, 404);
    assert.equal(res.json.message, 'pods "none" not found');
  });

  test('a body naming another pod is 400', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p', {});
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'q' } } });
    assert.equal(res.status, 400);
    assert.equal(res.json.message, 'name in URL does not match name in Eviction object');
    assert.equal(await exists(ns, 'p'), true);
  });

  test('a dry run answers 201 and deletes nothing', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p', {});
    assert.equal((await evict(ns, 'p', {}, '?dryRun=All')).status, 201);
    assert.equal((await evict(ns, 'p', { deleteOptions: { dryRun: ['All'] } })).status, 201);
    assert.equal(await exists(ns, 'p'), true);
  });
});

describe('eviction with deleteOptions of the wrong type', () => {
  /** A pod bound to a node (so deleted gracefully) in the phase given. */
  async function boundPod(ns: string, phase: 'Pending' | 'Running'): Promise<void> {
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(created.status, 201, created.text);
    const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/status`, { raw: JSON.stringify({ status: { phase } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(res.status, 200, res.text);
  }
  /** The pod's deletion, if any: 'none', 'graceful' (deletionTimestamp set) or 'gone'. */
  async function deletion(ns: string): Promise<string> {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`);
    if (res.status === 404) return 'gone';
    return res.json.metadata.deletionTimestamp === undefined ? 'none' : 'graceful';
  }
  const decodeError = (what: string, field: string, type: string, version = 'v1') =>
    `Eviction in version "${version}" cannot be handled as a Eviction: json: cannot unmarshal ${what} into Go struct field ${field} of type ${type}`;
  const rows: { name: string; deleteOptions: string; apiVersion?: string; message: string }[] = [
    { name: 'gracePeriodSeconds a string', deleteOptions: '{"gracePeriodSeconds":"x"}', message: decodeError('string', 'DeleteOptions.deleteOptions.gracePeriodSeconds', 'int64') },
    { name: 'gracePeriodSeconds a fraction', deleteOptions: '{"gracePeriodSeconds":1.5}', message: decodeError('number 1.5', 'DeleteOptions.deleteOptions.gracePeriodSeconds', 'int64') },
    { name: 'gracePeriodSeconds past int64', deleteOptions: '{"gracePeriodSeconds":1e19}', message: decodeError('number 10000000000000000000', 'DeleteOptions.deleteOptions.gracePeriodSeconds', 'int64') },
    // Its text is gone once parsed (Infinity): Go names it "number 1e400".
    { name: 'gracePeriodSeconds past a double', deleteOptions: '{"gracePeriodSeconds":1e400}', message: decodeError('number', 'DeleteOptions.deleteOptions.gracePeriodSeconds', 'int64') },
    { name: 'dryRun a number', deleteOptions: '{"dryRun":5}', message: decodeError('number', 'DeleteOptions.deleteOptions.dryRun', '[]string') },
    { name: 'dryRun with a number in it', deleteOptions: '{"dryRun":[5]}', message: decodeError('number', 'DeleteOptions.deleteOptions.dryRun', 'string') },
    { name: 'propagationPolicy a number', deleteOptions: '{"propagationPolicy":1}', message: decodeError('number', 'DeleteOptions.deleteOptions.propagationPolicy', 'v1.DeletionPropagation') },
    { name: 'preconditions a list', deleteOptions: '{"preconditions":[]}', message: decodeError('array', 'DeleteOptions.deleteOptions.preconditions', 'v1.Preconditions') },
    { name: 'preconditions.uid a number', deleteOptions: '{"preconditions":{"uid":1}}', message: decodeError('number', 'Preconditions.deleteOptions.preconditions.uid', 'types.UID') },
    { name: 'orphanDependents a string', deleteOptions: '{"orphanDependents":"yes"}', message: decodeError('string', 'DeleteOptions.deleteOptions.orphanDependents', 'bool') },
    { name: 'kind a number', deleteOptions: '{"kind":1}', message: decodeError('number', 'DeleteOptions.deleteOptions.kind', 'string') },
    { name: 'the first wrong value is the one named', deleteOptions: '{"orphanDependents":"yes","dryRun":5}', message: decodeError('string', 'DeleteOptions.deleteOptions.orphanDependents', 'bool') },
    { name: 'deleteOptions a string', deleteOptions: '"x"', message: decodeError('string', 'Eviction.deleteOptions', 'v1.DeleteOptions') },
    { name: 'a policy/v1beta1 Eviction', apiVersion: 'policy/v1beta1', deleteOptions: '{"dryRun":5}', message: decodeError('number', 'DeleteOptions.deleteOptions.dryRun', '[]string', 'v1beta1') },
  ];
  for (const phase of ['Running', 'Pending'] as const) {
    for (const row of rows) {
      test(`${phase} pod: ${row.name} is 400, and the pod stays`, async () => {
        const ns = await namespace();
        await boundPod(ns, phase);
        const raw = `{"apiVersion":"${row.apiVersion ?? 'policy/v1'}","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":${row.deleteOptions}}`;
        // The Running pod is evicted as a dry run, so that only the options could delete it.
        const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction${phase === 'Running' ? '?dryRun=All' : ''}`, { raw, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.kind, 'Status');
        assert.equal(res.json.message, row.message);
        assert.equal(await deletion(ns), 'none');
      });
    }
  }

  test('null deleteOptions, and null members in them, are unset', async () => {
    const ns = await namespace();
    await boundPod(ns, 'Pending');
    assert.equal((await evict(ns, 'p', { deleteOptions: { gracePeriodSeconds: null, preconditions: null, orphanDependents: null, dryRun: ['All'] } })).status, 201);
    assert.equal(await deletion(ns), 'none');
    assert.equal((await evict(ns, 'p', { deleteOptions: null })).status, 201);
    assert.equal(await deletion(ns), 'graceful');
  });
});

describe('eviction with a PodDisruptionBudget', () => {
  test('allowed while the budget has room, then 429 with upstream\'s message and cause', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b', 'c']) await runningPod(ns, name, { app: 'web' });
    await budget(ns, 'web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } });

    const first = await evict(ns, 'a');
    assert.equal(first.status, 201, first.text);
    assert.equal(await exists(ns, 'a'), false);
    const pdb = (await server.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
    assert.equal(pdb.status.disruptionsAllowed, 0, 'the eviction took the one disruption allowed');
    assert.equal(pdb.status.currentHealthy, 3);
    assert.equal(pdb.status.desiredHealthy, 2);
    assert.equal(pdb.status.expectedPods, 3);
    assert.equal(pdb.status.observedGeneration, 1);
    assert.ok(pdb.status.disruptedPods.a, 'the evicted pod is recorded');
    assert.deepEqual(pdb.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'False', 'InsufficientPods']]);

    const second = await evict(ns, 'b');
    assert.equal(second.status, 429, second.text);
    assert.equal(second.json.reason, 'TooManyRequests');
    assert.equal(second.json.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(second.json.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' }] });
    assert.equal(await exists(ns, 'b'), true);
    const after = (await server.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
    assert.deepEqual(Object.keys(after.status.disruptedPods), ['a'], 'the eviction stays recorded for the deletion timeout');
    assert.equal(after.status.currentHealthy, 2);
  });

  test('maxUnavailable as a percentage of the selected pods', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b', 'c', 'd']) await runningPod(ns, name, { app: 'web' });
    await budget(ns, 'web', { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } });
    // Four pods expected (evicted ones count until a controller would have replaced them): 2 may go.
    assert.equal((await evict(ns, 'a')).status, 201);
    assert.equal((await evict(ns, 'b')).status, 201);
    assert.equal((await evict(ns, 'c')).status, 429);
    const pdb = (await server.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
    assert.deepEqual([pdb.status.expectedPods, pdb.status.desiredHealthy, pdb.status.currentHealthy], [4, 2, 2]);
  });

  test('pods that have not started, or are finished, go without asking the budget', async () => {
    const ns = await namespace();
    await runningPod(ns, 'running', { app: 'web' });
    await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'pending', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    await budget(ns, 'web', { minAvailable: '100%', selector: { matchLabels: { app: 'web' } } });
    assert.equal((await evict(ns, 'running')).status, 429);
    assert.equal((await evict(ns, 'pending')).status, 201);
  });

  test('an unready pod goes without taking a disruption while the budget is met', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b']) await runningPod(ns, name, { app: 'web' });
    await runningPod(ns, 'sick', { app: 'web' }, false);
    await budget(ns, 'web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } });
    assert.equal((await evict(ns, 'sick')).status, 201);
    const pdb = (await server.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
    assert.equal(pdb.status.disruptedPods, undefined);
    assert.equal((await evict(ns, 'a')).status, 429);
  });

  test('unhealthyPodEvictionPolicy AlwaysAllow lets unready pods go even when the budget is not met', async () => {
    const ns = await namespace();
    await runningPod(ns, 'sick', { app: 'web' }, false);
    await budget(ns, 'web', { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow', selector: { matchLabels: { app: 'web' } } });
    assert.equal((await evict(ns, 'sick')).status, 201);
  });

  test('a dry run checks the budget without changing it', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b']) await runningPod(ns, name, { app: 'web' });
    await budget(ns, 'web', { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } });
    const before = (await server.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
    assert.equal((await evict(ns, 'a', {}, '?dryRun=All')).status, 201);
    const after = (await server.request('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.equal(await exists(ns, 'a'), true);
  });

  test('a pod covered by two budgets cannot be evicted (500)', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p', { app: 'web', tier: 'front' });
    await budget(ns, 'by-app', { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } });
    await budget(ns, 'by-tier', { maxUnavailable: 1, selector: { matchLabels: { tier: 'front' } } });
    const res = await evict(ns, 'p');
    assert.equal(res.status, 500);
    assert.equal(res.json.message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    assert.equal(await exists(ns, 'p'), true);
  });

  test('a budget with an empty selector covers no pod', async () => {
    const ns = await namespace();
    await runningPod(ns, 'p', { app: 'web' });
    await budget(ns, 'all', { minAvailable: 5, selector: {} });
    assert.equal((await evict(ns, 'p')).status, 201);
  });
});

describe('poddisruptionbudgets', () => {
  test('validation: minAvailable and maxUnavailable are exclusive, percentages at most 100%', async () => {
    const ns = await namespace();
    const both = await server.request('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { body: { metadata: { name: 'x' }, spec: { minAvailable: 1, maxUnavailable: 1 } } });
    assert.equal(both.status, 422);
    assert.match(both.json.message, /spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set/);
    const percent = await server.request('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { body: { metadata: { name: 'x' }, spec: { maxUnavailable: '150%' } } });
    assert.equal(percent.status, 422);
    assert.match(percent.json.message, /spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%/);
  });

  test('status is kept by spec writes, and spec by status writes; generation moves with spec', async () => {
    const ns = await namespace();
    await budget(ns, 'b', { minAvailable: 1, selector: { matchLabels: { app: 'x' } } });
    const status = await server.request('PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/b/status`, {
      raw: '{"spec":{"minAvailable":3},"status":{"disruptionsAllowed":2,"currentHealthy":3,"desiredHealthy":1,"expectedPods":3}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.spec.minAvailable, 1);
    assert.equal(status.json.status.disruptionsAllowed, 2);
    const spec = await server.request('PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/b`, { raw: '{"spec":{"minAvailable":2},"status":{"disruptionsAllowed":0}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(spec.json.status.disruptionsAllowed, 2);
    assert.equal(spec.json.metadata.generation, 2);
    const negative = await server.request('PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/b/status`, { raw: '{"status":{"disruptionsAllowed":-1}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(negative.status, 422);
  });
});
