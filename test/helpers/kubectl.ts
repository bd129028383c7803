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

/** One request of a `-v=8` kubectl run and what the server answered, read from its log. */
export interface TracedExchange {
  method: string;
  url: string;
  accept?: string;
  status?: number;
  contentType?: string;
}

/**
 * The requests in the log of a kubectl run at `-v=8` (or more): method, URL, Accept, the
 * answer's status and Content-Type. Reads both log styles: kubectl 1.32's
 * (`GET https://…`, `Request Headers:`, `Response Status: 200 OK`, `Response Headers:`) and
 * 1.33's structured lines (`"Request" verb="GET" url="…" headers=<`, `"Response" status="200 OK" headers=<`).
 */
export function tracedExchanges(log: string): TracedExchange[] {
  const exchanges: TracedExchange[] = [];
  let current: TracedExchange | undefined;
  let section: 'request' | 'response' | undefined;
  for (const line of log.split('\n')) {
    const old = /\] (GET|POST|PUT|PATCH|DELETE) (https?:\/\/\S+)$/.exec(line);
    const structured = /"Request" verb="(\w+)" url="([^"]+)"/.exec(line);
    const request = old ?? structured;
    if (request !== null) {
      current = { method: request[1]!, url: request[2]! };
      exchanges.push(current);
      section = 'request';
      continue;
    }
    const status = /Response Status: (\d+)|"Response" status="(\d+)/.exec(line);
    if (status !== null && current !== undefined) {
      current.status = Number(status[1] ?? status[2]);
      section = 'response';
      continue;
    }
    if (/"(Request|Response) Body"/.test(line)) section = undefined;
    const header = /^(?:\S+ \S+ +\d+ \S+\] +|\t)(Accept|Content-Type): (.+)$/.exec(line);
    if (header === null || current === undefined) continue;
    if (section === 'request' && header[1] === 'Accept') current.accept = header[2]!.trim();
    if (section === 'response' && header[1] === 'Content-Type') current.contentType = header[2]!.trim();
  }
  return exchanges;
}

/** A kubectl run at `-v=8`: its stdout and the requests of its log; a failure throws with the log's errors. */
export async function kubectlTraced(bin: string, flags: string[], ...args: string[]): Promise<{ stdout: string; exchanges: TracedExchange[] }> {
  try {
    const { stdout, stderr } = await run(bin, [...flags, '-v=8', ...args], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    return { stdout, exchanges: tracedExchanges(stderr) };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const errors = (e.stderr ?? '').split('\n').filter((l) => !/^I\d{4} /.test(l) && !/^\t/.test(l)).join('\n');
    throw new Error(`kubectl ${args.join(' ')} failed: ${errors || e.message}`);
  }
}
