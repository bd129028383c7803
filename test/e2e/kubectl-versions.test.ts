// Everyday kubectl commands with every kubectl on the machine (1.27 … 1.33 and the system
// one) against one server: what each prints that comes from the server (tables, errors,
// discovery, OpenAPI) is what it prints against kube-apiserver 1.36.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectls = [
  ...['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'].map((version) => ({ version, bin: `/usr/lib/google-cloud-sdk/bin/kubectl.${version}` })),
  { version: 'system', bin: '/usr/bin/kubectl' },
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let kubeconfig: string;
before(async () => {
  server = await startServer({ simulatedNodes: 1 });
  kubeconfig = path.join(server.dataDir, 'kubeconfig');
});
after(async () => {
  await server?.stop();
});

for (const { version, bin } of kubectls) {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version}`, { skip }, () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
    after(() => rmSync(cacheDir, { recursive: true, force: true }));
    const kubectl = (...args: string[]) => new Promise<Run>((resolve) => {
      execFile(bin, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        // Every one of these kubectls is more than one minor version from 1.36.
        resolve({ code, stdout, stderr: stderr.split('\n').filter((line) => !line.includes('exceeds the supported minor version skew')).join('\n') });
      });
    });
    let ns = '';

    test('a namespace with a ConfigMap, a Deployment and a pod on the simulated node', async () => {
      ns = await server.newNamespace(`kv-${version.replace('.', '-')}`);
      assert.equal((await kubectl('-n', ns, 'create', 'configmap', 'c', '--from-literal=a=1')).code, 0);
      assert.equal((await kubectl('-n', ns, 'create', 'deployment', 'web', '--image=nginx', '--replicas=2')).code, 0);
      const run = await kubectl('-n', ns, 'run', 'p', '--image=nginx', '--overrides={"spec":{"nodeName":"sim-node-0"}}');
      assert.equal(run.code, 0, run.stderr);
      const wait = await kubectl('-n', ns, 'wait', '--for=condition=Ready', 'pod/p', '--timeout=15s');
      assert.equal(wait.code, 0, wait.stderr);
    });

    test('a merge patch that is not JSON: 400 in Go\'s encoding/json words', async () => {
      const res = await kubectl('-n', ns, 'patch', 'cm', 'c', '--type=merge', '-p', '{bad json');
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), "Error from server (BadRequest): error decoding patch: invalid character 'b' looking for beginning of object key string");
    });

    test('a strategic merge patch that is not JSON: Go\'s error alone', async () => {
      const res = await kubectl('-n', ns, 'patch', 'cm', 'c', '-p', '{bad json');
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), "Error from server (BadRequest): invalid character 'b' looking for beginning of object key string");
    });

    test('a JSON patch that does not apply: upstream\'s generic 422', async () => {
      const res = await kubectl('-n', ns, 'patch', 'cm', 'c', '--type=json', '-p', '[{"op":"remove","path":"/data/zzz"}]');
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), 'The request is invalid: the server rejected our request due to an error in our request');
    });

    test('get with -o wide, custom columns and chunks', async () => {
      const wide = await kubectl('-n', ns, 'get', 'deploy', 'web', '-o', 'wide');
      assert.match(wide.stdout, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/);
      assert.match(wide.stdout, /^web\s+0\/2\s+0\s+0\s+\S+\s+nginx\s+nginx\s+app=web\n$/m);
      const columns = await kubectl('-n', ns, 'get', 'deploy', '-o', 'custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas');
      assert.equal(columns.stdout, 'NAME   REPLICAS\nweb    2\n');
      const chunked = await kubectl('-n', ns, 'get', 'cm', '--chunk-size=1', '-o', 'name');
      assert.deepEqual(chunked.stdout.trim().split('\n').filter((line) => line !== 'configmap/kube-root-ca.crt'), ['configmap/c']);
      const pods = await kubectl('-n', ns, 'get', 'pods', '-o', 'wide');
      assert.match(pods.stdout, /^p\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+sim-node-0\s+<none>\s+<none>\n$/m);
    });

    test('server-side apply conflicts in upstream\'s words', async () => {
      const manifest = path.join(cacheDir, 'cm.yaml');
      writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {k: v}\n');
      assert.equal((await kubectl('-n', ns, 'apply', '--server-side', '-f', manifest)).code, 0);
      writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {k: v2}\n');
      const conflict = await kubectl('-n', ns, 'apply', '--server-side', '--field-manager=other', '-f', manifest);
      assert.equal(conflict.code, 1);
      assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.data\.k\n/);
    });

    test('top answers that the metrics API is absent', async () => {
      const res = await kubectl('top', 'nodes');
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), 'error: Metrics API not available');
    });

    test('exec fails at once, naming the simulated node', async () => {
      const res = await kubectl('-n', ns, 'exec', 'p', '--', 'ls');
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), 'Error from server: error dialing backend: no kubelet is reachable: the node is simulated (node "sim-node-0" at sim-node-0:10250)');
    });

    test('a token is refused below ten minutes, as TokenRequest validation words it', async () => {
      const res = await kubectl('-n', ns, 'create', 'token', 'default', '--duration=1s');
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 1: may not specify a duration less than 10 minutes');
    });

    test('api-resources for one group', async () => {
      const res = await kubectl('api-resources', '--api-group=apps');
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(res.stdout.trim().split('\n').map((line) => line.split(/\s+/).filter((cell) => cell !== '').join(' ')), [
        'NAME SHORTNAMES APIVERSION NAMESPACED KIND',
        'controllerrevisions apps/v1 true ControllerRevision',
        'daemonsets ds apps/v1 true DaemonSet',
        'deployments deploy apps/v1 true Deployment',
        'replicasets rs apps/v1 true ReplicaSet',
        'statefulsets sts apps/v1 true StatefulSet',
      ]);
    });

    test('auth can-i and whoami', async () => {
      assert.equal((await kubectl('auth', 'can-i', 'create', 'pods')).stdout, 'yes\n');
      const no = await kubectl('auth', 'can-i', 'create', 'pods', '--as=nobody', '-n', ns);
      assert.equal(no.code, 1);
      assert.equal(no.stdout, 'no\n');
      const whoami = await kubectl('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}');
      if (version === '1.27') {
        // 1.27 asks for authentication.k8s.io v1alpha1 or v1beta1 only, which 1.36 no longer serves.
        assert.equal(whoami.code, 1);
        assert.match(whoami.stderr, /^error: the selfsubjectreviews API is not enabled in the cluster\n/);
      } else {
        assert.equal(whoami.stdout, 'admin');
      }
    });
  });
}
