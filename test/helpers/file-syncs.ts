// Counting fsyncs of files written through node:fs/promises' FileHandle.
import { rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** How many times FileHandle.sync is called while `body` runs. */
export async function fileSyncsDuring(body: () => Promise<void>): Promise<number> {
  const probePath = path.join(os.tmpdir(), `plinth-sync-probe-${process.pid}`);
  const probe = await open(probePath, 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  rmSync(probePath, { force: true });
  const original = proto.sync;
  let count = 0;
  proto.sync = function (this: unknown) {
    count++;
    return original.call(this);
  };
  try {
    await body();
  } finally {
    proto.sync = original;
  }
  return count;
}
