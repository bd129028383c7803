// Plinth as a library: `import { startServer } from 'plinth'` starts a real API server
// in-process (memory storage by default) for a test suite, on a free loopback port.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig, type Config } from './cli/config.ts';
import { serve } from './cli/serve.ts';

export interface StartServerOptions {
  /** 'memory' (the default here), 'sqlite' (in `dataDir`) or 'etcd' (with `etcdServers`). */
  storage?: Config['storage'];
  /** Where certificates, tokens and (for sqlite) the database live; a temporary directory, removed on close, when not given. */
  dataDir?: string;
  /** The port to listen on (0, the default: a free one), on 127.0.0.1. */
  port?: number;
  /** Feature gates, as --feature-gates takes them. */
  featureGates?: Record<string, boolean>;
  /** Authorization modes (default RBAC); admins (the kubeconfig's token) are always allowed. */
  authorizationModes?: Config['authorizationModes'];
  /** Play the kubelets of this many nodes. */
  simulatedNodes?: number;
  /** Any other serve option, by its Config name. */
  config?: Partial<Config>;
  /** Where log lines go (default: nowhere). */
  log?: (message: string) => void;
}

export interface PlinthServer {
  /** https://127.0.0.1:<port> */
  url: string;
  /** A kubeconfig for the admin (system:masters), as text and as the file written in the data dir. */
  kubeconfig: string;
  kubeconfigPath: string;
  /** The admin's bearer token. */
  token: string;
  /** PEM of the CA that signed the serving certificate. */
  caCert: string;
  /**
   * Puts every object back as it was when the server started (or at the last
   * `markClean()`): what tests created is deleted, what they changed or deleted restored.
   */
  reset(): Promise<void>;
  /** Makes the objects stored now the state `reset()` returns to. */
  markClean(): Promise<void>;
  /** Stops the server, frees its port, storage and timers, and removes a temporary data dir. */
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions = {}): Promise<PlinthServer> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'plinth-'));
  const defaults = defaultConfig();
  const config: Config = {
    ...defaults,
    storage: options.storage ?? 'memory',
    dataDir,
    securePort: options.port ?? 0,
    bindAddress: '127.0.0.1',
    ...(options.featureGates !== undefined ? { featureGates: { ...defaults.featureGates, ...options.featureGates } } : {}),
    ...(options.authorizationModes !== undefined ? { authorizationModes: options.authorizationModes } : {}),
    ...(options.simulatedNodes !== undefined ? { simulatedNodes: options.simulatedNodes } : {}),
    // A temporary data dir goes when the server closes: its files need not reach the disk.
    syncDataDirFiles: !temporary,
    ...options.config,
  };
  let running;
  try {
    running = await serve(config, options.log ?? (() => {}));
  } catch (err) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const server = running;
  let restore = await server.snapshot();
  return {
    url: server.url,
    kubeconfig: readFileSync(server.kubeconfigPath, 'utf8'),
    kubeconfigPath: server.kubeconfigPath,
    token: server.token,
    caCert: server.caPem,
    reset: () => restore(),
    async markClean() {
      restore = await server.snapshot();
    },
    async close() {
      await server.close();
      if (temporary) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
