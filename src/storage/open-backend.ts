// The backend a server runs on, chosen by --storage.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Backend } from './backend.ts';
import { MemoryBackend } from './memory.ts';
import { SqliteBackend } from './sqlite.ts';

export type BackendKind = 'sqlite' | 'memory';

export interface OpenBackendOptions {
  /** Where the sqlite backend keeps its file, `<dataDir>/plinth.db` (default ./data). */
  dataDir?: string;
}

/** Async because backends yet to come (etcd) connect before they can answer. */
export async function openBackend(kind: BackendKind, opts: OpenBackendOptions = {}): Promise<Backend> {
  switch (kind) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite': {
      const dataDir = opts.dataDir ?? 'data';
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      return new SqliteBackend(path.join(dataDir, 'plinth.db'));
    }
  }
}
