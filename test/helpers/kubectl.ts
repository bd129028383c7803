// Running kubectl (/usr/bin/kubectl) against a test server, with its stderr in the error.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { TestServer } from './server.ts';

export const kubectlBin = '/usr/bin/kubectl';

/** A describe() option that skips the suite where kubectl is not installed. */
export const needsKubectl = { skip: existsSync(kubectlBin) ? false : `kubectl is not installed at ${kubectlBin}` };

const run = promisify(execFile);

/** The stdout of the kubectl at `bin` with `flags` before `args`; a failure throws with kubectl's stderr. */
export async function kubectlAt(bin: string, flags: string[], ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(bin, [...flags, ...args], { timeout: 60_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

/** kubectl's stdout against a test server; a failure throws with kubectl's stderr. */
export function kubectl(server: TestServer, ...args: string[]): Promise<string> {
  return kubectlAt(kubectlBin, ['--kubeconfig', server.kubeconfigPath], ...args);
}
