// Real etcd members (Debian's etcd-server, /usr/bin/etcd) for tests, on free loopback
// ports with temporary data dirs, stopped by the test: no mocks of etcd.
import { existsSync } from 'node:fs';
import { ETCD_BINARY, startEtcdCluster } from '../../tools/etcd-cluster.ts';

export { ETCD_BINARY, startEtcdCluster, type EtcdCluster, type EtcdMember } from '../../tools/etcd-cluster.ts';

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

/** One member, a cluster of its own. */
export async function startEtcd(): Promise<TestEtcd> {
  const cluster = await startEtcdCluster();
  const member = cluster.members[0]!;
  return { url: member.url, stop: () => cluster.stop(), kill: () => member.kill(), restart: () => member.restart() };
}
