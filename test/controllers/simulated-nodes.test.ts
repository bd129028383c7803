// Simulated kubelets over a real in-process server: nodes and their Leases, pods started
// with IPs from the node's pod CIDR, readiness gates, Job pods finishing or failing, and
// terminating pods removed after their (capped) grace period.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { SimulatedNodes, exitCodeAnnotation } from '../../src/controllers/simulated-nodes.ts';
import { simulatedNodeAnnotation } from '../../src/registry/builtin/nodes.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let nodes: SimulatedNodes;
const store = (resource: string, group = '') => server.registry.lookup(group, group === '' ? 'v1' : resource === 'leases' ? 'v1' : 'v1', resource)!.store;

before(async () => {
  server = await startServer({ enableGarbageCollector: false });
  nodes = new SimulatedNodes({
    count: 2, nodes: store('nodes'), leases: store('leases', 'coordination.k8s.io'), pods: store('pods'),
    log: () => {}, podRunMs: 300, maxGracePeriodMs: 300, leaseRenewMs: 100,
  });
  await nodes.start();
});
after(async () => {
  await nodes.close();
  await server.stop();
});

async function createPod(ns: string, name: string, extra: { spec?: Record<string, unknown>; metadata?: Record<string, unknown> } = {}): Promise<KubeObject> {
  return eventually(async () => {
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name, ...extra.metadata }, spec: { nodeName: 'sim-node-0', containers: [{ name: 'app', image: 'nginx:1.27' }], ...extra.spec } },
    });
    // The namespace's default ServiceAccount comes from its controller, a moment after the namespace.
    assert.equal(res.status, 201, res.text);
    return res.json as KubeObject;
  });
}

async function podStatus(ns: string, name: string): Promise<any> {
  const res = await server.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  assert.equal(res.status, 200, res.text);
  return res.json.status;
}

const condition = (status: any, type: string) => status.conditions?.find((c: { type: string }) => c.type === type);

describe('simulated nodes', () => {
  test('each node is Ready with capacity, addresses, a pod CIDR and the simulated annotation; its Lease is renewed', async () => {
    const node = (await server.request('GET', '/api/v1/nodes/sim-node-1')).json;
    assert.equal(node.metadata.annotations[simulatedNodeAnnotation], 'true');
    assert.equal(node.spec.podCIDR, '10.244.1.0/24');
    assert.deepEqual(condition(node.status, 'Ready').status, 'True');
    assert.deepEqual(node.status.addresses, [{ type: 'InternalIP', address: '172.18.0.3' }, { type: 'Hostname', address: 'sim-node-1' }]);
    assert.equal(node.status.allocatable.pods, '110');
    assert.equal(node.status.nodeInfo.kubeletVersion, 'v1.36.2');
    // What a v1.36 kubelet with default gates declares, sorted as it writes them.
    assert.deepEqual(node.status.declaredFeatures, [
      'ExtendWebSocketsToKubelet', 'InPlacePodLevelResourcesVerticalScaling', 'InPlacePodVerticalScalingInitContainers', 'RestartAllContainersOnContainerExits',
    ]);
    // TaintNodesByCondition created it tainted not-ready; Ready, it is lifted, as the node lifecycle controller does.
    assert.equal(node.spec.taints, undefined);
    const lease = (await server.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/sim-node-1')).json;
    assert.equal(lease.spec.holderIdentity, 'sim-node-1');
    assert.equal(lease.metadata.ownerReferences[0].uid, node.metadata.uid);
    await eventually(async () => {
      const later = (await server.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/sim-node-1')).json;
      assert.ok(Date.parse(later.spec.renewTime) > Date.parse(lease.spec.renewTime), 'renewTime moves on');
    });
  });

  test('a Node a client creates gets the not-ready taint; a pod the default not-ready and unreachable tolerations', async () => {
    const created = await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real-node' }, spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec.taints, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const pod = await createPod('default', 'tolerating', { spec: { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }] } });
    assert.deepEqual((pod.spec as { tolerations?: unknown }).tolerations, [
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  test('a pod bound to a node runs: phase, IPs from the pod CIDR, containers started and ready, Ready', async () => {
    const ns = await server.newNamespace('sim');
    await Promise.all(['a', 'b', 'c'].map((name) => createPod(ns, name)));
    const statuses = await eventually(async () => {
      const all = await Promise.all(['a', 'b', 'c'].map((name) => podStatus(ns, name)));
      for (const s of all) assert.equal(s.phase, 'Running');
      return all;
    });
    const ips = statuses.map((s) => s.podIP);
    assert.equal(new Set(ips).size, 3, `distinct pod IPs: ${ips}`);
    for (const s of statuses) {
      assert.match(s.podIP, /^10\.244\.0\.\d+$/);
      assert.deepEqual(s.podIPs, [{ ip: s.podIP }]);
      assert.equal(s.hostIP, '172.18.0.2');
      assert.ok(s.startTime);
      assert.equal(condition(s, 'Ready').status, 'True');
      assert.equal(condition(s, 'ContainersReady').status, 'True');
      assert.deepEqual([s.containerStatuses[0].name, s.containerStatuses[0].ready, s.containerStatuses[0].started, Object.keys(s.containerStatuses[0].state)], ['app', true, true, ['running']]);
    }
    const log = await server.request('GET', `/api/v1/namespaces/${ns}/pods/a/log`);
    assert.deepEqual([log.status, log.headers['content-type'], log.text], [200, 'text/plain', `container app of pod ${ns}/a runs on simulated node sim-node-0: nothing runs there, so it has no output\n`]);
  });

  test('readiness gates keep a running pod unready until their conditions are True', async () => {
    const ns = await server.newNamespace('sim');
    await createPod(ns, 'gated', { spec: { readinessGates: [{ conditionType: 'example.com/ready' }] } });
    const unready = await eventually(async () => {
      const s = await podStatus(ns, 'gated');
      assert.equal(s.phase, 'Running');
      return s;
    });
    assert.deepEqual([condition(unready, 'Ready').status, condition(unready, 'Ready').reason], ['False', 'ReadinessGatesNotReady']);
    assert.equal(condition(unready, 'Ready').message, 'corresponding condition of pod readiness gate "example.com/ready" does not exist.');
    const patched = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/gated/status`, {
      raw: JSON.stringify({ status: { conditions: [{ type: 'example.com/ready', status: 'True' }] } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    await eventually(async () => assert.equal(condition(await podStatus(ns, 'gated'), 'Ready').status, 'True'));
  });

  test('Job pods succeed after the run time; with a non-zero exit code and restartPolicy Never they fail', async () => {
    const ns = await server.newNamespace('sim');
    const owner = (name: string) => ({ ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name, uid: `uid-${name}`, controller: true }] });
    await createPod(ns, 'ok', { metadata: owner('ok'), spec: { restartPolicy: 'Never' } });
    await createPod(ns, 'bad', { metadata: { ...owner('bad'), annotations: { [exitCodeAnnotation]: '3' } }, spec: { restartPolicy: 'Never' } });
    const [ok, bad] = await eventually(async () => {
      const both = await Promise.all([podStatus(ns, 'ok'), podStatus(ns, 'bad')]);
      assert.deepEqual(both.map((s) => s.phase), ['Succeeded', 'Failed']);
      return both;
    });
    assert.deepEqual(ok.containerStatuses[0].state.terminated.exitCode, 0);
    assert.deepEqual(ok.containerStatuses[0].state.terminated.reason, 'Completed');
    assert.deepEqual([bad.containerStatuses[0].state.terminated.exitCode, bad.containerStatuses[0].state.terminated.reason], [3, 'Error']);
    assert.deepEqual([condition(ok, 'Ready').status, condition(ok, 'Ready').reason], ['False', 'PodCompleted']);
  });

  test('a running pod reports its containers\' resources and acts on a resize (pods/resize)', async () => {
    const ns = await server.newNamespace('sim-resize');
    const resources = { requests: { cpu: '100m', memory: '64Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '200m' } };
    await createPod(ns, 'r', { spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources }] } });
    const running = await eventually(async () => {
      const s = await podStatus(ns, 'r');
      assert.equal(s.phase, 'Running');
      return s;
    });
    assert.equal(running.observedGeneration, 1);
    assert.deepEqual(running.containerStatuses[0].resources, { limits: { cpu: '200m' }, requests: { cpu: '100m', memory: '64Mi' } });
    assert.deepEqual(running.containerStatuses[0].allocatedResources, resources.requests);

    const resized = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/r/resize`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '150m' }, limits: { cpu: '300m' } } }] } },
    });
    assert.equal(resized.status, 200, resized.text);
    assert.equal(resized.json.metadata.generation, 2);
    await eventually(async () => {
      const s = await podStatus(ns, 'r');
      assert.equal(s.observedGeneration, 2);
      assert.deepEqual(s.containerStatuses[0].resources, { limits: { cpu: '300m' }, requests: { cpu: '150m', memory: '64Mi' } });
      assert.equal(s.containerStatuses[0].allocatedResources.cpu, '150m');
    });

    // PodResizeValidator: more than the node's 32 CPUs does not fit.
    const tooBig = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/r/resize`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '40' }, limits: { cpu: '40' } } }] } },
    });
    assert.equal(tooBig.status, 403, tooBig.text);
    assert.equal(tooBig.json.message, 'pods "r" is forbidden: Node didn\'t have enough allocatable resources: cpu, requested: 40000, allocatable: 32000');
    assert.deepEqual(tooBig.json.details.causes, [{ reason: 'NodeCapacity' }]);
  });

  test('resizing an init container passes on a simulated node, which declares it; a node that declares nothing refuses (NodeDeclaredFeatureValidator)', async () => {
    const ns = await server.newNamespace('sim-declared');
    const init = { name: 'setup', image: 'busybox:1.36', resources: { requests: { cpu: '100m' }, limits: { cpu: '100m' } } };
    const resizeInit = (name: string) => server.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/resize`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { initContainers: [{ name: 'setup', resources: { requests: { cpu: '200m' }, limits: { cpu: '200m' } } }] } },
    });
    await createPod(ns, 'sim', { spec: { initContainers: [init] } });
    await eventually(async () => assert.equal((await podStatus(ns, 'sim')).phase, 'Running'));
    const passed = await resizeInit('sim');
    assert.equal(passed.status, 200, passed.text);
    assert.equal(passed.json.spec.initContainers[0].resources.requests.cpu, '200m');

    // A Node a client made, declaring nothing: the same resize is refused, before
    // PodResizeValidator would refuse it for the node's missing allocatable (upstream's order).
    const bare = await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'undeclared-node' } } });
    assert.equal(bare.status, 201, bare.text);
    await createPod(ns, 'elsewhere', { spec: { nodeName: 'undeclared-node', initContainers: [init] } });
    const refused = await resizeInit('elsewhere');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'pods "elsewhere" is forbidden: pod update requires features InPlacePodVerticalScalingInitContainers which are not available on node "undeclared-node"');
  });

  test('a pod deleted with a 30 s grace period is removed after the capped grace', async () => {
    const ns = await server.newNamespace('sim');
    await createPod(ns, 'going');
    await eventually(async () => assert.equal((await podStatus(ns, 'going')).phase, 'Running'));
    const deleted = await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/going`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.ok(deleted.json.metadata.deletionTimestamp, 'a bound running pod is deleted gracefully');
    await eventually(async () => assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/going`)).status, 404), { timeoutMs: 5000 });
  });
});
