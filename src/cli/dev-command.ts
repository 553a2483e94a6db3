/**
 * `rocketmq-lambda dev`: runs the poller for serverless.yml's `rocketmq` events on this machine, with the
 * handlers invoked in-process (TypeScript without a build step, reloaded on edit), offsets in an embedded
 * DynamoDB persisted under `.rocketmq-lambda/`, against a given name server or a local broker. Ctrl-C
 * stops everything it started (exit 0); a second Ctrl-C exits at once.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ConfigError } from '../config/config-error.js';
import { startDevSession } from '../dev/dev-session.js';
import { DEV_PLACEHOLDER_CREDENTIAL } from '../dev/serverless-print.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { abortOnStopSignals, type CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_USAGE } from './run-command.js';

/** The help text of `dev`. */
export const DEV_USAGE = `Usage: rocketmq-lambda dev [--config serverless.yml] [--name-server host:port] [--local-broker] [--stage dev]
                           [--region eu-west-1] [--param key=value]... [--invoke-endpoint http://127.0.0.1:3002]

Runs the poller locally for every rocketmq event in serverless.yml: handlers run in-process (TypeScript
sources preferred over dist/ builds, reloaded when their file changes), offsets are kept in an embedded
DynamoDB under <state dir>/dynamodb. Shows a live line per mapping on a terminal. Ctrl-C stops it.

Options:
  -c, --config <file>       serverless.yml (default: ./serverless.yml)
      --name-server <addr>  host:port[;host:port]; default custom.rocketmq.nameServers, else ROCKETMQ_NAME_SERVER
      --local-broker        start a local RocketMQ (Java 17 + Maven) and create the mapped topics (4 queues)
      --stage <stage>       the stage, as serverless --stage (default provider.stage, else dev)
      --region <region>     the region, as serverless --region
      --param <key=value>   a \${param:key} value, as serverless --param (repeatable)
      --state-dir <dir>     offsets, handler shims and broker logs (default <service dir>/.rocketmq-lambda)
      --invoke-endpoint <url>
                            invoke the functions through this Lambda Invoke API (serverless-offline's
                            --lambdaPort) as <service>-<stage>-<function> instead of in-process
  -h, --help                show this help

serverless.yml is read as \`serverless print\` resolves it: a file with variables (\${self:...}, \${sls:stage},
\${opt:...}, \${env:...}, \${file(...)}, \${param:...}, \${ssm:...}, ...) needs the Serverless Framework
installed in the service (serverless v3 or osls), which dev runs there with --stage, --region and --param.
`;

/**
 * Runs `dev` with the arguments after the command name; resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await devCommand(['--local-broker'], processIo());
 * ```
 */
export async function devCommand(args: readonly string[], io: CliIo): Promise<number> {
  let values: {
    config?: string | undefined;
    'name-server'?: string | undefined;
    'local-broker'?: boolean | undefined;
    stage?: string | undefined;
    region?: string | undefined;
    param?: string[] | undefined;
    'state-dir'?: string | undefined;
    'invoke-endpoint'?: string | undefined;
    help?: boolean | undefined;
  };
  try {
    values = parseArgs({
      args: [...args],
      options: {
        config: { type: 'string', short: 'c' },
        'name-server': { type: 'string' },
        'local-broker': { type: 'boolean' },
        stage: { type: 'string' },
        region: { type: 'string' },
        param: { type: 'string', multiple: true },
        'state-dir': { type: 'string' },
        'invoke-endpoint': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    io.stderr.write(
      `rocketmq-lambda dev: ${error instanceof Error ? error.message : String(error)}\n\n${DEV_USAGE}`,
    );
    return EXIT_USAGE;
  }
  if (values.help === true) {
    io.stdout.write(DEV_USAGE);
    return 0;
  }
  if (values['local-broker'] === true && values['name-server'] !== undefined) {
    io.stderr.write(`rocketmq-lambda dev: use --name-server or --local-broker, not both\n\n${DEV_USAGE}`);
    return EXIT_USAGE;
  }
  const invokeEndpoint = values['invoke-endpoint'];
  if (invokeEndpoint !== undefined && !/^https?:\/\/[^/]/.test(invokeEndpoint)) {
    io.stderr.write(
      `rocketmq-lambda dev: --invoke-endpoint must be an http(s) URL such as http://127.0.0.1:3002, got ${JSON.stringify(invokeEndpoint)}\n\n${DEV_USAGE}`,
    );
    return EXIT_USAGE;
  }
  const badParam = values.param?.find((param) => !/^[^=\s]+=/.test(param));
  if (badParam !== undefined) {
    io.stderr.write(
      `rocketmq-lambda dev: --param must be key=value, got ${JSON.stringify(badParam)}\n\n${DEV_USAGE}`,
    );
    return EXIT_USAGE;
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
        configFile: values.config ?? 'serverless.yml',
        env: io.env,
        stage: values.stage,
        region: values.region,
        params: values.param,
        nameServer: values['name-server'],
        localBroker: values['local-broker'] === true,
        stateDir: values['state-dir'],
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
