// The pure logic of the LimitRanger and ResourceQuota plugins: defaults, limit checks,
// quota charges and refusals, and a quota's usage counted from a namespace's objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { aggregateMessage, applyLimitRangeDefaults, claimLimitViolations, podLimitViolations } from '../../src/admission/limit-ranger.ts';
import { resourceList } from '../../src/admission/pod-resources.ts';
import { computeQuotaStatus, evaluatorFor, toWire } from '../../src/admission/quota-usage.ts';
import { checkRequest } from '../../src/admission/resource-quota.ts';

const limitRange = (...limits: unknown[]): KubeObject => ({ metadata: { name: 'lr' }, spec: { limits } });

function pod(containers: { name: string; requests?: object; limits?: object }[], extra: Record<string, unknown> = {}, status: object = {}): KubeObject {
  return {
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      containers: containers.map(({ name, requests, limits }) => ({
        name, image: 'x', ...(requests || limits ? { resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } } : {}),
      })),
      ...extra,
    },
    status,
  } as KubeObject;
}

test('LimitRanger defaults: missing values only, sorted in the annotation, init containers too', () => {
  const lr = limitRange({ type: 'Container', default: { memory: '1Gi', cpu: '1' }, defaultRequest: { cpu: '100m', memory: '1Gi' } });
  const p = pod([{ name: 'a', limits: { cpu: '2' } }], { initContainers: [{ name: 'i', image: 'x' }] });
  assert.equal(applyLimitRangeDefaults(lr, p), true);
  const spec = p.spec as any;
  assert.deepEqual(spec.containers[0].resources, { limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } });
  assert.deepEqual(spec.initContainers[0].resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } });
  assert.equal(p.metadata.annotations!['kubernetes.io/limit-ranger'],
    'LimitRanger plugin set: cpu, memory request for container a; memory limit for container a; cpu, memory request for init container i; cpu, memory limit for init container i');
  assert.equal(applyLimitRangeDefaults(limitRange({ type: 'Pod', max: { cpu: '1' } }), pod([{ name: 'a' }])), false, 'nothing to default');
});

const violationCases: { name: string; item: unknown; pod: KubeObject; expected: string[] }[] = [
  { name: 'within bounds', item: { type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }, pod: pod([{ name: 'a', requests: { cpu: '200m' }, limits: { cpu: '1' } }]), expected: [] },
  { name: 'limit over max', item: { type: 'Container', max: { cpu: '1' } }, pod: pod([{ name: 'a', limits: { cpu: '2' } }]), expected: ['maximum cpu usage per Container is 1, but limit is 2'] },
  { name: 'no limit under a max', item: { type: 'Container', max: { memory: '1Gi' } }, pod: pod([{ name: 'a' }]), expected: ['maximum memory usage per Container is 1Gi.  No limit is specified'] },
  { name: 'request under min', item: { type: 'Container', min: { cpu: '500m' } }, pod: pod([{ name: 'a', requests: { cpu: '0.1' } }]), expected: ['minimum cpu usage per Container is 500m, but request is 100m'] },
  { name: 'no request above a min', item: { type: 'Container', min: { cpu: '500m' } }, pod: pod([{ name: 'a' }]), expected: ['minimum cpu usage per Container is 500m.  No request is specified'] },
  {
    name: 'limit/request ratio',
    item: { type: 'Container', maxLimitRequestRatio: { cpu: '2' } },
    pod: pod([{ name: 'a', requests: { cpu: '100m' }, limits: { cpu: '300m' } }]),
    expected: ['cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000'],
  },
  {
    name: 'a Pod item sums the containers',
    item: { type: 'Pod', max: { memory: '1Gi' } },
    pod: pod([{ name: 'a', limits: { memory: '768Mi' } }, { name: 'b', limits: { memory: '512Mi' } }]),
    expected: ['maximum memory usage per Pod is 1Gi, but limit is 1280Mi'],
  },
];

for (const { name, item, pod: p, expected } of violationCases) {
  test(`LimitRanger checks: ${name}`, () => {
    assert.deepEqual(podLimitViolations(limitRange(item), p), expected);
  });
}

test('LimitRanger checks claims\' storage requests', () => {
  const lr = limitRange({ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } });
  const claim = (storage: string): KubeObject => ({ metadata: { name: 'c' }, spec: { resources: { requests: { storage } } } });
  assert.deepEqual(claimLimitViolations(lr, claim('5Gi')), []);
  assert.deepEqual(claimLimitViolations(lr, claim('20Gi')), ['maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi']);
  assert.deepEqual(claimLimitViolations(lr, claim('500Mi')), ['minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi']);
});

test('several violations aggregate as upstream prints them', () => {
  assert.equal(aggregateMessage(['a']), 'a');
  assert.equal(aggregateMessage(['a', 'b', 'a']), '[a, b]');
});

const quotaOf = (name: string, hard: Record<string, string>, used: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  name, hard: resourceList(hard), used: resourceList(used), quota: { metadata: { name }, spec: { hard, ...spec } } as KubeObject,
});

const pods = evaluatorFor({ group: '', resource: 'pods' });
const attrs = { resource: 'pods', name: 'p' };

const checkCases: { name: string; quotas: ReturnType<typeof quotaOf>[]; pod: KubeObject; charged?: Record<string, Record<string, string>>; error?: string }[] = [
  { name: 'room left: charged', quotas: [quotaOf('q', { pods: '2' }, { pods: '1' })], pod: pod([{ name: 'a' }]), charged: { q: { pods: '2' } } },
  {
    name: 'full: refused',
    quotas: [quotaOf('q', { pods: '2' }, { pods: '2' })], pod: pod([{ name: 'a' }]),
    error: 'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
  },
  {
    name: 'compute quota without requests: refused',
    quotas: [quotaOf('q', { cpu: '2', memory: '1Gi' }, { cpu: '0', memory: '0' })], pod: pod([{ name: 'a' }, { name: 'b' }]),
    error: 'pods "p" is forbidden: failed quota: q: must specify cpu for: a,b; memory for: a,b',
  },
  {
    name: 'compute quota charged with the requests',
    quotas: [quotaOf('q', { 'requests.memory': '1Gi', 'count/pods': '5' }, { 'requests.memory': '256Mi', 'count/pods': '1' })],
    pod: pod([{ name: 'a', requests: { memory: '256Mi' } }, { name: 'b', requests: { memory: '256Mi' } }]),
    charged: { q: { 'count/pods': '2', 'requests.memory': '768Mi' } },
  },
  { name: 'a quota counting something else is left alone', quotas: [quotaOf('q', { services: '0' }, { services: '0' })], pod: pod([{ name: 'a' }]), charged: {} },
  {
    name: 'a NotBestEffort quota skips best-effort pods',
    quotas: [quotaOf('q', { pods: '0' }, { pods: '0' }, { scopes: ['NotBestEffort'] })], pod: pod([{ name: 'a' }], {}, { qosClass: 'BestEffort' }), charged: {},
  },
  {
    name: 'a PriorityClass selector matches the pod\'s class',
    quotas: [quotaOf('q', { pods: '0' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } })],
    pod: pod([{ name: 'a' }], { priorityClassName: 'high' }),
    error: 'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0',
  },
];

for (const { name, quotas, pod: p, charged, error } of checkCases) {
  test(`ResourceQuota check: ${name}`, () => {
    if (error !== undefined) {
      assert.throws(() => checkRequest(attrs, pods, quotas, p, undefined, Date.now()), (err: Error) => err.message === error);
      return;
    }
    const result = checkRequest(attrs, pods, quotas, p, undefined, Date.now());
    assert.deepEqual(Object.fromEntries([...result].map(([n, list]) => [n, toWire(list)])), charged);
  });
}

test('ResourceQuota check of an update: the growth is charged, nothing is credited, a quota new to the object charges it whole', () => {
  const stored = { ...pod([{ name: 'a', requests: { cpu: '200m' } }]), metadata: { name: 'p', namespace: 'ns', resourceVersion: '5' } } as KubeObject;
  const resized = pod([{ name: 'a', requests: { cpu: '300m' } }]);
  const cpu = (used: string) => quotaOf('q', { 'requests.cpu': '1', 'count/pods': '10' }, { 'requests.cpu': used, 'count/pods': '1' });
  const charged = checkRequest(attrs, pods, [cpu('200m')], resized, stored, Date.now());
  assert.deepEqual(toWire(charged.get('q')!), { 'count/pods': '1', 'requests.cpu': '300m' });
  assert.throws(() => checkRequest(attrs, pods, [cpu('950m')], resized, stored, Date.now()),
    (err: Error) => err.message === 'pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=100m, used: requests.cpu=950m, limited: requests.cpu=1');
  // A smaller request charges nothing (the quota controller counts it later).
  assert.equal(checkRequest(attrs, pods, [cpu('950m')], pod([{ name: 'a', requests: { cpu: '100m' } }]), stored, Date.now()).size, 0);
  // A Terminating quota did not count the stored pod: the pod that now has a deadline is charged whole.
  const terminating = quotaOf('t', { pods: '2' }, { pods: '1' }, { scopes: ['Terminating'] });
  const withDeadline = pod([{ name: 'a', requests: { cpu: '200m' } }], { activeDeadlineSeconds: 30 });
  assert.deepEqual(toWire(checkRequest(attrs, pods, [terminating], withDeadline, stored, Date.now()).get('t')!), { pods: '2' });
});

test('a quota\'s usage counted from the namespace\'s objects', async () => {
  const objects: Record<string, KubeObject[]> = {
    pods: [
      pod([{ name: 'a', requests: { cpu: '250m' } }]),
      pod([{ name: 'b', requests: { cpu: '250m' } }], {}, { phase: 'Succeeded' }),
    ],
    services: [
      { metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } },
      { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
    ],
    deployments: [{ metadata: { name: 'd' } }],
  };
  const quota: KubeObject = {
    metadata: { name: 'q' },
    spec: { hard: { pods: '10', 'count/pods': '10', 'requests.cpu': '4', 'services.nodeports': '5', 'services.loadbalancers': '1', 'count/deployments.apps': '2', secrets: '3' } },
  };
  const status = await computeQuotaStatus(quota, async (gr) => objects[gr.resource] ?? [], Date.now());
  assert.deepEqual(status, {
    hard: { 'count/deployments.apps': '2', 'count/pods': '10', pods: '10', 'requests.cpu': '4', secrets: '3', 'services.loadbalancers': '1', 'services.nodeports': '5' },
    used: { 'count/deployments.apps': '1', 'count/pods': '2', pods: '1', 'requests.cpu': '250m', secrets: '0', 'services.loadbalancers': '1', 'services.nodeports': '3' },
  });
});

test('a pod resized in place counts, in quota, the larger of what it asks for, runs with and was allocated; an infeasible resize what it runs with', () => {
  const pods = evaluatorFor({ group: '', resource: 'pods' });
  const pod = (conditions: unknown[] = []) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' },
    spec: {
      containers: [{ name: 'app', resources: { requests: { cpu: '900m', memory: '1Gi' }, limits: { cpu: '3', memory: '1Gi' } } }],
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
        { name: 'setup', resources: { requests: { cpu: '50m' } } },
      ],
    },
    status: {
      phase: 'Running',
      conditions,
      // Growing the app: the kubelet runs it with less than it asks for, and was allocated more memory.
      containerStatuses: [{ name: 'app', allocatedResources: { cpu: '500m', memory: '2Gi' }, resources: { requests: { cpu: '800m', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } }],
      initContainerStatuses: [
        { name: 'sidecar', resources: { requests: { cpu: '300m' } } },
        { name: 'setup', resources: { requests: { cpu: '2' } } },
      ],
    },
  } as unknown as KubeObject);
  const usage = (p: KubeObject) => toWire(pods.usage(p, Date.now()));
  const resizing = usage(pod());
  // app max(900m, 800m, 500m) + the sidecar's max(100m, 300m); a plain init container's status does not count.
  assert.equal(resizing['requests.cpu'], '1200m');
  assert.equal(resizing['requests.memory'], '2Gi');
  assert.equal(resizing['limits.cpu'], '3');
  // The kubelet found the resize infeasible: what the app runs with (and was allocated), not what it asks for.
  const infeasible = usage(pod([{ type: 'PodResizePending', status: 'True', reason: 'Infeasible' }]));
  assert.equal(infeasible['requests.cpu'], '1100m');
  assert.equal(infeasible['limits.cpu'], '2');
  assert.equal(infeasible['limits.memory'], '1Gi');
  // Without statuses, the spec's.
  const plain = usage({ ...pod(), status: { phase: 'Running' } } as KubeObject);
  assert.equal(plain['requests.cpu'], '1');
  assert.equal(plain['requests.memory'], '1Gi');
});
