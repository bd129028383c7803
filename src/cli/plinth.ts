// The `plinth` command: picks the subcommand and answers with an exit code.
import { parseServeFlags, serveUsage, UsageError } from './config.ts';
import { createLogger } from './logger.ts';
import { plinthVersion, serve } from './serve.ts';
import { versionInfo } from '../endpoints/version.ts';

/** `plinth <command> [flags]`; resolves with the exit code. */
async function main(argv: string[]): Promise<number> {
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
  if (command !== 'serve') {
    process.stderr.write(`unknown command "${command}"\n${serveUsage}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(serveUsage);
    return 0;
  }
  const config = parseServeFlags(args);
  const logger = createLogger({ format: config.logFormat, verbosity: config.verbosity });
  const running = await serve(config, (message) => logger.info(message));
  logger.info(`plinth serving on ${running.url} (ready ${Math.round(performance.now())} ms after process start); kubeconfig: ${running.kubeconfigPath}`);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  logger.info('plinth shutting down');
  await running.close();
  logger.info('plinth stopped');
  return 0;
}

/** Runs main and exits: usage errors with 2, anything else unexpected with 1. */
export function run(argv: string[]): void {
  main(argv).then(
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
