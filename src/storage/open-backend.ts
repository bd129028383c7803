// The backend a server runs on, chosen by --storage.

import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Backend } from './backend.ts';
import { MemoryBackend } from './memory.ts';
import { SqliteBackend } from './sqlite.ts';

export type BackendKind = 'sqlite' | 'memory' | 'etcd';

export interface OpenBackendOptions {
  /** Where the sqlite backend keeps its file, `<dataDir>/plinth.db` (default ./data). */
  dataDir?: string;
  /** The etcd backend's members (--etcd-servers). */
  etcdServers?: string[];
  /** --etcd-prefix, ending in /registry (default "/registry"): keys are `<prefix>/pods/...` as upstream lays them out. */
  etcdPrefix?: string;
  /** --etcd-cafile, --etcd-certfile, --etcd-keyfile: any one of them turns TLS to etcd on. */
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** `--lease-reuse-duration-seconds`, for the etcd backend. */
  leaseReuseSeconds?: number;
  /** Where the etcd backend says which etcd it found. */
  log?: (message: string) => void;
  /** The sqlite backend's syncs of its write-ahead log: seconds each, and whether on the event loop. */
  onWalSync?: (seconds: number, onLoop: boolean) => void;
  /** While this says so, the sqlite backend syncs off the event loop (another thread's work waits on it). */
  syncLater?: () => boolean;
}

/** Async because backends may connect before they can answer. */
export async function openBackend(kind: BackendKind, opts: OpenBackendOptions = {}): Promise<Backend> {
  switch (kind) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite': {
      const dataDir = opts.dataDir ?? 'data';
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      return new SqliteBackend(path.join(dataDir, 'plinth.db'), { onWalSync: opts.onWalSync, syncLater: opts.syncLater });
    }
    case 'etcd': {
      const prefix = opts.etcdPrefix ?? '/registry';
      if (!prefix.endsWith('/registry')) throw new Error(`etcd prefix ${prefix} does not end in /registry`);
      // Plinth's keys already start with /registry: what comes before it is the namespace.
      const read = (file: string | undefined) => (file === undefined ? undefined : readFileSync(file));
      const tls = opts.etcdCaFile !== undefined || opts.etcdCertFile !== undefined || opts.etcdKeyFile !== undefined
        ? { ca: read(opts.etcdCaFile), cert: read(opts.etcdCertFile), key: read(opts.etcdKeyFile) }
        : undefined;
      const log = opts.log ?? (() => {});
      // Loaded here: the etcd client (gRPC, protobufjs) costs ~100 ms of start-up that SQLite does not need.
      const { EtcdBackend, progressNotifyReliable } = await import('./etcd.ts');
      const backend = new EtcdBackend({ servers: opts.etcdServers ?? [], namespace: prefix.slice(0, -'/registry'.length), tls, log, leaseReuseSeconds: opts.leaseReuseSeconds });
      // Only said: consistent reads go to etcd whatever the version (see consistentReadsFromStorage).
      await backend.serverVersion().then(
        (version) => log(`etcd ${version}: ${progressNotifyReliable(version) ? 'progress notifications are reliable, but ' : 'no reliable progress notifications (before 3.4.31/3.5.13): '}consistent reads go to etcd`),
        (err: unknown) => log(`etcd version unknown (${(err as Error).message}); consistent reads go to etcd`),
      );
      return backend;
    }
  }
}
