// A highly available Plinth on this machine, to try: three etcd members and two Plinth
// replicas on loopback (`npm run cluster`). The replicas share one data dir for their
// certificates, tokens and service-account key, so one kubeconfig's credentials work on
// both; each writes its own kubeconfig naming its own port. Ctrl-C stops everything.
//
//   npm run cluster -- [--data-dir ./data-ha] [--etcd-members 3] [--replicas 2] [--port 6443] [--keep]
//
// Ports: replica i listens on --port + i (0: free ports). etcd's data lives under
// <data-dir>/etcd and is removed on exit unless --keep.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ETCD_BINARY, startEtcdCluster } from './etcd-cluster.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: './data-ha' },
    'etcd-members': { type: 'string', default: '3' },
    replicas: { type: 'string', default: '2' },
    port: { type: 'string', default: '6443' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('usage: npm run cluster -- [--data-dir ./data-ha] [--etcd-members 3] [--replicas 2] [--port 6443] [--keep]');
  process.exit(0);
}
if (!existsSync(ETCD_BINARY)) {
  console.error(`${ETCD_BINARY} is absent: install Debian's etcd-server (apt-get install etcd-server), or set PLINTH_TEST_ETCD to an etcd binary`);
  process.exit(1);
}

const dataDir = path.resolve(values['data-dir']);
const etcdDir = path.join(dataDir, 'etcd');
const basePort = Number(values.port);
const replicaCount = Number(values.replicas);
rmSync(etcdDir, { recursive: true, force: true });
mkdirSync(etcdDir, { recursive: true, mode: 0o700 });

const say = (line: string) => console.log(`[cluster] ${line}`);
const etcd = await startEtcdCluster({ size: Number(values['etcd-members']), dataRoot: etcdDir });
say(`etcd members: ${etcd.urls.join(' ')}`);

const repoRoot = path.resolve(import.meta.dirname, '..');
const replicas: ChildProcess[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping');
    await Promise.all(replicas.map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    })));
    await etcd.stop();
    if (!values.keep) rmSync(etcdDir, { recursive: true, force: true });
  }
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

/** Starts replica `index` and resolves with its URL once it serves. */
function startReplica(index: number): Promise<{ url: string; kubeconfig: string }> {
  const name = String.fromCharCode('a'.charCodeAt(0) + index);
  const kubeconfig = path.join(dataDir, index === 0 ? 'kubeconfig' : `kubeconfig-${name}`);
  const child = spawn(process.execPath, [
    '--max-semi-space-size=16', path.join(repoRoot, 'src/cli/main.cjs'), 'serve',
    '--storage', 'etcd', '--etcd-servers', etcd.urls.join(','),
    '--data-dir', dataDir, '--kubeconfig', kubeconfig,
    '--secure-port', String(basePort === 0 ? 0 : basePort + index),
  ], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'pipe'] });
  replicas.push(child);
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        process.stderr.write(`[plinth-${name}] ${line}\n`);
        const match = /serving on (https:\/\/\S+)/.exec(line);
        if (match) resolve({ url: match[1]!, kubeconfig });
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`plinth-${name} exited with ${code}`));
      if (!stopping) {
        say(`plinth-${name} exited with ${code}; stopping the cluster`);
        void stopAll(1);
      }
    });
  });
}

try {
  // One after another: the first creates the shared certificates and tokens.
  const started = [];
  for (let i = 0; i < replicaCount; i++) started.push(await startReplica(i));
  say(`ready: ${started.map((r) => r.url).join(' ')}`);
  for (const { url, kubeconfig } of started) say(`kubectl --kubeconfig ${path.relative(process.cwd(), kubeconfig) || kubeconfig} get ns   # ${url}`);
  say('Ctrl-C stops the replicas and etcd');
} catch (err) {
  say((err as Error).message);
  await stopAll(1);
}
