// The `plinth` command: picks the subcommand and answers with an exit code.
import { parseServeFlags, serveUsage, UsageError } from './config.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadYaml } from '../api/yaml.ts';
import { issueClientCertificate } from '../server/tls-material.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { createLogger } from './logger.ts';
import { startIdleMemoryRelease } from './idle-memory.ts';
import { plinthVersion, serve } from './serve.ts';
import { versionInfo } from '../endpoints/version.ts';

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
  const running = await serve(config, (message) => logger.info(message));
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

/** Runs main and exits: usage errors with 2, anything else unexpected with 1. */
export function run(argv: string[], hooks: RunHooks = {}): void {
  main(argv, hooks).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
        process.stderr.write(`plinth: ${err.message}\n`);
        process.exit(2);
      }
      console.error(err);
      process.exit(1);
    },
  );
}
