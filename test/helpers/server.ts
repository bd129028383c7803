// Starts real Plinth servers for end-to-end tests, in-process or as a child process,
// on free loopback ports with temporary data dirs, and talks HTTPS to them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig, type Config } from '../../src/cli/config.ts';
import { serve, type RunningServer, type ServeDependencies } from '../../src/cli/serve.ts';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export function tempDir(prefix = 'plinth-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestServer extends RunningServer {
  dataDir: string;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<Response>;
  /** Creates a namespace of its own for one test (`<prefix>-<n>`) and answers its name. */
  newNamespace(prefix: string): Promise<string>;
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
  /** The body's bytes as received (not decompressed). */
  bytes: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

/**
 * An in-process server on memory storage (or as configured). Without the root CA
 * publisher unless asked: its kube-root-ca.crt ConfigMap in every namespace would show up
 * in the lists and watches of ConfigMaps that most tests use as their plain type.
 */
/** `awaitStarted: false` answers as soon as the server serves, before its later start-up steps finish. */
export async function startServer(overrides: Partial<Config> = {}, deps: ServeDependencies = {}, { awaitStarted = true } = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? tempDir();
  const running = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, enableRootCaPublisher: false, ...overrides, dataDir }, () => {}, deps);
  // Ready as /readyz says it: the steps after serving (the policies' informers among them) done.
  if (awaitStarted) await running.started;
  const agent = new https.Agent({ ca: running.caPem, keepAlive: true });
  const request = (method: string, urlPath: string, opts: RequestOptions = {}) => httpsRequest(agent, running.url, running.token, method, urlPath, opts);
  let namespaces = 0;
  return {
    ...running,
    dataDir,
    request,
    async newNamespace(prefix) {
      const name = `${prefix}-${++namespaces}`;
      const res = await request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
      if (res.status !== 201) throw new Error(`creating namespace ${name}: ${res.status} ${res.text}`);
      return name;
    },
    async stop() {
      agent.destroy();
      await running.close();
      if (overrides.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function httpsRequest(agent: https.Agent, baseUrl: string, token: string, method: string, urlPath: string, opts: RequestOptions = {}): Promise<Response> {
  return sendOnce(agent, baseUrl, token, method, urlPath, opts).catch((err: unknown) => {
    // A kept-alive connection the server closed while idle fails the request sent on it
    // before the server read a byte of it: Node's documented answer is to send it again.
    if ((err as { reusedSocket?: boolean }).reusedSocket === true && (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
      return sendOnce(agent, baseUrl, token, method, urlPath, opts);
    }
    throw err;
  });
}

function sendOnce(agent: https.Agent, baseUrl: string, token: string, method: string, urlPath: string, opts: RequestOptions): Promise<Response> {
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
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(payload);
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** What the server logged up to its "serving on" line. */
  startLog: string;
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
export async function startServerProcess(args: string[] = [], opts: { viaNpm?: boolean; dataDir?: string; /** Node flags besides npm start's (not via npm). */ nodeFlags?: string[]; env?: Record<string, string> } = {}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? tempDir();
  const flags = ['--data-dir', dataDir, '--secure-port', '0', ...args];
  const child = opts.viaNpm
    // Its own process group, so that a signal reaches npm's shell and the server under it.
    ? spawn('npm', ['start', '--silent', '--', ...flags], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    // The same Node flags as `npm start` (the young generation held at 32 MiB).
    : spawn(process.execPath, ['--max-semi-space-size=16', ...(opts.nodeFlags ?? []), path.join(repoRoot, 'src/cli/main.cjs'), 'serve', ...flags], {
      cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
    });
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
    child, url, dataDir, exited, startLog: log,
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

export interface WatchStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The next event (parsed line), or undefined when the stream ended; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<any>;
  /** Every event until the stream ends. */
  rest(): Promise<any[]>;
  close(): void;
}

/** Opens a watch (or any streaming GET) and reads it line by line. */
export function openStream(server: TestServer, urlPath: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca: server.caPem });
    const req = https.get(new URL(urlPath, server.url), { agent, headers: { authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      const lines: any[] = [];
      const waiters: ((v: any) => void)[] = [];
      let ended = false;
      let buffer = '';
      const push = (value: any) => {
        const waiter = waiters.shift();
        if (waiter) waiter(value);
        else lines.push(value);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim() !== '') push(JSON.parse(line));
        }
      });
      const finish = () => {
        if (ended) return;
        ended = true;
        if (buffer.trim() !== '') {
          try { push(JSON.parse(buffer)); } catch { push({ raw: buffer }); }
        }
        for (const w of waiters.splice(0)) w(undefined);
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const next = (timeoutMs = 5000) => {
        if (lines.length > 0) return Promise.resolve(lines.shift());
        if (ended) return Promise.resolve(undefined);
        return new Promise<any>((resolveNext, rejectNext) => {
          const timer = setTimeout(() => {
            waiters.splice(waiters.indexOf(done), 1);
            rejectNext(new Error(`no event within ${timeoutMs} ms`));
          }, timeoutMs);
          const done = (v: any) => {
            clearTimeout(timer);
            resolveNext(v);
          };
          waiters.push(done);
        });
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        next,
        async rest() {
          const all: any[] = [];
          for (let e = await next(30_000); e !== undefined; e = await next(30_000)) all.push(e);
          return all;
        },
        close() {
          req.destroy();
          agent.destroy();
        },
      });
    });
    req.on('error', reject);
  });
}

export interface ByteStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Everything received so far. */
  received(): Buffer;
  /** Waits until what was received satisfies `check` (or the stream ends): answers it. */
  waitFor(check: (received: Buffer) => boolean, timeoutMs?: number): Promise<Buffer>;
  close(): void;
}

/** Opens a streaming GET whose body is binary (a Protobuf or CBOR watch) and collects its bytes. */
export function openByteStream(server: TestServer, urlPath: string, headers: Record<string, string> = {}): Promise<ByteStream> {
  return new Promise((resolve, reject) => {
    const agent = new https.Agent({ ca: server.caPem });
    const req = https.get(new URL(urlPath, server.url), { agent, headers: { authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      let buffer = Buffer.alloc(0);
      let ended = false;
      const listeners = new Set<() => void>();
      const notify = () => {
        for (const l of [...listeners]) l();
      };
      res.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        notify();
      });
      const finish = () => {
        ended = true;
        notify();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        received: () => buffer,
        waitFor(check, timeoutMs = 5000) {
          return new Promise((resolveWait, rejectWait) => {
            const test = () => {
              if (check(buffer) || ended) {
                listeners.delete(test);
                clearTimeout(timer);
                resolveWait(buffer);
              }
            };
            const timer = setTimeout(() => {
              listeners.delete(test);
              rejectWait(new Error(`stream did not reach the expected state within ${timeoutMs} ms (${buffer.length} bytes)`));
            }, timeoutMs);
            listeners.add(test);
            test();
          });
        },
        close() {
          req.destroy();
          agent.destroy();
        },
      });
    });
    req.on('error', reject);
  });
}
