// Starts real Plinth servers for end-to-end tests, in-process or as a child process,
// on free loopback ports with temporary data dirs, and talks HTTPS to them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig, type Config } from '../../src/cli/config.ts';
import { serve, type RunningServer } from '../../src/cli/serve.ts';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export function tempDir(prefix = 'plinth-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestServer extends RunningServer {
  dataDir: string;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<Response>;
  /** Stops the server and removes its data dir. */
  stop(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body bytes/text, sent as is. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Send no Authorization header. */
  anonymous?: boolean;
  token?: string;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

/** An in-process server on memory storage (or as configured). */
export async function startServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? tempDir();
  const running = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, ...overrides, dataDir }, () => {});
  const agent = new https.Agent({ ca: running.caPem, keepAlive: true });
  return {
    ...running,
    dataDir,
    request: (method, urlPath, opts = {}) => httpsRequest(agent, running.url, running.token, method, urlPath, opts),
    async stop() {
      agent.destroy();
      await running.close();
      if (overrides.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function httpsRequest(agent: https.Agent, baseUrl: string, token: string, method: string, urlPath: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (!opts.anonymous) headers.authorization ??= `Bearer ${opts.token ?? token}`;
  let payload: string | Buffer | undefined = opts.raw;
  if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(urlPath, baseUrl), { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  kubeconfigPath: string;
  dataDir: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `plinth serve` as a child process (by default the way `npm start` runs it)
 * and waits for its "serving on" log line.
 */
export async function startServerProcess(args: string[] = [], opts: { viaNpm?: boolean; dataDir?: string } = {}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? tempDir();
  const flags = ['--data-dir', dataDir, '--secure-port', '0', ...args];
  const child = opts.viaNpm
    // Its own process group, so that a signal reaches npm's shell and the server under it.
    ? spawn('npm', ['start', '--silent', '--', ...flags], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, [path.join(repoRoot, 'src/cli/main.ts'), 'serve', ...flags], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /serving on (https:\/\/\S+)/.exec(log);
      if (match) {
        child.stderr!.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.resume();
    void exited.then((code) => reject(new Error(`server exited with ${code} before serving:\n${log}`)));
    setTimeout(() => reject(new Error(`server did not start in 20 s:\n${log}`)), 20_000).unref();
  });
  return {
    child, url, dataDir, exited,
    kubeconfigPath: path.join(dataDir, 'kubeconfig'),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        if (opts.viaNpm) process.kill(-child.pid!, signal);
        else child.kill(signal);
      }
      const code = await exited;
      if (opts.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
