// Upstream's kube-controller-manager and kube-scheduler (v1.36.2, from ../shared/bin) run
// against a test server, as kubeadm runs them: leader election on, Protobuf, and each
// controller with its own service-account credentials. Tests skip where the builds are absent.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './server.ts';

const packed = path.resolve(repoRoot, '../shared/bin');
const unpacked = path.join(repoRoot, '.cache/upstream-bin');

/** Why upstream's components cannot run here, or undefined (unpacking them on first use). */
export function upstreamComponentsUnavailable(): string | undefined {
  const have = () => existsSync(path.join(unpacked, 'kube-controller-manager')) && existsSync(path.join(unpacked, 'kube-scheduler'));
  if (!have() && existsSync(path.join(packed, 'unpack.sh'))) execFileSync(path.join(packed, 'unpack.sh'), [unpacked], { stdio: 'ignore' });
  return have() ? undefined : `needs upstream's kube-controller-manager and kube-scheduler: neither ${unpacked} nor ${packed}/unpack.sh is there`;
}

export interface UpstreamComponent {
  /** Everything it logged so far. */
  log(): string;
  /** Its error and warning lines (klog's E and W) so far. */
  problems(): string[];
  stop(): Promise<void>;
}

function run(binary: string, args: string[]): UpstreamComponent {
  const child: ChildProcess = spawn(path.join(unpacked, binary), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    log: () => log,
    problems: () => log.split('\n').filter((line) => /^[EW]\d{4} /.test(line)),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The flags both share: the kubeconfig for everything, no serving port of their own. */
function common(kubeconfig: string): string[] {
  return [`--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`, '--leader-elect=true', '--secure-port=0'];
}

export function startControllerManager(opts: { kubeconfig: string; serviceAccountKeyFile: string; rootCaFile: string; extraArgs?: string[] }): UpstreamComponent {
  return run('kube-controller-manager', [
    ...common(opts.kubeconfig),
    '--controllers=*', '--use-service-account-credentials=true',
    `--service-account-private-key-file=${opts.serviceAccountKeyFile}`, `--root-ca-file=${opts.rootCaFile}`,
    ...(opts.extraArgs ?? []),
  ]);
}

export function startScheduler(opts: { kubeconfig: string; extraArgs?: string[] }): UpstreamComponent {
  return run('kube-scheduler', [...common(opts.kubeconfig), ...(opts.extraArgs ?? [])]);
}
