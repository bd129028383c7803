// The `plinth` command: picks the subcommand and answers with an exit code.
import { parseServeFlags, serveUsage, UsageError, type Config } from './config.ts';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadYaml } from '../api/yaml.ts';
import { issueClientCertificate } from '../server/tls-material.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { createLogger, type Logger } from './logger.ts';
import { startIdleMemoryRelease } from './idle-memory.ts';
import { plinthVersion, serve, type RunningServer } from './serve.ts';
import { versionInfo } from '../endpoints/version.ts';
import { joinHostPort } from '../api/go-dial-error.ts';
import { flagsOfFailure } from './flag-parsing.ts';

/** What the entry point wants to hear of a run. */
export interface RunHooks {
  /** `plinth serve` serves (called once, after the "serving on" line). */
  onServing?: () => void;
}

/** `plinth <command> [flags]`; resolves with the exit code. */
async function main(argv: string[], hooks: RunHooks): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(serveUsage);
    return command === undefined ? 2 : 0;
  }
  if (command === 'version' || command === '--version') {
    // What /version answers, so that a client sees the same.
    process.stdout.write(`${JSON.stringify(versionInfo(plinthVersion), null, 2)}\n`);
    return 0;
  }
  if (command === 'kubeconfig') return kubeconfigCommand(args);
  if (command !== 'serve') {
    process.stderr.write(`unknown command "${command}"\n${serveUsage}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(serveUsage);
    return 0;
  }
  const config = parseServeFlags(args);
  // As pflag prints them: deprecated flags still work, and say so.
  for (const warning of config.flagWarnings) process.stderr.write(`${warning}\n`);
  const logger = createLogger({ format: config.logFormat, verbosity: config.verbosity });
  const running = await startServing(config, logger);
  logger.info(`plinth serving on ${running.url} (ready ${Math.round(performance.now())} ms after process start); kubeconfig: ${running.kubeconfigPath}`);
  hooks.onServing?.();
  // The process is the server's: it may collect its garbage when it likes.
  const idleMemory = config.releaseIdleMemory
    ? startIdleMemoryRelease(undefined, {
      onCollection: ({ beforeBytes, afterBytes, pauseMs }) => logger.info(`quiet: heap ${mebibytes(beforeBytes)} → ${mebibytes(afterBytes)} MiB after a full collection (${Math.round(pauseMs)} ms)`, 2),
      onFailure: (err) => logger.error(`releasing idle memory stopped: ${err.message}`),
    })
    : undefined;

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  logger.info('plinth shutting down');
  idleMemory?.stop();
  await running.close();
  logger.info('plinth stopped');
  return 0;
}

const mebibytes = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * serve() for the command line: until the server serves, the process is held open (a start
 * waiting on storage that does not answer, an etcd that is down, keeps trying and logging
 * rather than the process ending quietly with 0 once nothing else is pending). A start that
 * fails leaves the data dir as it found it: what it made there (the directory itself, or
 * certificates, tokens, the database, the kubeconfig) is removed, nothing having used them
 * yet; it logs its stack at -v=4.
 */
async function startServing(config: Config, logger: Logger): Promise<RunningServer> {
  const dataDir = path.resolve(config.dataDir);
  const made = firstMissing(dataDir);
  const present = made === undefined ? await entriesOf(dataDir) : undefined;
  const holdOpen = setInterval(() => {}, 2 ** 30);
  try {
    return await serve(config, (message) => logger.info(message), { verbosity: logger.verbosity });
  } catch (err) {
    logger.info(`start failed: ${(err as Error)?.stack ?? String(err)}`, 4);
    if (made !== undefined) await rm(made, { recursive: true, force: true }).catch(() => {});
    else if (present !== undefined) {
      for (const name of await entriesOf(dataDir) ?? []) {
        if (!present.has(name) && dataDirEntries.has(name)) await rm(path.join(dataDir, name), { recursive: true, force: true }).catch(() => {});
      }
    }
    throw listenError(err, config.bindAddress, config.securePort);
  } finally {
    clearInterval(holdOpen);
  }
}

/** What Go's syscall package words for the errors binding the port meets, as upstream's CreateListener reports them. */
const bindErrors: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use', EADDRNOTAVAIL: 'cannot assign requested address', EACCES: 'permission denied', EPERM: 'operation not permitted',
};

/** A port that could not be bound, in upstream's words: `failed to create listener: failed to listen on 127.0.0.1:6443: listen tcp 127.0.0.1:6443: bind: address already in use`; other errors as they are. */
function listenError(err: unknown, bindAddress: string, port: number): unknown {
  const { code, syscall } = (err ?? {}) as NodeJS.ErrnoException;
  const words = code === undefined ? undefined : bindErrors[code];
  if (words === undefined || (syscall !== 'bind' && syscall !== 'listen')) return err;
  const address = joinHostPort(bindAddress, port);
  return new Error(`failed to create listener: failed to listen on ${address}: listen tcp ${address}: bind: ${words}`);
}

/** What a start writes in a data dir (and only that is taken back from one that existed: others may keep their files there). */
const dataDirEntries = new Set(['pki', 'tokens.csv', 'kubeconfig', 'plinth.db', 'plinth.db-wal', 'plinth.db-shm', 'plinth.db-journal']);

/** The names in a directory; undefined when it cannot be read (or is not one). */
async function entriesOf(dir: string): Promise<Set<string> | undefined> {
  return readdir(dir).then((names) => new Set(names), () => undefined);
}

/** The outermost directory of `dir` that does not exist yet (what making `dir` creates); undefined when it exists. */
function firstMissing(dir: string): string | undefined {
  let missing: string | undefined;
  for (let at = dir; !existsSync(at); at = path.dirname(at)) {
    missing = at;
    if (path.dirname(at) === at) break;
  }
  return missing;
}

const kubeconfigUsage = `Usage: plinth kubeconfig --user NAME [flags]

Prints a kubeconfig for NAME, with a client certificate (CN NAME, O each group) signed by
the data dir's client CA, for the server the data dir's kubeconfig points at.

Flags:
  --user string       the user name (required)
  --groups strings    the user's groups, comma-separated
  --data-dir string   the server's data directory (default "./data")
  --server string     the server's URL (default: the data dir's kubeconfig's)
`;

async function kubeconfigCommand(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(kubeconfigUsage);
    return 0;
  }
  const { values } = parseArgs({ args, strict: true, options: { user: { type: 'string' }, groups: { type: 'string' }, 'data-dir': { type: 'string' }, server: { type: 'string' } } });
  if (values.user === undefined || values.user === '') throw new UsageError(`--user is required\n${kubeconfigUsage}`);
  const dataDir = path.resolve(values['data-dir'] ?? './data');
  let server = values.server;
  if (server === undefined) {
    const existing = (await loadYaml()).parse(await readFile(path.join(dataDir, 'kubeconfig'), 'utf8').catch(() => {
      throw new UsageError(`no kubeconfig in ${dataDir}: start the server once, or give --server`);
    })) as { clusters?: Array<{ cluster?: { server?: string } }> };
    server = existing.clusters?.[0]?.cluster?.server;
    if (server === undefined) throw new UsageError(`the kubeconfig in ${dataDir} names no server: give --server`);
  }
  const groups = (values.groups ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
  const caPem = await readFile(path.join(dataDir, 'pki/ca.crt'), 'utf8').catch(() => {
    throw new UsageError(`no serving CA in ${dataDir}/pki: start the server on this data dir once`);
  });
  const { certPem, keyPem } = await issueClientCertificate(dataDir, values.user, groups).catch((err: unknown) => {
    throw new UsageError((err as Error).message);
  });
  process.stdout.write(kubeconfigYaml({ server, caPem, clientCertificate: { certPem, keyPem }, name: values.user }));
  return 0;
}

/** Runs main and exits with its code, or as failureLine tells a failure. */
export function run(argv: string[], hooks: RunHooks = {}): void {
  main(argv, hooks).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const { line, code } = failureLine(err);
      process.stderr.write(`${line}\n`);
      process.exit(code);
    },
  );
}

/**
 * What the command says of a failure, in one line, and its exit code: a usage error (a bad
 * flag, or a file a flag names that does not load) with 2, anything else that stops it with
 * 1; a programming error, a bug, with its stack.
 */
export function failureLine(err: unknown): { line: string; code: number } {
  if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) return { line: `plinth: ${err.message}`, code: 2 };
  const flags = flagsOfFailure(err);
  if (flags !== undefined) return { line: `plinth: ${flags}: ${(err as Error).message}`, code: 2 };
  return { line: `plinth: ${isBug(err) ? (err as Error).stack : (err as Error)?.message ?? String(err)}`, code: 1 };
}

/** A programming error rather than a failure the start meets (a system call's, a file's, a peer's, which carry a code or are plain errors). */
function isBug(err: unknown): boolean {
  return (err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError) && !('code' in err);
}
