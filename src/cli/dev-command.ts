/**
 * `rocketmq-lambda dev`: runs the poller for serverless.yml's `rocketmq` events on this machine, with the
 * handlers invoked in-process (TypeScript without a build step, reloaded on edit), offsets in an embedded
 * DynamoDB persisted under `.rocketmq-lambda/`, against a given name server or a local broker. Ctrl-C
 * stops everything it started (exit 0); a second Ctrl-C exits at once.
 */
import { pino } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { startDevSession } from '../dev/dev-session.js';
import { DEV_PLACEHOLDER_CREDENTIAL } from '../dev/serverless-print.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { type CommandHelp, declareCommand, parseCommand, usageError } from './cli-command.js';
import { abortOnStopSignals, type CliIo } from './cli-io.js';
import { collect } from './collect-option.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

/** What `dev --help` says beyond its options. */
export const DEV_HELP: CommandHelp = {
  name: 'dev',
  description: `Runs the poller locally for every rocketmq event in serverless.yml: handlers run in-process (TypeScript
sources preferred over dist/ builds, reloaded when their file changes), offsets are kept in an embedded
DynamoDB under <state dir>/dynamodb. Shows a live line per mapping on a terminal. Ctrl-C stops it.

serverless.yml is read as \`serverless print\` resolves it: a file with variables (\${self:...}, \${sls:stage},
\${opt:...}, \${env:...}, \${file(...)}, \${param:...}, \${ssm:...}, ...) needs the Serverless Framework
installed in the service (serverless v3 or osls), which dev runs there with --stage, --region and --param.`,
  examples: [
    'rocketmq-lambda dev --local-broker',
    'rocketmq-lambda dev --name-server 127.0.0.1:9876 --stage test --param tableName=orders',
    'rocketmq-lambda dev --invoke-endpoint http://127.0.0.1:3002',
  ],
  exitCodes: { [EXIT_USAGE]: 'bad arguments, or serverless.yml has no valid rocketmq events' },
  environment: {
    'ROCKETMQ_NAME_SERVER, NAMESRV_ADDR': 'name servers when neither the options nor serverless.yml give one',
    LOG_LEVEL: 'pino level of the logs (default info)',
  },
};

/** The options of `dev`, as commander parses them. */
interface DevOptions {
  readonly config: string;
  readonly nameServer?: string;
  readonly localBroker?: boolean;
  readonly stage?: string;
  readonly region?: string;
  readonly param: string[];
  readonly stateDir?: string;
  readonly invokeEndpoint?: string;
}

/**
 * Runs `dev` with the arguments after the command name; resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await devCommand(['--local-broker'], processIo());
 * ```
 */
export async function devCommand(args: readonly string[], io: CliIo): Promise<number> {
  const command = declareCommand(DEV_HELP, io)
    .option('-c, --config <file>', 'serverless.yml', 'serverless.yml')
    .option(
      '--name-server <addr>',
      'host:port[;host:port]; default custom.rocketmq.nameServers, else ROCKETMQ_NAME_SERVER',
    )
    .option(
      '--local-broker',
      'start a local RocketMQ (Java 17 + Maven) and create the mapped topics (4 queues)',
    )
    .option('--stage <stage>', 'the stage, as serverless --stage (default provider.stage, else dev)')
    .option('--region <region>', 'the region, as serverless --region')
    .option('--param <key=value>', `a \${param:key} value, as serverless --param (repeatable)`, collect, [])
    .option(
      '--state-dir <dir>',
      'offsets, handler shims and broker logs (default <service dir>/.rocketmq-lambda)',
    )
    .option(
      '--invoke-endpoint <url>',
      "invoke the functions through this Lambda Invoke API (serverless-offline's --lambdaPort) as <service>-<stage>-<function> instead of in-process",
    );
  const parsed = parseCommand<DevOptions>(command, args);
  if (typeof parsed === 'number') return parsed;
  const values = parsed.options;
  if (values.localBroker === true && values.nameServer !== undefined) {
    return usageError(command, io, 'use --name-server or --local-broker, not both');
  }
  const invokeEndpoint = values.invokeEndpoint;
  if (invokeEndpoint !== undefined && !/^https?:\/\/[^/]/.test(invokeEndpoint)) {
    return usageError(
      command,
      io,
      `--invoke-endpoint must be an http(s) URL such as http://127.0.0.1:3002, got ${JSON.stringify(invokeEndpoint)}`,
    );
  }
  const badParam = values.param.find((param) => !/^[^=\s]+=/.test(param));
  if (badParam !== undefined) {
    return usageError(command, io, `--param must be key=value, got ${JSON.stringify(badParam)}`);
  }
  useLocalCredentials(io.env);
  const tty = process.stdout.isTTY === true && io.stdout === process.stdout;
  const logger: Logger =
    io.logger ?? pino({ level: io.env.LOG_LEVEL ?? 'info', base: { pid: process.pid } }, process.stdout);
  const log = componentLogger('cli', logger);

  const stop = abortOnStopSignals(io, log, 'stopping everything dev started');
  try {
    let session: Awaited<ReturnType<typeof startDevSession>>;
    try {
      session = await startDevSession({
        configFile: values.config,
        env: io.env,
        stage: values.stage,
        region: values.region,
        params: values.param,
        nameServer: values.nameServer,
        localBroker: values.localBroker === true,
        stateDir: values.stateDir,
        invokeEndpoint,
        logger,
        stdout: process.stdout,
        tty,
      });
    } catch (error) {
      if (error instanceof ConfigError) {
        io.stderr.write(`rocketmq-lambda dev: ${error.message}\n`);
        return EXIT_USAGE;
      }
      log.error({ err: error }, 'dev could not start');
      io.stderr.write(`rocketmq-lambda dev: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_FAILURE;
    }
    const onAbort = (): void => {
      session.stop().catch((error: unknown) => log.error({ err: error }, 'stopping dev failed'));
    };
    if (stop.signal.aborted) onAbort();
    else stop.signal.addEventListener('abort', onAbort, { once: true });
    const exit = await session.stopped;
    stop.signal.removeEventListener('abort', onAbort);
    for (const { mapping, error } of exit.failures) {
      io.stderr.write(
        `rocketmq-lambda dev: mapping ${mapping} failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
    return exit.failures.length === 0 ? 0 : EXIT_FAILURE;
  } finally {
    stop.remove();
  }
}

/**
 * The embedded DynamoDB checks no credentials, but the AWS SDK wants some: placeholders when the
 * environment has none (a profile or real keys are left alone).
 */
function useLocalCredentials(env: Readonly<Record<string, string | undefined>>): void {
  if (env !== process.env) return;
  if (env.AWS_ACCESS_KEY_ID !== undefined || env.AWS_PROFILE !== undefined) return;
  // The Framework that resolves serverless.yml's variables is not given these (see DEV_PLACEHOLDER_CREDENTIAL).
  process.env.AWS_ACCESS_KEY_ID = DEV_PLACEHOLDER_CREDENTIAL;
  process.env.AWS_SECRET_ACCESS_KEY = DEV_PLACEHOLDER_CREDENTIAL;
}
