// Reading a file of the data dir that may not exist yet (the admin token, the CA and
// serving certificate): absence is an answer, any other failure is an error. In api/
// because auth/ may import nothing else and server/ needs it too. Synchronous: these are
// small files read while a server starts, where a read on the thread pool waited for a
// turn of the event loop too.

import { readFileSync } from 'node:fs';

/** The UTF-8 text of `path`, or undefined when there is no such file. */
export function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
