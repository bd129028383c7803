// Following a configuration file (`--authentication-config`, `--authorization-config`) as
// upstream's filesystem.WatchUntil does: a change event in its directory (the file itself may
// be replaced by a rename, as a mounted ConfigMap is) and a poll every minute. Reloads run one
// at a time; a change noticed during one is looked at once it is done.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export function watchFile(file: string, reload: () => Promise<void>, intervalMs = 60_000): { close(): void } {
  let running: Promise<void> | undefined;
  let again = false;
  const check = (): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    // The reloads report their own failures; one that throws still must not stop the server
    // (an unhandled rejection would).
    running = reload().catch(() => {}).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        check();
      }
    });
  };
  let watcher: FSWatcher | undefined;
  try {
    const base = path.basename(file);
    watcher = watch(path.dirname(file), (_event, name) => {
      if (name === null || name === base || name.startsWith('..')) check();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // No watch on this file system: the poll alone notices changes.
  }
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return {
    close() {
      watcher?.close();
      clearInterval(timer);
    },
  };
}
