/**
 * `rocketmq-lambda dev`: runs the poller for serverless.yml's `rocketmq` events on this machine, with the
 * handlers invoked in-process (TypeScript without a build step, reloaded on edit), offsets in an embedded
 * DynamoDB persisted under `.rocketmq-lambda/`, against a given name server, a local broker or a local
 * cluster. Ctrl-C
 * stops everything it started (exit 0); a second Ctrl-C exits at once.
 */
import { ConfigError } from '../config/config-error.js';
import { DEFAULT_CONSOLE_PORT } from '../dev/console/console-port.js';
import { ConsolePortError } from '../dev/console/console-server.js';
import { type DevSession, startDevSession } from '../dev/dev-session.js';
import { localBrokersLine } from '../dev/local-rocketmq.js';
import { DEV_PLACEHOLDER_CREDENTIAL } from '../serverless-service/serverless-print.js';
import { describeError } from '../util/describe-error.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { OptionalModuleMissingError } from '../util/optional-module.js';
import { formatStartupTimeline, markStartupPhase } from '../util/startup-timeline.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import { abortOnStopSignals, type CliIo, signalExitCode } from './cli-io.js';
import { cliLogger } from './cli-logger.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';
import { keyValues, portNumber } from './option-parsers.js';
import { terminalStyle } from './terminal-style.js';

/** What `dev --help` says beyond its options. */
export const DEV_HELP: CommandHelp = {
  name: 'dev',
  description:
    `Runs the poller locally for every rocketmq event in serverless.yml: handlers run in-process (TypeScript sources preferred over dist/ builds, reloaded when their file changes), offsets are kept in an embedded DynamoDB under <state dir>/dynamodb. Shows a live line per mapping on a terminal. Ctrl-C stops it.\n\n` +
    `serverless.yml is read as \`serverless print\` resolves it. Variables that read only \${env:...}, \${opt:stage}, \${opt:region}, \${sls:stage} and \${self:...}, with quoted, number or true/false fallbacks, dev resolves itself by the Framework's rules, without running it. Any other (\${file(...)}, \${param:...}, \${ssm:...}, a plugin's, ...), one without a value, or a service with useDotenv needs the Serverless Framework installed in the service (serverless v3 or osls), which dev runs there with --stage, --region and --param.`,
  examples: [
    'rocketmq-lambda dev --local-broker',
    'rocketmq-lambda dev --local-cluster --with-slaves',
    'rocketmq-lambda dev --name-server 127.0.0.1:9876 --stage test --param tableName=orders',
    'rocketmq-lambda dev --invoke-endpoint http://127.0.0.1:3002',
  ],
  exitCodes: { [EXIT_USAGE]: 'bad arguments, or serverless.yml has no valid rocketmq events' },
  environment: {
    'ROCKETMQ_NAME_SERVER, NAMESRV_ADDR': 'name servers when neither the options nor serverless.yml give one',
    LOG_LEVEL: 'pino level of the logs (default warn; info with --verbose)',
  },
};

/** The options of `dev`, as commander parses them. */
interface DevOptions {
  readonly config: string;
  readonly nameServer?: string;
  readonly localBroker?: boolean;
  readonly localCluster?: boolean;
  readonly withSlaves?: boolean;
  readonly stage?: string;
  readonly region?: string;
  readonly param: string[];
  readonly stateDir?: string;
  readonly invokeEndpoint?: string;
  readonly consolePort: number;
  readonly console: boolean;
  readonly verbose?: boolean;
  readonly timings?: boolean;
}

/**
 * Runs `dev` with the arguments after the command name; resolves with the exit code.
 */
export const devCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  markStartupPhase('node, tsx and imports');
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
    .option(
      '--local-cluster',
      'start a local RocketMQ cluster instead: 2 broker groups (broker-a, broker-b), the mapped topics on both masters (4 queues each)',
    )
    .option('--with-slaves', 'with --local-cluster: a slave beside each master (master/slave replication)')
    .option('--stage <stage>', 'the stage, as serverless --stage (default provider.stage, else dev)')
    .option('--region <region>', 'the region, as serverless --region')
    .option(
      '--param <key=value>',
      `a \${param:key} value, as serverless --param (repeatable)`,
      keyValues('--param'),
      [],
    )
    .option(
      '--state-dir <dir>',
      'offsets, handler shims and broker logs (default <service dir>/.rocketmq-lambda)',
    )
    .option(
      '--invoke-endpoint <url>',
      "invoke the functions through this Lambda Invoke API (serverless-offline's --lambdaPort) as <service>-<stage>-<function> instead of in-process",
    )
    .option(
      '--console-port <n>',
      `the web console's port on 127.0.0.1 (0: any free port)`,
      portNumber('--console-port'),
      DEFAULT_CONSOLE_PORT,
    )
    .option('--no-console', 'no web console')
    .option(
      '--verbose',
      "also show the poller's, the SDK's and the local broker's info logs (default: warnings and errors only)",
    )
    .option(
      '--timings',
      'print the start-up timeline (ms per phase, from the process start to the first invocation) once the first batch is invoked',
    );
  const values = parseArgs<DevOptions>(command, args).options;
  const locals = [
    values.nameServer === undefined ? undefined : '--name-server',
    values.localBroker === true ? '--local-broker' : undefined,
    values.localCluster === true ? '--local-cluster' : undefined,
  ].filter((flag) => flag !== undefined);
  if (locals.length > 1) {
    throw usageExit(
      command,
      `use one of --name-server, --local-broker, --local-cluster, not ${locals.join(' and ')}`,
    );
  }
  if (values.withSlaves === true && values.localCluster !== true) {
    throw usageExit(command, '--with-slaves needs --local-cluster');
  }
  const invokeEndpoint = values.invokeEndpoint;
  if (invokeEndpoint !== undefined && !/^https?:\/\/[^/]/.test(invokeEndpoint)) {
    throw usageExit(
      command,
      `--invoke-endpoint must be an http(s) URL such as http://127.0.0.1:3002, got ${JSON.stringify(invokeEndpoint)}`,
    );
  }
  useLocalCredentials(io.env);
  const tty = process.stdout.isTTY === true && io.stdout === process.stdout;
  // The handlers' own output and the live status are what a developer watches; the poller's info logs
  // only with --verbose. Logs share stdout with the status block (which erases itself before each write).
  const logger: Logger =
    io.logger ??
    cliLogger({
      stream: process.stdout,
      level: io.env.LOG_LEVEL ?? (values.verbose === true ? 'info' : 'warn'),
      readable: tty,
      style: terminalStyle(process.stdout, io.env),
    });
  const log = componentLogger('cli', logger);

  const stop = abortOnStopSignals(io, log, 'stopping everything dev started');
  try {
    let session: DevSession;
    try {
      session = await startDevSession({
        configFile: values.config,
        env: io.env,
        stage: values.stage,
        region: values.region,
        params: values.param,
        nameServer: values.nameServer,
        localBroker: values.localBroker === true,
        localCluster:
          values.localCluster === true ? { slavesPerGroup: values.withSlaves === true ? 1 : 0 } : undefined,
        stateDir: values.stateDir,
        invokeEndpoint,
        console: values.console ? { port: values.consolePort } : undefined,
        onConsole: (url) => io.stdout.write(`${consoleLine(url)}\n`),
        logger,
        stdout: process.stdout,
        tty,
        onFirstInvocation:
          values.timings === true ? () => io.stdout.write(`${formatStartupTimeline()}\n`) : undefined,
      });
    } catch (error) {
      const signal = stop.stoppedBy();
      if (signal !== undefined) {
        // Ctrl-C during the start: what failed after it (a killed `serverless print`) is its echo.
        io.stderr.write(`rocketmq-lambda dev: stopped by ${signal} before it started\n`);
        return signalExitCode(signal);
      }
      if (error instanceof ConfigError) {
        io.stderr.write(`rocketmq-lambda dev: ${error.message}\n`);
        return EXIT_USAGE;
      }
      if (error instanceof OptionalModuleMissingError || error instanceof ConsolePortError) {
        // Its message names what to install; the resolver's own text would only repeat it.
        io.stderr.write(`rocketmq-lambda dev: ${error.message}\n`);
        return EXIT_FAILURE;
      }
      log.error({ err: error }, 'dev could not start');
      io.stderr.write(`rocketmq-lambda dev: ${describeError(error)}\n`);
      return EXIT_FAILURE;
    }
    io.stdout.write(`${startedLine(session)}\n`);
    const onAbort = (): void => {
      session.stop().catch((error: unknown) => log.error({ err: error }, 'stopping dev failed'));
    };
    if (stop.signal.aborted) onAbort();
    else stop.signal.addEventListener('abort', onAbort, { once: true });
    const exit = await session.stopped;
    stop.signal.removeEventListener('abort', onAbort);
    for (const { mapping, error } of exit.failures) {
      io.stderr.write(`rocketmq-lambda dev: mapping ${mapping} failed: ${describeError(error)}\n`);
    }
    return exit.failures.length === 0 ? 0 : EXIT_FAILURE;
  } finally {
    stop.remove();
  }
});

/**
 * The embedded DynamoDB checks no credentials, but the AWS SDK wants some: placeholders when the
 * environment has none (a profile or real keys are left alone). `dev` and `npm run demo` both call it.
 */
export function useLocalCredentials(env: Readonly<Record<string, string | undefined>>): void {
  if (env !== process.env) return;
  if (env.AWS_ACCESS_KEY_ID !== undefined || env.AWS_PROFILE !== undefined) return;
  // The Framework that resolves serverless.yml's variables is not given these (see DEV_PLACEHOLDER_CREDENTIAL).
  process.env.AWS_ACCESS_KEY_ID = DEV_PLACEHOLDER_CREDENTIAL;
  process.env.AWS_SECRET_ACCESS_KEY = DEV_PLACEHOLDER_CREDENTIAL;
}

/**
 * The lines dev prints once it runs: the name server (for other tools) and how to send a test message,
 * then the local broker's or cluster's brokers when dev started them.
 */
export function startedLine(session: Pick<DevSession, 'nameServer' | 'state' | 'local'>): string {
  const topic = session.state.topics[0] ?? '<topic>';
  const nameServer = `name server ${session.nameServer} (rocketmq-lambda send --topic ${topic} --body hi sends a test message)`;
  return session.local === undefined ? nameServer : `${nameServer}\n${localBrokersLine(session.local)}`;
}

/** The line that gives the console's address (docs/console-api.md). */
export function consoleLine(url: string): string {
  return `console: ${url} (invocations, replay, send, dead letters)`;
}
