// Counting fsyncs of files: FileHandle.sync (node:fs/promises) and fsyncSync (node:fs).
import fs, { rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** How many times FileHandle.sync and fsyncSync are called while `body` runs. */
export async function fileSyncsDuring(body: () => Promise<void>): Promise<number> {
  const probePath = path.join(os.tmpdir(), `plinth-sync-probe-${process.pid}`);
  const probe = await open(probePath, 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  rmSync(probePath, { force: true });
  const original = proto.sync;
  const originalSync = fs.fsyncSync;
  let count = 0;
  proto.sync = function (this: unknown) {
    count++;
    return original.call(this);
  };
  fs.fsyncSync = (fd) => {
    count++;
    originalSync(fd);
  };
  // Modules that import fsyncSync by name see the counting one too.
  syncBuiltinESMExports();
  try {
    await body();
  } finally {
    proto.sync = original;
    fs.fsyncSync = originalSync;
    syncBuiltinESMExports();
  }
  return count;
}
