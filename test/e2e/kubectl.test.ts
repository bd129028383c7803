// kubectl 1.27 and 1.33 against a server started by `npm start`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server.ts';

const run = promisify(execFile);
const kubectls = [
  { version: '1.27', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.27' },
  { version: '1.33', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.33' },
];

let server: ServerProcess;
before(async () => {
  server = await startServerProcess([], { viaNpm: true });
});
after(async () => {
  await server?.stop();
});

for (const { version, bin } of kubectls) {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version}`, { skip }, () => {
    // Each kubectl gets its own discovery cache and namespace.
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
    const ns = `kubectl-${version.replace('.', '-')}`;
    const kubectl = async (...args: string[]) => {
      try {
        const { stdout } = await run(bin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir, ...args], { timeout: 30_000 });
        return stdout;
      } catch (err) {
        const e = err as { stderr?: string; message: string };
        throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
      }
    };
    after(() => rmSync(cacheDir, { recursive: true, force: true }));

    test('get ns lists the system namespaces', async () => {
      const out = await kubectl('get', 'ns');
      for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.match(out, new RegExp(`^${name}\\s`, 'm'));
    });

    test('api-resources lists the built-in types', async () => {
      const out = await kubectl('api-resources');
      assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      assert.match(out, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      assert.match(out, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
    });

    test('create, get -o yaml, label, annotate, delete a configmap', async () => {
      await kubectl('create', 'ns', ns);
      await kubectl('-n', ns, 'create', 'configmap', 'settings', '--from-literal=color=blue');
      const yaml = await kubectl('-n', ns, 'get', 'cm', 'settings', '-o', 'yaml');
      assert.match(yaml, /color: blue/);
      assert.match(yaml, /kind: ConfigMap/);
      await kubectl('-n', ns, 'label', 'cm', 'settings', 'tier=web');
      await kubectl('-n', ns, 'annotate', 'cm', 'settings', 'note=hello');
      const json = JSON.parse(await kubectl('-n', ns, 'get', 'cm', 'settings', '-o', 'json'));
      assert.equal(json.metadata.labels.tier, 'web');
      assert.equal(json.metadata.annotations.note, 'hello');
      assert.equal((await kubectl('-n', ns, 'get', 'cm', '-l', 'tier=web', '-o', 'name')).trim(), 'configmap/settings');
      await kubectl('-n', ns, 'delete', 'cm', 'settings');
      // Only the root CA publisher's ConfigMap may be left (it comes a moment after the namespace).
      assert.deepEqual((await kubectl('-n', ns, 'get', 'cm', '-o', 'name')).trim().split('\n').filter((line) => line !== '' && line !== 'configmap/kube-root-ca.crt'), []);
    });

    test('every namespace gets the kube-root-ca.crt ConfigMap with the serving CA', async () => {
      await eventually(async () => {
        const cm = JSON.parse(await kubectl('-n', ns, 'get', 'cm', 'kube-root-ca.crt', '-o', 'json'));
        assert.match(cm.data['ca.crt'], /^-----BEGIN CERTIFICATE-----/);
        assert.deepEqual(Object.keys(cm.data), ['ca.crt']);
      });
    });

    test('apply -f a new Deployment gets upstream defaults', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
      const file = path.join(dir, 'deploy.yaml');
      writeFileSync(file, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`);
      try {
        await kubectl('apply', '-f', file);
        const deploy = JSON.parse(await kubectl('-n', ns, 'get', 'deploy', 'web', '-o', 'json'));
        assert.equal(deploy.spec.replicas, 1);
        assert.equal(deploy.spec.revisionHistoryLimit, 10);
        assert.equal(deploy.spec.strategy.type, 'RollingUpdate');
        assert.equal(deploy.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
        assert.ok(deploy.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
        await kubectl('-n', ns, 'delete', 'deploy', 'web');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('explain configmap describes its fields', async () => {
      const out = await kubectl('explain', 'configmap');
      assert.match(out, /KIND:\s+ConfigMap/);
      assert.match(out, /data\s/);
      assert.match(out, /binaryData\s/);
    });
  });
}
