// Writes a file whole or not at all: a temporary file beside it, flushed, then renamed.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
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
 * others, not even briefly), flushed, then renamed over the target.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode: number, opts: FileWriteOptions = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      // The umask may have narrowed `mode`; a secret must not be wider than asked either way.
      await handle.chmod(mode);
      if (opts.sync !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
