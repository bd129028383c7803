// Reading a file of the data dir that may not exist yet (the admin token, the CA and
// serving certificate): absence is an answer, any other failure is an error. In api/
// because auth/ may import nothing else and server/ needs it too.

import { readFile } from 'node:fs/promises';

/** The UTF-8 text of `path`, or undefined when there is no such file. */
export async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
