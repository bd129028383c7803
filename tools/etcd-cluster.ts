// Starts etcd members (Debian's etcd-server, /usr/bin/etcd by default) on free loopback
// ports with their own data dirs, as one cluster: for the tests that need a real etcd,
// and for the local cluster script (tools/ha-cluster.ts). Members can be killed as in
// a crash and started again on the same ports and data.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ETCD_BINARY = process.env.PLINTH_TEST_ETCD ?? '/usr/bin/etcd';

export interface EtcdMember {
  name: string;
  /** The client URL, http://127.0.0.1:<port>. */
  url: string;
  /** Whether the process runs. */
  readonly running: boolean;
  /** Kills the member (SIGKILL, as a crash), keeping its data dir. */
  kill(): Promise<void>;
  /** Starts the killed member again on the same ports and data dir; resolves once it is healthy. */
  restart(): Promise<void>;
}

export interface EtcdCluster {
  members: EtcdMember[];
  /** Every member's client URL. */
  urls: string[];
  /** The index of the member that leads now (asked of a running member). */
  leader(): Promise<number>;
  /** Kills every member and removes the data dirs (unless they were given). */
  stop(): Promise<void>;
}

export interface EtcdClusterOptions {
  /** Members (default 1). */
  size?: number;
  /** Where the members' ports come from (default memberPort; a test hands out one already taken). */
  ports?: () => Promise<number>;
  /** Where the members' data dirs go (default a new temporary dir, on tmpfs where there is one, removed by stop()). */
  dataRoot?: string;
  /** Where each member's stderr goes besides the kept tail (default nowhere). */
  log?: (member: string, text: string) => void;
  /** etcd's --log-level (default error). */
  logLevel?: string;
  /**
   * Serve clients over TLS with this certificate and key; with `clientCaFile`, clients
   * must present a certificate that CA signed (etcd's --client-cert-auth).
   */
  tls?: { certFile: string; keyFile: string; clientCaFile?: string };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port below the kernel's ephemeral range, for a member. A port from listen(0) is
 * an ephemeral one: while a killed member is down, any outgoing connection on the machine
 * (the other tests') may take it as its source port, and the member's restart then finds
 * it in use. Below the range only another listener can take it, picked at random as here.
 */
export async function memberPort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: the usual range's start
  }
  const from = Math.max(1024, low - 12_000);
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await bindable(port)) return port;
  }
  return freePort();
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface Process {
  child: ChildProcess;
  exited: Promise<void>;
  stderr(): string;
}

export async function startEtcdCluster(opts: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const size = opts.size ?? 1;
  // On tmpfs when there is one: tests write thousands of times and etcd fsyncs each.
  const ownRoot = opts.dataRoot === undefined;
  const root = opts.dataRoot ?? mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'plinth-etcd-'));
  // A free port can be taken by another process between freePort() and etcd binding it:
  // a new cluster that fails so starts again, on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startMembers(opts, size, root, ownRoot);
    } catch (err) {
      if (attempt === 3 || !/address already in use/.test((err as Error).message)) {
        if (ownRoot) rmSync(root, { recursive: true, force: true });
        throw err;
      }
    }
  }
}

async function startMembers(opts: EtcdClusterOptions, size: number, root: string, ownRoot: boolean): Promise<EtcdCluster> {
  const port = opts.ports ?? memberPort;
  const specs = [];
  for (let i = 0; i < size; i++) {
    const name = `etcd-${i}`;
    specs.push({
      name,
      client: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${await port()}`,
      peer: `http://127.0.0.1:${await port()}`,
      // Plain HTTP whatever the clients speak: where health is asked.
      metrics: `http://127.0.0.1:${await port()}`,
      dataDir: path.join(root, name),
    });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peer}`).join(',');

  const members = specs.map((spec) => {
    mkdirSync(spec.dataDir, { recursive: true, mode: 0o700 });
    const launch = (): Process => {
      const child = spawn(ETCD_BINARY, [
        '--name', spec.name,
        '--data-dir', spec.dataDir,
        '--listen-client-urls', spec.client,
        '--advertise-client-urls', spec.client,
        '--listen-peer-urls', spec.peer,
        '--initial-advertise-peer-urls', spec.peer,
        '--initial-cluster', initialCluster,
        '--initial-cluster-token', `plinth-${path.basename(root)}`,
        '--initial-cluster-state', 'new',
        '--listen-metrics-urls', spec.metrics,
        '--log-level', opts.logLevel ?? 'error',
        ...(opts.tls === undefined ? [] : ['--cert-file', opts.tls.certFile, '--key-file', opts.tls.keyFile]),
        ...(opts.tls?.clientCaFile === undefined ? [] : ['--client-cert-auth', '--trusted-ca-file', opts.tls.clientCaFile]),
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
        opts.log?.(spec.name, chunk.toString());
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      return { child, exited, stderr: () => stderr };
    };
    let process = launch();
    const member = {
      name: spec.name,
      url: spec.client,
      get running() {
        return process.child.exitCode === null && process.child.signalCode === null;
      },
      async kill() {
        if (member.running) {
          process.child.kill('SIGKILL');
          await process.exited;
        }
      },
      async restart() {
        await member.kill();
        process = launch();
        await waitHealthy(spec.metrics, () => process);
      },
      healthy: () => waitHealthy(spec.metrics, () => process),
    };
    return member;
  });

  const stop = async () => {
    await Promise.all(members.map((m) => m.kill()));
    if (ownRoot) rmSync(root, { recursive: true, force: true });
  };
  try {
    // A member of a new cluster is healthy once the cluster has a leader, so all start together.
    await Promise.all(members.map((m) => m.healthy()));
  } catch (err) {
    // The members' data goes too: a new attempt starts a new cluster.
    await Promise.all(members.map((m) => m.kill()));
    for (const spec of specs) rmSync(spec.dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    members,
    urls: members.map((m) => m.url),
    async leader() {
      for (const member of members.filter((m) => m.running)) {
        try {
          // etcd's gRPC gateway: the member's id and the leader's.
          const status = (await (await fetch(`${member.url}/v3/maintenance/status`, { method: 'POST', body: '{}' })).json()) as { header: { member_id: string }; leader: string };
          if (status.leader === undefined || status.leader === '0') continue;
          if (status.leader === status.header.member_id) return members.indexOf(member);
          for (const other of members.filter((m) => m !== member && m.running)) {
            const theirs = (await (await fetch(`${other.url}/v3/maintenance/status`, { method: 'POST', body: '{}' })).json()) as { header: { member_id: string } };
            if (theirs.header.member_id === status.leader) return members.indexOf(other);
          }
        } catch {
          // that member does not answer: ask another
        }
      }
      throw new Error('no etcd member knows a leader');
    },
    stop,
  };
}

async function waitHealthy(url: string, current: () => Process): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { child, stderr } = current();
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`etcd exited with ${child.exitCode ?? child.signalCode}: ${stderr()}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok && ((await response.json()) as { health?: string }).health === 'true') return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`etcd at ${url} not healthy within 20s: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
