// kubectl commands built on typed clients ask for Protobuf
// (`Accept: application/vnd.kubernetes.protobuf,application/json`) and some send Protobuf
// bodies: describe, create <generator>, cordon, drain, rollout history, autoscale, events.
// Each runs at -v=8 against Plinth; the test checks what kubectl prints and, from its
// log, that the server answered those requests in Protobuf.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubectlTraced, tracedExchanges, type TracedExchange } from '../helpers/kubectl.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectls = [
  { version: '1.32', bin: '/usr/bin/kubectl' },
  { version: '1.33', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.33' },
];
const protobuf = 'application/vnd.kubernetes.protobuf';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

async function create(urlPath: string, body: unknown): Promise<any> {
  const res = await server.request('POST', urlPath, { body });
  assert.equal(res.status, 201, `${urlPath}: ${res.text}`);
  return res.json;
}

async function read(urlPath: string): Promise<any> {
  const res = await server.request('GET', urlPath);
  assert.equal(res.status, 200, `${urlPath}: ${res.text}`);
  return res.json;
}

const deployment = (name: string) => ({
  metadata: { name, labels: { app: name } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  },
});

interface Case {
  name: string;
  /** Objects the command works on, made through the API (JSON). */
  setup?: (ns: string, node: string) => Promise<void>;
  args: (ns: string, node: string) => string[];
  /** Lines kubectl prints, as it prints them against kube-apiserver. */
  prints: (ns: string, node: string) => RegExp[];
  /** Paths (with the query) that must have been asked and answered in Protobuf. */
  protobufAnswers: (ns: string, node: string) => RegExp[];
  /** Checks of what the command left on the server, read back in JSON. */
  after?: (ns: string, node: string) => Promise<void>;
}

const cases: Case[] = [
  {
    name: 'describe configmap',
    setup: async (ns) => void await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'settings', labels: { tier: 'web' } }, data: { 'app.conf': 'port=80' } }),
    args: (ns) => ['-n', ns, 'describe', 'configmap', 'settings'],
    prints: (ns) => [/^Name:\s+settings$/m, new RegExp(`^Namespace:\\s+${ns}$`, 'm'), /^Labels:\s+tier=web$/m, /^app\.conf:\n----\nport=80$/m, /^Events:\s+<none>$/m],
    protobufAnswers: (ns) => [new RegExp(`/api/v1/namespaces/${ns}/configmaps/settings$`), new RegExp(`/api/v1/namespaces/${ns}/events\\?fieldSelector=`)],
  },
  {
    name: 'describe deployment (its ReplicaSets listed in Protobuf)',
    setup: async (ns) => void await create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('api')),
    args: (ns) => ['-n', ns, 'describe', 'deployment', 'api'],
    prints: () => [/^Name:\s+api$/m, /^Selector:\s+app=api$/m, /^Replicas:\s+2 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m, /^StrategyType:\s+RollingUpdate$/m, /^\s+Image:\s+nginx:1\.27$/m],
    protobufAnswers: (ns) => [new RegExp(`/apis/apps/v1/namespaces/${ns}/deployments/api$`), new RegExp(`/apis/apps/v1/namespaces/${ns}/replicasets\\?labelSelector=app%3Dapi`)],
  },
  {
    name: 'describe pod',
    setup: async (ns) => void await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } }),
    args: (ns) => ['-n', ns, 'describe', 'pod', 'web'],
    prints: () => [/^Name:\s+web$/m, /^Status:\s+Pending$/m, /^QoS Class:\s+BestEffort$/m, /^\s+Port:\s+80\/TCP$/m],
    protobufAnswers: (ns) => [new RegExp(`/api/v1/namespaces/${ns}/pods/web$`)],
  },
  {
    name: 'describe node (its pods listed in Protobuf across namespaces)',
    setup: async (ns, node) => {
      await create('/api/v1/nodes', { metadata: { name: node, labels: { zone: 'a' } } });
      await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'on-node' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] } });
    },
    args: (_ns, node) => ['describe', 'node', node],
    prints: (ns, node) => [new RegExp(`^Name:\\s+${node}$`, 'm'), /^Labels:\s+zone=a$/m, new RegExp(`^\\s+${ns}\\s+on-node\\s`, 'm')],
    protobufAnswers: (_ns, node) => [new RegExp(`/api/v1/nodes/${node}$`), new RegExp(`/api/v1/pods\\?fieldSelector=spec\\.nodeName%3D${node}`)],
  },
  {
    name: 'describe namespace (quotas and limit ranges listed in Protobuf)',
    args: (ns) => ['describe', 'namespace', ns],
    prints: (ns) => [new RegExp(`^Name:\\s+${ns}$`, 'm'), /^Status:\s+Active$/m, /^No resource quota\.$/m, /^No LimitRange resource\.$/m],
    protobufAnswers: (ns) => [new RegExp(`/api/v1/namespaces/${ns}/resourcequotas`), new RegExp(`/api/v1/namespaces/${ns}/limitranges`)],
  },
  {
    name: 'create configmap sends and gets Protobuf',
    args: (ns) => ['-n', ns, 'create', 'configmap', 'made', '--from-literal=k=v', '--from-literal=n=1'],
    prints: () => [/^configmap\/made created$/m],
    protobufAnswers: (ns) => [new RegExp(`/api/v1/namespaces/${ns}/configmaps\\?fieldManager=kubectl-create`)],
    after: async (ns) => assert.deepEqual((await read(`/api/v1/namespaces/${ns}/configmaps/made`)).data, { k: 'v', n: '1' }),
  },
  {
    name: 'create secret generic: bytes through Protobuf',
    args: (ns) => ['-n', ns, 'create', 'secret', 'generic', 'creds', '--from-literal=password=s3cr3t'],
    prints: () => [/^secret\/creds created$/m],
    protobufAnswers: (ns) => [new RegExp(`/api/v1/namespaces/${ns}/secrets\\?`)],
    after: async (ns) => {
      const secret = await read(`/api/v1/namespaces/${ns}/secrets/creds`);
      assert.equal(secret.type, 'Opaque');
      assert.deepEqual(secret.data, { password: Buffer.from('s3cr3t').toString('base64') });
    },
  },
  {
    name: 'create role',
    args: (ns) => ['-n', ns, 'create', 'role', 'reader', '--verb=get,list', '--resource=pods'],
    prints: () => [/^role\.rbac\.authorization\.k8s\.io\/reader created$/m],
    protobufAnswers: (ns) => [new RegExp(`/apis/rbac\\.authorization\\.k8s\\.io/v1/namespaces/${ns}/roles\\?`)],
    after: async (ns) => assert.deepEqual((await read(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/reader`)).rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]),
  },
  {
    name: 'create job --from=cronjob',
    setup: async (ns) => void await create(`/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      metadata: { name: 'nightly' },
      spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    }),
    args: (ns) => ['-n', ns, 'create', 'job', 'now', '--from=cronjob/nightly'],
    prints: () => [/^job\.batch\/now created$/m],
    // The CronJob is read in JSON (kubectl's resource builder); the Job is created by a typed client.
    protobufAnswers: (ns) => [new RegExp(`/apis/batch/v1/namespaces/${ns}/jobs\\?`)],
    after: async (ns) => {
      const job = await read(`/apis/batch/v1/namespaces/${ns}/jobs/now`);
      assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      assert.equal(job.metadata.ownerReferences[0].name, 'nightly');
    },
  },
  {
    name: 'cordon patches the node in Protobuf',
    setup: async (_ns, node) => void await create('/api/v1/nodes', { metadata: { name: node } }),
    args: (_ns, node) => ['cordon', node],
    prints: (_ns, node) => [new RegExp(`^node/${node} cordoned$`, 'm')],
    protobufAnswers: (_ns, node) => [new RegExp(`/api/v1/nodes/${node}$`)],
    after: async (_ns, node) => assert.equal((await read(`/api/v1/nodes/${node}`)).spec.unschedulable, true),
  },
  {
    name: 'drain --dry-run=server',
    setup: async (ns, node) => {
      await create('/api/v1/nodes', { metadata: { name: node } });
      await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] } });
    },
    args: (_ns, node) => ['drain', node, '--dry-run=server', '--force', '--ignore-daemonsets'],
    prints: (ns, node) => [new RegExp(`^node/${node} cordoned \\(server dry run\\)$`, 'm'), new RegExp(`^evicting pod ${ns}/p \\(server dry run\\)$`, 'm'), new RegExp(`^node/${node} drained \\(server dry run\\)$`, 'm')],
    protobufAnswers: (_ns, node) => [new RegExp(`/api/v1/nodes/${node}\\?dryRun=All$`), new RegExp(`/api/v1/pods\\?fieldSelector=spec\\.nodeName%3D${node}`)],
    after: async (ns, node) => {
      assert.equal((await read(`/api/v1/nodes/${node}`)).spec.unschedulable, undefined);
      await read(`/api/v1/namespaces/${ns}/pods/p`);
    },
  },
  {
    // No controllers here, so no ReplicaSets: kubectl says so as against a bare kube-apiserver.
    name: 'rollout history',
    setup: async (ns) => void await create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('hist')),
    args: (ns) => ['-n', ns, 'rollout', 'history', 'deployment/hist'],
    prints: () => [/^deployment\.apps\/hist $/m, /^No rollout history found\.$/m],
    protobufAnswers: (ns) => [new RegExp(`/apis/apps/v1/namespaces/${ns}/deployments/hist$`), new RegExp(`/apis/apps/v1/namespaces/${ns}/replicasets\\?labelSelector=app%3Dhist`)],
  },
  {
    name: 'autoscale creates an HPA in Protobuf (autoscaling/v1 from kubectl 1.32, v2 from 1.33)',
    setup: async (ns) => void await create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('scaled')),
    args: (ns) => ['-n', ns, 'autoscale', 'deployment', 'scaled', '--max=5', '--cpu-percent=70'],
    prints: () => [/^horizontalpodautoscaler\.autoscaling\/scaled autoscaled$/m],
    protobufAnswers: (ns) => [new RegExp(`/apis/autoscaling/v[12]/namespaces/${ns}/horizontalpodautoscalers\\?`)],
    after: async (ns) => {
      const hpa = await read(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/scaled`);
      assert.deepEqual([hpa.spec.maxReplicas, hpa.spec.targetCPUUtilizationPercentage, hpa.spec.scaleTargetRef.name], [5, 70, 'scaled']);
    },
  },
  {
    name: 'events',
    setup: async (ns) => void await create(`/api/v1/namespaces/${ns}/events`, {
      metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'web', namespace: ns }, reason: 'Pulled', message: 'image pulled', type: 'Normal', count: 1,
    }),
    args: (ns) => ['-n', ns, 'events'],
    prints: () => [/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m, /^\S+\s+Normal\s+Pulled\s+Pod\/web\s+image pulled$/m],
    protobufAnswers: (ns) => [new RegExp(`/api/v1/namespaces/${ns}/events\\?limit=`)],
  },
];

/** The exchanges for a path that asked for Protobuf first. */
const askedProtobuf = (exchanges: TracedExchange[], pattern: RegExp) =>
  exchanges.filter((e) => pattern.test(new URL(e.url).pathname + new URL(e.url).search) && e.accept?.startsWith(protobuf));

for (const { version, bin } of kubectls) {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version} with Protobuf answers`, { skip }, () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
    const flags = () => ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir];
    after(() => rmSync(cacheDir, { recursive: true, force: true }));
    let nodes = 0;

    for (const c of cases) {
      test(c.name, async () => {
        const ns = await server.newNamespace('kpb');
        const node = `node-${version.replace('.', '-')}-${++nodes}`;
        await c.setup?.(ns, node);
        const { stdout, exchanges } = await kubectlTraced(bin, flags(), ...c.args(ns, node));
        for (const line of c.prints(ns, node)) assert.match(stdout, line);
        for (const pattern of c.protobufAnswers(ns, node)) {
          const asked = askedProtobuf(exchanges, pattern);
          assert.ok(asked.length > 0, `no Protobuf request for ${pattern}: ${JSON.stringify(exchanges, null, 1)}`);
          for (const e of asked) {
            assert.equal(e.contentType, protobuf, `${e.method} ${e.url}`);
            assert.ok(e.status !== undefined && e.status < 300, `${e.method} ${e.url}: ${e.status}`);
          }
        }
        // Whatever asked for Protobuf got it (errors too are negotiated).
        for (const e of exchanges.filter((x) => x.accept?.startsWith(protobuf))) assert.equal(e.contentType, protobuf, `${e.method} ${e.url}`);
        await c.after?.(ns, node);
      });
    }

    test('events --watch follows a Protobuf watch', async () => {
      const ns = await server.newNamespace('kpb');
      const event = (name: string, reason: string) => ({
        metadata: { name }, involvedObject: { kind: 'Pod', name: 'web', namespace: ns }, reason, message: `${reason} happened`, type: 'Warning', count: 1,
      });
      await create(`/api/v1/namespaces/${ns}/events`, event('first', 'Early'));
      const child = spawn(bin, [...flags(), '-v=8', '-n', ns, 'events', '--watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      try {
        await eventually(() => assert.match(stdout, /Early happened/));
        await create(`/api/v1/namespaces/${ns}/events`, event('second', 'Late'));
        await eventually(() => assert.match(stdout, /^\S+\s+Warning\s+Late\s+Pod\/web\s+Late happened$/m));
      } finally {
        child.kill();
      }
      const watch = tracedExchanges(stderr).find((e) => e.url.includes('watch=true'));
      assert.ok(watch, stderr);
      assert.equal(watch.accept, `${protobuf},application/json`);
      assert.equal(watch.contentType, `${protobuf};stream=watch`);
    });
  });
}
