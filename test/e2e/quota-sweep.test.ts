// ResourceQuota and LimitRanger admission against upstream's words, case by case: the
// "exceeded quota" and "failed quota" refusals, what each evaluator counts (pods and their
// scopes, services, claims, extended resources, count/<resource>.<group>), updates that use
// more, the status the server keeps, LimitRange defaults and refusals, and the validation
// words of both kinds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type Response, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

type Json = Record<string, unknown>;

function pod(name: string, resources?: Json, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'x', ...(resources ? { resources } : {}) }], ...spec } };
}

function claim(name: string, storage: string, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...spec } };
}

function quota(name: string, spec: Json): Json {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec };
}

function limitRange(name: string, limits: Json[]): Json {
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } };
}

const create = (ns: string, resource: string, body: unknown, query = '') => server.request('POST', `/api/v1/namespaces/${ns}/${resource}${query}`, { body });

const mergePatch = (urlPath: string, body: unknown) => server.request('PATCH', urlPath, { headers: { 'content-type': 'application/merge-patch+json' }, body });

async function used(ns: string, name: string): Promise<Record<string, string>> {
  return (await server.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status?.used;
}

async function created(res: Promise<Response>): Promise<void> {
  const r = await res;
  assert.equal(r.status, 201, r.text);
}

async function forbidden(res: Promise<Response>, message: string): Promise<void> {
  const r = await res;
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.reason, 'Forbidden');
  assert.equal(r.json.message, message);
}

describe('ResourceQuota admission', () => {
  test('exceeded quota names only the resources over their limit, sorted, quantities canonical', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { pods: '10', 'requests.memory': '1Gi', 'requests.cpu': '0.5', 'limits.cpu': '1' } })));
    await forbidden(create(ns, 'pods', pod('big', { requests: { memory: '2Gi', cpu: '1' }, limits: { cpu: '2', memory: '3Gi' } })),
      'pods "big" is forbidden: exceeded quota: q, requested: limits.cpu=2,requests.cpu=1,requests.memory=2Gi, '
      + 'used: limits.cpu=0,requests.cpu=0,requests.memory=0, limited: limits.cpu=1,requests.cpu=500m,requests.memory=1Gi');
    await created(create(ns, 'pods', pod('a', { requests: { cpu: '0.25', memory: '512Mi' }, limits: { cpu: '0.5' } })));
    await forbidden(create(ns, 'pods', pod('b', { requests: { cpu: '0.3', memory: '1Mi' }, limits: { cpu: '0.3' } })),
      'pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=300m, used: requests.cpu=250m, limited: requests.cpu=500m');
    assert.deepEqual(await used(ns, 'q'), { 'limits.cpu': '500m', pods: '1', 'requests.cpu': '250m', 'requests.memory': '512Mi' });
  });

  test('failed quota: each missing resource with the containers and init containers that lack it', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { cpu: '2', 'limits.memory': '1Gi', 'requests.storage': '1Gi' } })));
    const body = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: {
        containers: [{ name: 'b', image: 'x' }, { name: 'a', image: 'x', resources: { requests: { cpu: '100m' } } }],
        initContainers: [{ name: 'i', image: 'x', resources: { limits: { memory: '64Mi' } } }],
      },
    };
    await forbidden(create(ns, 'pods', body), 'pods "p" is forbidden: failed quota: q: must specify cpu for: b,i; limits.memory for: a,b');
  });

  test('every quota that counts the object must admit it; a refused create charges none', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('a', { hard: { pods: '5' } })));
    await created(create(ns, 'resourcequotas', quota('b', { hard: { 'count/pods': '1' } })));
    await created(create(ns, 'pods', pod('p1')));
    await forbidden(create(ns, 'pods', pod('p2')), 'pods "p2" is forbidden: exceeded quota: b, requested: count/pods=1, used: count/pods=1, limited: count/pods=1');
    assert.deepEqual(await used(ns, 'a'), { pods: '1' });
    assert.deepEqual(await used(ns, 'b'), { 'count/pods': '1' });
  });

  test('count/<resource>.<group> counts the objects of any resource', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'count/deployments.apps': '1' } })));
    const deployment = (name: string) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    const post = (name: string) => server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(name) });
    await created(post('d1'));
    const refused = post('d2');
    await forbidden(refused, 'deployments.apps "d2" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');
    assert.deepEqual((await refused).json.details, { name: 'd2', group: 'apps', kind: 'deployments' }, 'admission.NewForbidden\'s details');
  });

  test('virtual resources that are never stored are not counted (upstream\'s ignored resources)', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'count/localsubjectaccessreviews.authorization.k8s.io': '0', 'count/bindings': '0' } })));
    const review = await server.request('POST', `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`, {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec: { user: 'u', resourceAttributes: { namespace: ns, verb: 'get', resource: 'pods' } } },
    });
    assert.equal(review.status, 201, review.text);
    await created(create(ns, 'pods', pod('p')));
    await created(create(ns, 'bindings', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } }));
  });

  test('services: node ports per port, load balancers, and only the explicit node ports of a balancer that allocates none', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { services: '5', 'services.nodeports': '1', 'services.loadbalancers': '1' } })));
    const service = (name: string, spec: Json) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
    await forbidden(create(ns, 'services', service('np', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] })),
      'services "np" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    await created(create(ns, 'services', service('lb', {
      type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ name: 'a', port: 80, nodePort: 30080 }, { name: 'b', port: 81 }],
    })));
    assert.deepEqual(await used(ns, 'q'), { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
    await forbidden(create(ns, 'services', service('lb2', { type: 'LoadBalancer', ports: [{ port: 80 }] })),
      'services "lb2" is forbidden: exceeded quota: q, requested: services.loadbalancers=1,services.nodeports=1, '
      + 'used: services.loadbalancers=1,services.nodeports=1, limited: services.loadbalancers=1,services.nodeports=1');
  });

  test('claims: storage and claims per storage class, storage in whole bytes', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', {
      hard: { 'requests.storage': '10Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi', 'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1' },
    })));
    await forbidden(create(ns, 'persistentvolumeclaims', claim('big', '2Gi', { storageClassName: 'gold' })),
      'persistentvolumeclaims "big" is forbidden: exceeded quota: q, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, '
      + 'used: gold.storageclass.storage.k8s.io/requests.storage=0, limited: gold.storageclass.storage.k8s.io/requests.storage=1Gi');
    await created(create(ns, 'persistentvolumeclaims', claim('a', '1Gi', { storageClassName: 'gold' })));
    await forbidden(create(ns, 'persistentvolumeclaims', claim('b', '1Mi', { storageClassName: 'gold' })),
      'persistentvolumeclaims "b" is forbidden: exceeded quota: q, '
      + 'requested: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=1Mi, '
      + 'used: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=1Gi, '
      + 'limited: gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=1Gi');

    // getStorageUsage rounds a request up to whole bytes (issue 94313).
    const other = await server.newNamespace('rqs');
    await created(create(other, 'resourcequotas', quota('q', { hard: { 'requests.storage': '10Gi' } })));
    await created(create(other, 'persistentvolumeclaims', claim('frac', '1500m')));
    assert.deepEqual(await used(other, 'q'), { 'requests.storage': '2' });
  });

  test('a claim\'s status.allocatedResources counts when larger; a status update is charged, never refused, and recounted when it shrinks', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'requests.storage': '5Gi' } })));
    await created(create(ns, 'persistentvolumeclaims', claim('a', '2Gi')));
    const status = (body: Json) => mergePatch(`/api/v1/namespaces/${ns}/persistentvolumeclaims/a/status`, { status: body });
    const grown = await status({ phase: 'Bound', allocatedResources: { storage: '6Gi' } });
    assert.equal(grown.status, 200, grown.text);
    assert.deepEqual(await used(ns, 'q'), { 'requests.storage': '6Gi' });
    assert.equal((await status({ allocatedResources: { storage: '3Gi' } })).status, 200);
    await eventually(async () => assert.deepEqual(await used(ns, 'q'), { 'requests.storage': '3Gi' }, 'recounted by the controller'));
  });

  test('a claim grows only as far as its quota lets it', async () => {
    const ns = await server.newNamespace('rqs');
    const cls = `${ns}-expandable`;
    const sc = await server.request('POST', '/apis/storage.k8s.io/v1/storageclasses', {
      body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'example.com/p', allowVolumeExpansion: true },
    });
    assert.equal(sc.status, 201, sc.text);
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'requests.storage': '5Gi' } })));
    await created(create(ns, 'persistentvolumeclaims', claim('a', '2Gi', { storageClassName: cls })));
    assert.equal((await mergePatch(`/api/v1/namespaces/${ns}/persistentvolumeclaims/a/status`, { status: { phase: 'Bound' } })).status, 200);
    const expand = (storage: string) => mergePatch(`/api/v1/namespaces/${ns}/persistentvolumeclaims/a`, { spec: { resources: { requests: { storage } } } });
    await forbidden(expand('6Gi'), 'persistentvolumeclaims "a" is forbidden: exceeded quota: q, requested: requests.storage=4Gi, used: requests.storage=2Gi, limited: requests.storage=5Gi');
    const ok = await expand('3Gi');
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(await used(ns, 'q'), { 'requests.storage': '3Gi' });
  });

  test('the VolumeAttributesClass scope counts the claims that refer to the class', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('gold', {
      hard: { persistentvolumeclaims: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'VolumeAttributesClass', operator: 'In', values: ['gold'] }] },
    })));
    await created(create(ns, 'persistentvolumeclaims', claim('plain', '1Mi')));
    await created(create(ns, 'persistentvolumeclaims', claim('a', '1Mi', { volumeAttributesClassName: 'gold' })));
    await forbidden(create(ns, 'persistentvolumeclaims', claim('b', '1Mi', { volumeAttributesClassName: 'gold' })),
      'persistentvolumeclaims "b" is forbidden: exceeded quota: gold, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1');
    assert.deepEqual(await used(ns, 'gold'), { persistentvolumeclaims: '1' });
  });

  test('extended resources, huge pages and device classes count as requests.<name>', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', {
      hard: { 'requests.example.com/gpu': '1', 'requests.hugepages-2Mi': '2Mi', 'requests.deviceclass.resource.kubernetes.io/gpu': '1' },
    })));
    await forbidden(create(ns, 'pods', pod('gpu', { requests: { 'example.com/gpu': '2' }, limits: { 'example.com/gpu': '2' } })),
      'pods "gpu" is forbidden: exceeded quota: q, requested: requests.example.com/gpu=2, used: requests.example.com/gpu=0, limited: requests.example.com/gpu=1');
    await forbidden(create(ns, 'pods', pod('hp', { requests: { 'hugepages-2Mi': '4Mi', cpu: '1' }, limits: { 'hugepages-2Mi': '4Mi', cpu: '1' } })),
      'pods "hp" is forbidden: exceeded quota: q, requested: requests.hugepages-2Mi=4Mi, used: requests.hugepages-2Mi=0, limited: requests.hugepages-2Mi=2Mi');
    await forbidden(create(ns, 'pods', pod('dra', { requests: { 'deviceclass.resource.kubernetes.io/gpu': '2' } })),
      'pods "dra" is forbidden: exceeded quota: q, requested: requests.deviceclass.resource.kubernetes.io/gpu=2, '
      + 'used: requests.deviceclass.resource.kubernetes.io/gpu=0, limited: requests.deviceclass.resource.kubernetes.io/gpu=1');
    await created(create(ns, 'pods', pod('one', { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } })));
    assert.deepEqual(await used(ns, 'q'), { 'requests.deviceclass.resource.kubernetes.io/gpu': '0', 'requests.example.com/gpu': '1', 'requests.hugepages-2Mi': '0' });
  });

  test('pod-level resources are what the pod uses, and containers need not name them', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' } })));
    const withPodLevel = (name: string) => pod(name, undefined, { resources: { requests: { cpu: '600m' }, limits: { memory: '512Mi' } } });
    await created(create(ns, 'pods', withPodLevel('a')));
    assert.deepEqual(await used(ns, 'q'), { 'limits.memory': '512Mi', 'requests.cpu': '600m' });
    await forbidden(create(ns, 'pods', withPodLevel('b')), 'pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
  });

  test('Terminating and NotTerminating scopes; a pod given a deadline moves into Terminating and is charged', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('term', { hard: { pods: '1' }, scopes: ['Terminating'] })));
    await created(create(ns, 'resourcequotas', quota('long', { hard: { pods: '1' }, scopes: ['NotTerminating'] })));
    await created(create(ns, 'pods', pod('t1', undefined, { activeDeadlineSeconds: 60 })));
    await created(create(ns, 'pods', pod('n1')));
    await forbidden(create(ns, 'pods', pod('t2', undefined, { activeDeadlineSeconds: 60 })), 'pods "t2" is forbidden: exceeded quota: term, requested: pods=1, used: pods=1, limited: pods=1');
    await forbidden(create(ns, 'pods', pod('n2')), 'pods "n2" is forbidden: exceeded quota: long, requested: pods=1, used: pods=1, limited: pods=1');
    await forbidden(mergePatch(`/api/v1/namespaces/${ns}/pods/n1`, { spec: { activeDeadlineSeconds: 30 } }),
      'pods "n1" is forbidden: exceeded quota: term, requested: pods=1, used: pods=1, limited: pods=1');
    assert.deepEqual(await used(ns, 'term'), { pods: '1' });
    assert.deepEqual(await used(ns, 'long'), { pods: '1' });
  });

  test('PriorityClass scope selectors: In, NotIn (pods without a class too), Exists, DoesNotExist', async () => {
    const ns = await server.newNamespace('rqs');
    for (const [name, value] of [[`${ns}-high`, 1000], [`${ns}-low`, 10]] as const) {
      const res = await server.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
        body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value },
      });
      assert.equal(res.status, 201, res.text);
    }
    const selector = (operator: string, values?: string[]) => ({ matchExpressions: [{ scopeName: 'PriorityClass', operator, ...(values ? { values } : {}) }] });
    await created(create(ns, 'resourcequotas', quota('dne', { hard: { pods: '1' }, scopeSelector: selector('DoesNotExist') })));
    await created(create(ns, 'resourcequotas', quota('exists', { hard: { pods: '2' }, scopeSelector: selector('Exists') })));
    await created(create(ns, 'resourcequotas', quota('in', { hard: { pods: '1' }, scopeSelector: selector('In', [`${ns}-high`]) })));
    await created(create(ns, 'resourcequotas', quota('notin', { hard: { pods: '1' }, scopeSelector: selector('NotIn', [`${ns}-high`]) })));
    await created(create(ns, 'pods', pod('h1', undefined, { priorityClassName: `${ns}-high` })));
    await forbidden(create(ns, 'pods', pod('h2', undefined, { priorityClassName: `${ns}-high` })), 'pods "h2" is forbidden: exceeded quota: in, requested: pods=1, used: pods=1, limited: pods=1');
    await created(create(ns, 'pods', pod('l1', undefined, { priorityClassName: `${ns}-low` })));
    await forbidden(create(ns, 'pods', pod('none')), 'pods "none" is forbidden: exceeded quota: notin, requested: pods=1, used: pods=1, limited: pods=1');
    assert.deepEqual(
      Object.fromEntries(await Promise.all(['dne', 'exists', 'in', 'notin'].map(async (q) => [q, (await used(ns, q)).pods]))),
      { dne: '0', exists: '2', in: '1', notin: '1' },
    );
  });

  test('CrossNamespacePodAffinity and NotBestEffort scopes', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('xns', { hard: { pods: '0' }, scopes: ['CrossNamespacePodAffinity'] })));
    await created(create(ns, 'resourcequotas', quota('nbe', { hard: { 'requests.cpu': '100m' }, scopes: ['NotBestEffort'] })));
    const affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'zone', namespaceSelector: {} } }] } };
    await forbidden(create(ns, 'pods', pod('x', undefined, { affinity })), 'pods "x" is forbidden: exceeded quota: xns, requested: pods=1, used: pods=0, limited: pods=0');
    await created(create(ns, 'pods', pod('best-effort')));
    await forbidden(create(ns, 'pods', pod('burstable', { requests: { cpu: '200m' } })),
      'pods "burstable" is forbidden: exceeded quota: nbe, requested: requests.cpu=200m, used: requests.cpu=0, limited: requests.cpu=100m');
  });

  test('a dry-run resize is checked but charges nothing', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'requests.cpu': '1' } })));
    await created(create(ns, 'pods', pod('p', { requests: { cpu: '400m' } })));
    const resize = (cpu: string, query = '') => server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/resize${query}`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu } } }] } },
    });
    await forbidden(resize('2', '?dryRun=All'), 'pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=1600m, used: requests.cpu=400m, limited: requests.cpu=1');
    const dry = await resize('800m', '?dryRun=All');
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(await used(ns, 'q'), { 'requests.cpu': '400m' });
  });

  test('status.used follows deletes of every counted kind', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { services: '2', 'services.nodeports': '2', secrets: '5' } })));
    await created(create(ns, 'services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }));
    await created(create(ns, 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }));
    assert.deepEqual(await used(ns, 'q'), { secrets: '1', services: '1', 'services.nodeports': '1' });
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/services/s`)).status, 200);
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/x`)).status, 200);
    await eventually(async () => assert.deepEqual(await used(ns, 'q'), { secrets: '0', services: '0', 'services.nodeports': '0' }));
  });

  test('usage whose sum is no whole number of Ki keeps resource.Quantity\'s plain digits', async () => {
    const ns = await server.newNamespace('rqs');
    await created(create(ns, 'resourcequotas', quota('q', { hard: { 'requests.memory': '2Gi' } })));
    await created(create(ns, 'pods', pod('a', { requests: { memory: '512Mi' } })));
    await created(create(ns, 'pods', pod('b', { requests: { memory: '500M' } })));
    assert.deepEqual(await used(ns, 'q'), { 'requests.memory': '1036870912' });
  });
});

describe('ResourceQuota validation', () => {
  test('spec.hard: names, negative and fractional counts', async () => {
    const ns = await server.newNamespace('rqv');
    const res = await create(ns, 'resourcequotas', quota('bad', {
      hard: { pods: '1.5', 'count/deployments.apps': '0.5', services: '-1', foo: '1', 'requests.example.com/gpu': '0.5' },
    }));
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: Json) => `${c.field}: ${c.message}`), [
      'spec.hard[pods]: Invalid value: "1500m": must be an integer',
      'spec.hard[count/deployments.apps]: Invalid value: "500m": must be an integer',
      'spec.hard[services]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
    ]);
  });

  test('scopes and scope selectors', async () => {
    const ns = await server.newNamespace('rqv');
    const scopes = await create(ns, 'resourcequotas', quota('a', { hard: { 'requests.storage': '1' }, scopes: ['Terminating', 'Foo', 'NotTerminating'] }));
    assert.equal(scopes.status, 422, scopes.text);
    const bad = 'spec.scopes: Invalid value: ["Terminating","Foo","NotTerminating"]';
    assert.deepEqual(scopes.json.details.causes.map((c: Json) => `${c.field}: ${c.message}`), [
      `${bad}: unsupported scope applied to resource`, `${bad}: unsupported scope`, `${bad}: unsupported scope applied to resource`, `${bad}: conflicting scopes`,
    ]);
    // The message is the ErrorList's aggregate: a repeated error once.
    assert.equal(scopes.json.message, `ResourceQuota "a" is invalid: [${bad}: unsupported scope applied to resource, ${bad}: unsupported scope, ${bad}: conflicting scopes]`);

    const selector = await create(ns, 'resourcequotas', quota('b', {
      hard: { pods: '1' },
      scopeSelector: {
        matchExpressions: [
          { scopeName: 'BestEffort', operator: 'In', values: ['x'] },
          { scopeName: 'PriorityClass', operator: 'NotIn' },
          { scopeName: 'PriorityClass', operator: 'DoesNotExist', values: ['x'] },
          { scopeName: 'PriorityClass', operator: 'Gt', values: ['1'] },
        ],
      },
    }));
    assert.equal(selector.status, 422, selector.text);
    assert.deepEqual(selector.json.details.causes.map((c: Json) => `${c.field}: ${c.message}`), [
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be \'Exists\' when scope is any of ResourceQuotaScopeTerminating, '
      + 'ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity',
      'spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is \'In\' or \'NotIn\' for scope selector',
      'spec.scopeSelector.matchExpressions.values: Invalid value: ["x"]: must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector',
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "Gt": not a valid selector operator',
    ]);

    const storage = await create(ns, 'resourcequotas', quota('c', {
      hard: { 'requests.storage': '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] },
    }));
    assert.equal(storage.status, 422, storage.text);
    assert.equal(storage.json.message, 'ResourceQuota "c" is invalid: spec.scopeSelector.matchExpressions: '
      + 'Invalid value: {"MatchExpressions":[{"ScopeName":"PriorityClass","Operator":"Exists","Values":null}]}: unsupported scope applied to resource');
  });
});

describe('LimitRanger', () => {
  test('defaults for containers and init containers, named in the annotation', async () => {
    const ns = await server.newNamespace('lrs');
    await created(create(ns, 'limitranges', limitRange('l', [{ type: 'Container', default: { cpu: '400m' }, defaultRequest: { cpu: '200m' } }])));
    const res = await create(ns, 'pods', pod('p', { requests: { memory: '1Mi' } }, { initContainers: [{ name: 'i', image: 'x' }] }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.spec.containers[0].resources, { limits: { cpu: '400m' }, requests: { cpu: '200m', memory: '1Mi' } });
    assert.deepEqual(res.json.spec.initContainers[0].resources, { limits: { cpu: '400m' }, requests: { cpu: '200m' } });
    assert.equal(res.json.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu request for container c; cpu limit for container c; cpu request for init container i; cpu limit for init container i');
  });

  test('min, max and limit/request ratio refusals, several at once in brackets', async () => {
    const ns = await server.newNamespace('lrs');
    await created(create(ns, 'limitranges', limitRange('l', [
      { type: 'Container', max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '2' } },
      { type: 'Pod', min: { memory: '64Mi' } },
    ])));
    await forbidden(create(ns, 'pods', pod('ratio', { requests: { cpu: '250m', memory: '100Mi' }, limits: { cpu: '1' } })),
      'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000');
    await forbidden(create(ns, 'pods', pod('max', { requests: { cpu: '250m', memory: '100Mi' }, limits: { cpu: '2' } })),
      'pods "max" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 2, but provided ratio is 8.000000]');
    await forbidden(create(ns, 'pods', pod('small', { requests: { cpu: '500m', memory: '10Mi' }, limits: { cpu: '1' } })),
      'pods "small" is forbidden: minimum memory usage per Pod is 64Mi, but request is 10Mi');
    await forbidden(create(ns, 'pods', pod('none', { requests: { cpu: '500m' }, limits: { cpu: '1' } })),
      'pods "none" is forbidden: minimum memory usage per Pod is 64Mi.  No request is specified');
  });

  test('a Pod item reads the pod-level cpu and memory where the pod sets them', async () => {
    const ns = await server.newNamespace('lrs');
    await created(create(ns, 'limitranges', limitRange('l', [{ type: 'Pod', min: { memory: '64Mi' }, max: { cpu: '1' } }])));
    await created(create(ns, 'pods', pod('p', undefined, { resources: { requests: { memory: '100Mi' }, limits: { cpu: '500m' } } })));
    await forbidden(create(ns, 'pods', pod('q', { requests: { memory: '100Mi' }, limits: { cpu: '500m' } }, { resources: { limits: { cpu: '2' } } })),
      'pods "q" is forbidden: maximum cpu usage per Pod is 1, but limit is 2');
  });

  test('claims: storage min and max', async () => {
    const ns = await server.newNamespace('lrs');
    await created(create(ns, 'limitranges', limitRange('l', [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '5Gi' } }])));
    await forbidden(create(ns, 'persistentvolumeclaims', claim('small', '500Mi')),
      'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    await forbidden(create(ns, 'persistentvolumeclaims', claim('big', '10Gi')),
      'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi');
    await created(create(ns, 'persistentvolumeclaims', claim('ok', '2Gi')));
  });

  test('LimitRange validation words', async () => {
    const ns = await server.newNamespace('lrs');
    const res = await create(ns, 'limitranges', limitRange('bad', [
      { type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, default: { cpu: '3' }, defaultRequest: { cpu: '500m' }, maxLimitRequestRatio: { cpu: '500m' } },
      { type: 'Pod', default: { cpu: '1' } },
      { type: 'PersistentVolumeClaim' },
      { type: 'Container' },
      { type: 'foo' },
    ]));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.message, 'LimitRange "bad" is invalid: ['
      + 'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1, '
      + 'spec.limits[0].defaultRequest[cpu]: Invalid value: "500m": min value 2 is greater than default request value 500m, '
      + 'spec.limits[0].default[cpu]: Invalid value: "1": default value 3 is greater than max value 1, '
      + 'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1, '
      + 'spec.limits[1].default: Forbidden: may not be specified when `type` is \'Pod\', '
      + 'spec.limits[2].limits: Required value: either minimum or maximum storage value is required, but neither was provided, '
      + 'spec.limits[3].type: Duplicate value: "Container", '
      + 'spec.limits[4].type: Invalid value: "foo": must be a standard limit type or fully qualified]');

    const ratio = await create(ns, 'limitranges', limitRange('ratio', [
      { type: 'Container', min: { cpu: '1' }, max: { cpu: '3' }, maxLimitRequestRatio: { cpu: '4' }, default: { 'example.com/gpu': '2' }, defaultRequest: { 'example.com/gpu': '1' } },
    ]));
    assert.equal(ratio.status, 422, ratio.text);
    assert.equal(ratio.json.message, 'LimitRange "ratio" is invalid: ['
      + 'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "4": ratio 4 is greater than max/min = 3.000000, '
      + 'spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: "1": default value 2 must equal to defaultRequest value 1 in example.com/gpu]');
  });
});
