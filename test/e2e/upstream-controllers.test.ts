// A cluster that moves: Plinth with three simulated nodes, upstream's kube-controller-manager
// (every controller, each with its own service-account credentials) and kube-scheduler,
// driven with kubectl as a user would. Deployments roll out, scale, update and roll back,
// Services get EndpointSlices with the pods' IPs, Jobs complete, CronJobs make Jobs,
// StatefulSets make their pods in order with their claims bound, DaemonSets put a pod on
// every node, and deletion cascades.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { startControllerManager, startScheduler, upstreamComponentsUnavailable, type UpstreamComponent } from '../helpers/upstream-components.ts';

const skip = needsKubectl.skip || upstreamComponentsUnavailable();
const slow = { timeoutMs: 90_000 };

/** klog lines that say nothing about Plinth: the components' own environment, and transient informer lag upstream logs too. */
const benign = [
  /The manifest file is empty, ignoring/,
  /Flexvolume plugin directory/,
  /is not as new as written version/,
  /Neither --kubeconfig nor --master was specified/,
  // An object deleted (its namespace going) while its controller synced it: upstream's race too.
  /"Unhandled Error" err="sync \\"[^"\\]+\\" failed with [a-z.]+ \\"[^"\\]+\\" not found"/,
  // A controller writing into a namespace being deleted: kube-apiserver refuses it the same way.
  /unable to create new content in namespace [a-z0-9-]+ because it is being terminated/,
  // The ReplicaSet controller's status write losing the race with the Deployment controller's
  // write of the same ReplicaSet (optimistic concurrency): it syncs again, as against
  // kube-apiserver. Seen once, in a full parallel run of the suite.
  /"Unhandled Error" err="sync \\"[^"\\]+\\" failed with Operation cannot be fulfilled on replicasets\.apps \\"[^"\\]+\\": the object has been modified/,
];

describe('upstream controllers and scheduler on simulated nodes', { skip, timeout: 600_000 }, () => {
  let server: TestServer;
  let controllerManager: UpstreamComponent;
  let scheduler: UpstreamComponent;
  let ns: string;
  const k = (...args: string[]) => kubectl(server, '-n', ns, ...args);
  const jsonpath = async (query: string, ...args: string[]) => (await k('get', ...args, '-o', `jsonpath=${query}`)).trim();

  before(async () => {
    // Plinth's own controllers off (an empty --controllers), as the README advises: upstream's do all the work.
    server = await startServer({ simulatedNodes: 3, simulatedPodRunMs: 1000, controllers: [] });
    // The service-account signing key is made on first use; the controller manager signs its controllers' tokens with it.
    // (No ServiceAccount controller runs yet: the token is for an account made here.)
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'key-maker' } } })).status, 201);
    const token = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/key-maker/token', { body: { spec: {} } });
    assert.equal(token.status, 201, token.text);
    const pki = (file: string) => path.join(server.dataDir, 'pki', file);
    controllerManager = startControllerManager({ kubeconfig: server.kubeconfigPath, serviceAccountKeyFile: pki('sa.key'), rootCaFile: pki('ca.crt') });
    scheduler = startScheduler({ kubeconfig: server.kubeconfigPath });
    ns = await server.newNamespace('moving');
  });
  after(async () => {
    await Promise.all([controllerManager?.stop(), scheduler?.stop()]);
    await server?.stop();
  });

  test('three simulated nodes are Ready', async () => {
    const ready = await kubectl(server, 'get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}');
    assert.deepEqual(ready.trim().split(' ').sort(), ['sim-node-0=True', 'sim-node-1=True', 'sim-node-2=True']);
  });

  test('a Deployment rolls out, scales, updates its image, shows its history and rolls back', async () => {
    await k('create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3');
    const running = async (count: number) => eventually(async () => {
      const phases = (await jsonpath('{.items[*].status.phase}', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running')).split(' ').filter(Boolean);
      assert.equal(phases.length, count);
    }, slow);
    await running(3);
    await k('scale', 'deployment', 'web', '--replicas=5');
    await running(5);
    await k('rollout', 'status', 'deployment/web', '--timeout=90s');

    await k('set', 'image', 'deployment/web', 'nginx=nginx:1.28');
    await k('rollout', 'status', 'deployment/web', '--timeout=90s');
    assert.equal(await jsonpath('{.spec.template.spec.containers[0].image}', 'deployment', 'web'), 'nginx:1.28');
    const history = await k('rollout', 'history', 'deployment/web');
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);

    await k('rollout', 'undo', 'deployment/web');
    await k('rollout', 'status', 'deployment/web', '--timeout=90s');
    assert.equal(await jsonpath('{.spec.template.spec.containers[0].image}', 'deployment', 'web'), 'nginx:1.27');
    await eventually(async () => {
      const images = (await jsonpath('{.items[*].spec.containers[0].image}', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running')).split(' ');
      assert.deepEqual([...new Set(images)], ['nginx:1.27']);
      assert.equal(images.length, 5);
    }, slow);
  });

  test('a Service gets EndpointSlices with its ready pods\' IPs', async () => {
    await k('create', 'deployment', 'api', '--image=nginx:1.27', '--replicas=2', '--port=80');
    await k('expose', 'deployment', 'api', '--port=80');
    await eventually(async () => {
      const podIPs = (await jsonpath('{.items[*].status.podIP}', 'pods', '-l', 'app=api', '--field-selector=status.phase=Running')).split(' ').filter(Boolean).sort();
      assert.equal(podIPs.length, 2);
      const sliceIPs = (await jsonpath('{.items[*].endpoints[*].addresses[0]}', 'endpointslices', '-l', 'kubernetes.io/service-name=api')).split(' ').filter(Boolean).sort();
      assert.deepEqual(sliceIPs, podIPs);
      for (const ip of podIPs) assert.match(ip, /^10\.244\.\d+\.\d+$/);
    }, slow);
  });

  test('a Job completes', async () => {
    await k('create', 'job', 'once', '--image=busybox:1.36', '--', 'echo', 'hello');
    await k('wait', '--for=condition=complete', 'job/once', '--timeout=90s');
    assert.equal(await jsonpath('{.status.succeeded}', 'job', 'once'), '1');
    const log = await k('logs', 'job/once');
    assert.match(log, /simulated node sim-node-\d/);
  });

  test('a CronJob creates a Job', async () => {
    await k('create', 'cronjob', 'tick', '--image=busybox:1.36', '--schedule=* * * * *', '--', 'date');
    // It runs at the next minute boundary.
    await eventually(async () => {
      const owners = (await jsonpath('{.items[*].metadata.ownerReferences[0].name}', 'jobs')).split(' ');
      assert.ok(owners.includes('tick'), `jobs owned by: ${owners}`);
    }, { timeoutMs: 100_000 });
  });

  test('a StatefulSet with volumeClaimTemplates makes its pods in order, with their claims bound', async () => {
    const manifest = {
      apiVersion: 'apps/v1', kind: 'StatefulSet',
      metadata: { name: 'db', namespace: ns },
      spec: {
        serviceName: 'db', replicas: 2, selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:17', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    };
    const created = await server.request('POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, { body: manifest });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => {
      assert.equal(await jsonpath('{.status.readyReplicas}', 'statefulset', 'db'), '2');
    }, slow);
    const claims = await jsonpath('{range .items[*]}{.metadata.name}={.status.phase} {end}', 'pvc');
    assert.deepEqual(claims.split(' ').sort(), ['data-db-0=Bound', 'data-db-1=Bound']);
    // OrderedReady: db-1 is made only once db-0 runs.
    const [first, second] = await Promise.all(['db-0', 'db-1'].map(async (name) => (await server.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`)).json));
    assert.ok(Date.parse(second.metadata.creationTimestamp) >= Date.parse(first.status.startTime), 'db-1 was created after db-0 started');
  });

  test('a DaemonSet puts one pod on each node', async () => {
    const created = await server.request('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, {
      body: {
        apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' },
        spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] } } },
      },
    });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => {
      const nodes = (await jsonpath('{.items[*].spec.nodeName}', 'pods', '-l', 'app=agent', '--field-selector=status.phase=Running')).split(' ').filter(Boolean).sort();
      assert.deepEqual(nodes, ['sim-node-0', 'sim-node-1', 'sim-node-2']);
    }, slow);
  });

  test('deleting the Deployment removes its ReplicaSets and pods', async () => {
    await k('delete', 'deployment', 'web');
    await eventually(async () => {
      assert.equal(await jsonpath('{.items[*].metadata.name}', 'replicasets', '-l', 'app=web'), '');
      assert.equal(await jsonpath('{.items[*].metadata.name}', 'pods', '-l', 'app=web'), '');
    }, slow);
  });

  test('deleting the namespace removes everything', async () => {
    await kubectl(server, 'delete', 'namespace', ns, '--wait=false');
    await eventually(async () => {
      const res = await server.request('GET', `/api/v1/namespaces/${ns}`);
      assert.equal(res.status, 404, `${res.status}: ${JSON.stringify(res.json?.status)}`);
    }, slow);
    const left = await server.request('GET', `/api/v1/pods?fieldSelector=metadata.namespace=${ns}`);
    assert.deepEqual(left.json.items, []);
  });

  test('neither component logged an error about Plinth', () => {
    const problems = [...controllerManager.problems(), ...scheduler.problems()].filter((line) => !benign.some((pattern) => pattern.test(line)));
    assert.deepEqual(problems, []);
  });
});
