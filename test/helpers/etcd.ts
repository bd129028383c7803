// Starts a real etcd member (Debian's etcd-server, /usr/bin/etcd) for tests, on free
// loopback ports with a temporary data dir, and stops it: no mocks of etcd.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ETCD_BINARY = process.env.PLINTH_TEST_ETCD ?? '/usr/bin/etcd';

/** Why etcd tests cannot run here, or undefined when they can (pass it to describe's `skip`). */
export function etcdUnavailable(): string | undefined {
  return existsSync(ETCD_BINARY) ? undefined : `${ETCD_BINARY} is absent (Debian's etcd-server package provides it)`;
}

export interface TestEtcd {
  /** The client URL, http://127.0.0.1:<port>. */
  url: string;
  /** Kills the member and removes its data dir. */
  stop(): Promise<void>;
  /** Kills the member (SIGKILL, as a crash), keeping its data dir: `restart()` brings the same member back. */
  kill(): Promise<void>;
  /** Starts the killed member again on the same ports and data dir; resolves once it is healthy. */
  restart(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Member {
  child: ChildProcess;
  exited: Promise<void>;
  stderr(): string;
}

export async function startEtcd(): Promise<TestEtcd> {
  // On tmpfs when there is one: the tests write thousands of times and etcd fsyncs each.
  const tmp = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const dataDir = mkdtempSync(path.join(tmp, 'plinth-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const launch = (): Member => {
    const child = spawn(ETCD_BINARY, [
      '--name', 'plinth-test',
      '--data-dir', dataDir,
      '--listen-client-urls', url,
      '--advertise-client-urls', url,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `plinth-test=${peer}`,
      '--log-level', 'error',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { child, exited, stderr: () => stderr };
  };
  let member = launch();
  const kill = async () => {
    if (member.child.exitCode === null && member.child.signalCode === null) {
      member.child.kill('SIGKILL');
      await member.exited;
    }
  };
  const stop = async () => {
    await kill();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const restart = async () => {
    await kill();
    member = launch();
    await waitHealthy(url, member.child, member.stderr);
  };
  try {
    await waitHealthy(url, member.child, member.stderr);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop, kill, restart };
}

async function waitHealthy(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode}: ${stderr()}`);
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
