// LimitRanger and ResourceQuota admission with the resource quota controller: defaults
// and limits from LimitRanges, quota refusals with upstream's messages, status.used
// charged on create and released on delete, dry runs, and kubectl's views of quotas.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const kubectlBin = '/usr/bin/kubectl';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

function pod(name: string, resources?: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }], ...extra },
  };
}

async function create(ns: string, resource: string, body: unknown, query = '') {
  return server.request('POST', `/api/v1/namespaces/${ns}/${resource}${query}`, { body });
}

async function quotaStatus(ns: string, name: string): Promise<any> {
  return (await server.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status;
}

describe('LimitRanger', () => {
  test('a pod without resources gets the LimitRange defaults and an annotation', async () => {
    const ns = await server.newNamespace('lr');
    const lr = await create(ns, 'limitranges', {
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }] },
    });
    assert.equal(lr.status, 201, lr.text);
    // LimitRange defaulting: the default request falls back to the default limit.
    assert.deepEqual(lr.json.spec.limits[0].defaultRequest, { cpu: '100m', memory: '256Mi' });

    const res = await create(ns, 'pods', pod('p'));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.equal(res.json.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c');
    assert.equal(res.json.status.qosClass, 'Burstable', 'QoS follows the defaulted resources');
  });

  test('a container over the max is refused with 403', async () => {
    const ns = await server.newNamespace('lr');
    assert.equal((await create(ns, 'limitranges', {
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' },
      spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
    })).status, 201);
    const res = await create(ns, 'pods', pod('p', { limits: { cpu: '2' } }));
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.reason, 'Forbidden');
    assert.equal(res.json.message, 'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
    // Within the max (and defaulted to it when unset) is fine.
    assert.equal((await create(ns, 'pods', pod('q'))).status, 201);
  });

  test('an invalid LimitRange answers 422', async () => {
    const ns = await server.newNamespace('lr');
    const res = await create(ns, 'limitranges', {
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'bad' },
      spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] },
    });
    assert.equal(res.status, 422, res.text);
    assert.ok(res.json.details.causes.some((c: any) => c.field === 'spec.limits[0].min[cpu]' && c.message.endsWith('min value 2 is greater than max value 1')), res.text);
  });
});

describe('ResourceQuota', () => {
  test('a quota of pods=1: the second pod is refused, status follows creates and deletes', async () => {
    const ns = await server.newNamespace('rq');
    assert.equal((await create(ns, 'resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '1' } } })).status, 201);
    await eventually(async () => assert.deepEqual(await quotaStatus(ns, 'q'), { hard: { pods: '1' }, used: { pods: '0' } }));

    assert.equal((await create(ns, 'pods', pod('a'))).status, 201);
    assert.deepEqual((await quotaStatus(ns, 'q')).used, { pods: '1' }, 'charged by admission, at once');

    const second = await create(ns, 'pods', pod('b'));
    assert.equal(second.status, 403, second.text);
    assert.equal(second.json.message, 'pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');

    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/a?gracePeriodSeconds=0`)).status, 200);
    await eventually(async () => assert.deepEqual((await quotaStatus(ns, 'q')).used, { pods: '0' }, 'released by the controller'));
    assert.equal((await create(ns, 'pods', pod('b'))).status, 201);
  });

  test('a dry-run create is checked but charges nothing', async () => {
    const ns = await server.newNamespace('rq');
    assert.equal((await create(ns, 'resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { configmaps: '1' } } })).status, 201);
    await eventually(async () => assert.deepEqual((await quotaStatus(ns, 'q'))?.used, { configmaps: '0' }));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.equal((await create(ns, 'configmaps', cm, '?dryRun=All')).status, 201);
    assert.deepEqual((await quotaStatus(ns, 'q')).used, { configmaps: '0' });
    assert.equal((await create(ns, 'configmaps', cm)).status, 201);
    assert.deepEqual((await quotaStatus(ns, 'q')).used, { configmaps: '1' });
    const over = await create(ns, 'configmaps', { ...cm, metadata: { name: 'd' } }, '?dryRun=All');
    assert.equal(over.status, 403);
    assert.equal(over.json.message, 'configmaps "d" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
  });

  test('compute quotas require requests and add them up', async () => {
    const ns = await server.newNamespace('rq');
    assert.equal((await create(ns, 'resourcequotas', {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' } },
    })).status, 201);
    const bare = await create(ns, 'pods', pod('bare'));
    assert.equal(bare.status, 403, bare.text);
    assert.equal(bare.json.message, 'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c');

    const ok = await create(ns, 'pods', pod('ok', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }));
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual((await quotaStatus(ns, 'compute')).used, { 'limits.memory': '512Mi', 'requests.cpu': '600m' });
    const over = await create(ns, 'pods', pod('over', { requests: { cpu: '500m' }, limits: { memory: '512Mi' } }));
    assert.equal(over.status, 403);
    assert.equal(over.json.message, 'pods "over" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
  });

  test('updates that use more are charged: a pod\'s resize, a service\'s new type', async () => {
    const ns = await server.newNamespace('rq');
    assert.equal((await create(ns, 'resourcequotas', {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'requests.cpu': '1', 'services.loadbalancers': '0' } },
    })).status, 201);
    assert.equal((await create(ns, 'pods', pod('p', { requests: { cpu: '400m' } }))).status, 201);
    const resize = (cpu: string) => server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/resize`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu } } }] } },
    });
    const over = await resize('1200m');
    assert.equal(over.status, 403, over.text);
    assert.equal(over.json.message, 'pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=800m, used: requests.cpu=400m, limited: requests.cpu=1');
    const grown = await resize('700m');
    assert.equal(grown.status, 200, grown.text);
    assert.deepEqual((await quotaStatus(ns, 'q')).used, { 'requests.cpu': '700m', 'services.loadbalancers': '0' });

    const svc = await create(ns, 'services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    assert.equal(svc.status, 201, svc.text);
    const lb = await server.request('PATCH', `/api/v1/namespaces/${ns}/services/s`, {
      headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { type: 'LoadBalancer' } },
    });
    assert.equal(lb.status, 403, lb.text);
    assert.equal(lb.json.message, 'services "s" is forbidden: exceeded quota: q, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0');
  });

  test('a BestEffort-scoped quota counts only best-effort pods', async () => {
    const ns = await server.newNamespace('rq');
    assert.equal((await create(ns, 'resourcequotas', {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'be' }, spec: { hard: { pods: '1' }, scopes: ['BestEffort'] },
    })).status, 201);
    assert.equal((await create(ns, 'pods', pod('be-1'))).status, 201);
    assert.equal((await create(ns, 'pods', pod('burstable', { requests: { cpu: '100m' } }))).status, 201);
    assert.equal((await create(ns, 'pods', pod('be-2'))).status, 403);
    assert.deepEqual((await quotaStatus(ns, 'be')).used, { pods: '1' });
  });

  test('an invalid quota answers 422', async () => {
    const ns = await server.newNamespace('rq');
    const res = await create(ns, 'resourcequotas', {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad' }, spec: { hard: { pods: '-1', foo: '1' } },
    });
    assert.equal(res.status, 422, res.text);
    const messages = res.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    assert.ok(messages.includes('spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0'), messages.join('\n'));
    assert.ok(messages.includes('spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota'), messages.join('\n'));
  });

  const skip = existsSync(kubectlBin) ? false : `kubectl is not installed at ${kubectlBin}`;
  test('kubectl get and describe quota', { skip }, async () => {
    const ns = await server.newNamespace('rq');
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
    after(() => rmSync(cacheDir, { recursive: true, force: true }));
    const kubectl = async (...args: string[]) => (await run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir, '-n', ns, ...args])).stdout;
    assert.equal((await create(ns, 'resourcequotas', {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '10', 'requests.cpu': '2', 'limits.cpu': '4' } },
    })).status, 201);
    assert.equal((await create(ns, 'pods', pod('p', { requests: { cpu: '250m' }, limits: { cpu: '500m' } }))).status, 201);
    await eventually(async () => assert.deepEqual((await quotaStatus(ns, 'q')).used, { 'limits.cpu': '500m', pods: '1', 'requests.cpu': '250m' }));

    const table = await kubectl('get', 'quota');
    assert.match(table, /^NAME\s+AGE\s+REQUEST\s+LIMIT$/m);
    assert.match(table, /^q\s+\S+\s+pods: 1\/10, requests\.cpu: 250m\/2\s+limits\.cpu: 500m\/4$/m);

    const described = await kubectl('describe', 'quota', 'q');
    assert.match(described, /^Name:\s+q$/m);
    assert.match(described, /^Resource\s+Used\s+Hard$/m);
    assert.match(described, /^pods\s+1\s+10$/m);
    assert.match(described, /^requests\.cpu\s+250m\s+2$/m);

    assert.equal((await create(ns, 'limitranges', {
      apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
    })).status, 201);
    assert.match(await kubectl('get', 'limitranges'), /^NAME\s+CREATED AT\nlr\s+\d{4}-\d\d-\d\dT/m);
  });
});

describe('the resource quota controller, following counted objects', () => {
  // A server of its own, without the garbage collector (which watches every resource): the
  // quota controller's informers are then the only watchers of Secrets.
  let own: TestServer;
  before(async () => void (own = await startServer({ enableGarbageCollector: false })));
  after(() => own?.stop());

  const secretWatchers = async () => sample((await own.request('GET', '/metrics')).text, 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'Secret' });
  const secret = (ns: string, name: string) => own.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name } } });
  const used = async (ns: string, name: string) => (await own.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status?.used;
  const quota = (ns: string, name: string) => own.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
    body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard: { secrets: '10' } } },
  });

  test('only while a quota exists; a quota made later counts what is there, and follows deletes', async () => {
    const ns = await own.newNamespace('rqf');
    assert.equal((await secret(ns, 'a')).status, 201);
    assert.equal((await secret(ns, 'b')).status, 201);
    assert.equal(await secretWatchers(), 0, 'no quota: nothing watches Secrets');

    assert.equal((await quota(ns, 'q')).status, 201);
    await eventually(async () => assert.deepEqual(await used(ns, 'q'), { secrets: '2' }));
    await eventually(async () => assert.equal(await secretWatchers(), 1));
    assert.equal((await own.request('DELETE', `/api/v1/namespaces/${ns}/secrets/a`)).status, 200);
    await eventually(async () => assert.deepEqual(await used(ns, 'q'), { secrets: '1' }, 'released by the controller'));

    // The last quota gone, it stops; what changes meanwhile is counted by the next quota.
    assert.equal((await own.request('DELETE', `/api/v1/namespaces/${ns}/resourcequotas/q`)).status, 200);
    await eventually(async () => assert.equal(await secretWatchers(), 0));
    assert.equal((await secret(ns, 'c')).status, 201);
    assert.equal((await own.request('DELETE', `/api/v1/namespaces/${ns}/secrets/b`)).status, 200);

    assert.equal((await quota(ns, 'r')).status, 201);
    await eventually(async () => assert.deepEqual(await used(ns, 'r'), { secrets: '1' }));
    await eventually(async () => assert.equal(await secretWatchers(), 1));
    assert.equal((await own.request('DELETE', `/api/v1/namespaces/${ns}/secrets/c`)).status, 200);
    await eventually(async () => assert.deepEqual(await used(ns, 'r'), { secrets: '0' }, 'released by the controller'));
  });
});
