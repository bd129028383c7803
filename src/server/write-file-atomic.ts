// Writes a file whole or not at all: a temporary file beside it, flushed, then renamed.
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** How files in the data dir are written. */
export interface FileWriteOptions {
  /**
   * Whether a file is synced to disk before it counts as written (default true); false
   * where the data dir is thrown away with the process that wrote it.
   */
  sync?: boolean;
}

/**
 * Writes `data` to `path` so that readers see either the old file or the whole new one:
 * a temporary file beside it (created with `mode`, so a secret is never readable by
 * others, not even briefly), flushed, then renamed over the target. Synchronous: the
 * files are small and written while a server starts, where each of the six steps done
 * asynchronously waited for a turn of the event loop and a thread of the pool (a
 * kubeconfig took 13–31 ms that way while the start went on, 2–4 ms like this).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode: number, opts: FileWriteOptions = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      writeFileSync(fd, data);
      // The umask may have narrowed `mode`; a secret must not be wider than asked either way.
      fchmodSync(fd, mode);
      if (opts.sync !== false) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
