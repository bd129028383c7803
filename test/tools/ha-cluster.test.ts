// The cluster script as a user runs it (`npm run cluster`): three etcd members and two
// replicas that share credentials, each with its own kubeconfig; Ctrl-C stops them all
// and removes etcd's data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { etcdUnavailable } from '../helpers/etcd.ts';
import { kubectlAt, kubectlBin, needsKubectl } from '../helpers/kubectl.ts';
import { repoRoot, tempDir } from '../helpers/server.ts';

test('npm run cluster: two replicas on three etcd members; what one stores the other serves; SIGINT stops everything', { skip: etcdUnavailable() ?? needsKubectl.skip, timeout: 120_000 }, async () => {
  const dataDir = tempDir('plinth-cluster-');
  const child = spawn(process.execPath, [path.join(repoRoot, 'tools/ha-cluster.ts'), '--data-dir', dataDir, '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/\[cluster\] ready: https:\/\/\S+ https:\/\/\S+/.test(output)) resolve();
      });
      void exited.then((code) => reject(new Error(`the script exited with ${code}:\n${output}`)));
      setTimeout(() => reject(new Error(`not ready within 60 s:\n${output}`)), 60_000).unref();
    });
    assert.match(output, /\[cluster\] etcd members: http:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:\d+/);
    const [a, b] = [path.join(dataDir, 'kubeconfig'), path.join(dataDir, 'kubeconfig-b')];
    await kubectlAt(kubectlBin, ['--kubeconfig', a], 'create', 'configmap', 'shared', '--from-literal=color=blue');
    const got = await kubectlAt(kubectlBin, ['--kubeconfig', b], 'get', 'configmap', 'shared', '-o', 'jsonpath={.data.color}');
    assert.equal(got, 'blue');
    const servers = await Promise.all([a, b].map((kubeconfig) => kubectlAt(kubectlBin, ['--kubeconfig', kubeconfig], 'config', 'view', '-o', 'jsonpath={.clusters[0].cluster.server}')));
    assert.notEqual(servers[0], servers[1], 'each kubeconfig names its own replica');
  } finally {
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 0, output);
    assert.equal(existsSync(path.join(dataDir, 'etcd')), false, 'etcd\'s data is removed');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
