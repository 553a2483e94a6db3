/**
 * `rocketmq-lambda run --config <file>` (or the config as JSON in `ROCKETMQ_LAMBDA_CONFIG`): load the
 * config, start the poller, stop it gracefully on SIGTERM/SIGINT (a second signal exits at once).
 *
 * Exit codes: 0 after a graceful stop; 1 when a mapping failed (fatally while running, or to start);
 * 2 for usage errors and invalid configs (one line per problem on stderr); 128 + n on a second signal.
 */
import { ConfigError } from '../config/config-error.js';
import { CONFIG_ENV_VARIABLE, loadConfig, loadConfigFromEnv } from '../config/load-config.js';
import type { RunConfig } from '../config/run-config.js';
import { healthFilePath } from '../poller/health-beat.js';
import { startPoller } from '../poller/poller.js';
import { describeError } from '../util/describe-error.js';
import { componentLogger, rootLogger } from '../util/logger.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { CliExit, cliCommand } from './cli-exit.js';
import { abortOnStopSignals, type CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE } from './exit-codes.js';

/** What `run --help` says beyond its options. */
export const RUN_HELP: CommandHelp = {
  name: 'run',
  description: `Starts a poller: reads RocketMQ topics and invokes a function per batch, as the mappings of the config say. Stops gracefully on SIGTERM or SIGINT (a second signal exits at once).`,
  examples: [
    'rocketmq-lambda run --config poller.yaml',
    `${CONFIG_ENV_VARIABLE}="$(cat poller.json)" rocketmq-lambda run`,
  ],
  exitCodes: {
    [EXIT_FAILURE]: 'the poller could not start, or a mapping failed while running',
    [EXIT_INTERRUPTED]: 'a second SIGINT (143: a second SIGTERM): stopped at once',
  },
  environment: {
    [CONFIG_ENV_VARIABLE]: 'the whole config as JSON, when --config is not given',
    'ROCKETMQ_NAME_SERVER, NAMESRV_ADDR': 'name servers when the config has no nameServer',
    'ROCKETMQ_ACCESS_KEY, ROCKETMQ_SECRET_KEY': 'ACL credentials when the config has no acl',
    'ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT, AWS_ENDPOINT_URL_DYNAMODB': "the offsets table's endpoint",
    AWS_REGION: 'the region of DynamoDB, Lambda and the destinations when the config has none',
    'AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_SNS':
      'other endpoints (local emulators)',
    AWS_ENDPOINT_URL_S3: 'the endpoint of onFailure S3 buckets (a local emulator)',
    'AWS_ACCESS_KEY_ID, AWS_PROFILE, ...': "AWS credentials: the SDK's standard chain",
    LOG_LEVEL: 'pino level of the JSON logs on stdout (default info)',
  },
};

/**
 * Runs `run` with the arguments after the command name; resolves with the exit code.
 */
export const runCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  const command = declareCommand(RUN_HELP, io).option(
    '-c, --config <file>',
    `the config file (YAML, or JSON); without it, the config is read as JSON from ${CONFIG_ENV_VARIABLE}`,
  );
  const configFile = parseArgs<{ config?: string }>(command, args).options.config;
  const fromEnv = configFile === undefined && (io.env[CONFIG_ENV_VARIABLE]?.trim() ?? '') !== '';
  if (!fromEnv && (configFile === undefined || configFile === '')) {
    throw usageExit(command, `--config <file> is required (or the config as JSON in ${CONFIG_ENV_VARIABLE})`);
  }

  let config: RunConfig;
  const source = configFile ?? CONFIG_ENV_VARIABLE;
  try {
    config =
      configFile === undefined
        ? loadConfigFromEnv({ env: io.env })
        : await loadConfig(configFile, { env: io.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliExit(EXIT_USAGE, error.problems.map((problem) => `${source}: ${problem}\n`).join(''));
  }

  const logger = io.logger ?? rootLogger;
  const log = componentLogger('cli', logger);
  const stop = abortOnStopSignals(io, log, 'stopping gracefully');
  try {
    let poller: Awaited<ReturnType<typeof startPoller>>;
    try {
      poller = await startPoller(config, {
        logger,
        signal: stop.signal,
        healthFile: healthFilePath(io.env),
      });
    } catch (error) {
      log.error({ err: error }, 'the poller could not start');
      io.stderr.write(`rocketmq-lambda run: ${describeError(error)}\n`);
      return EXIT_FAILURE;
    }
    const exit = await poller.stopped;
    if (exit.failures.length > 0) {
      for (const { mapping, error } of exit.failures) {
        io.stderr.write(`rocketmq-lambda run: mapping ${mapping} failed: ${describeError(error)}\n`);
      }
      return EXIT_FAILURE;
    }
    return 0;
  } finally {
    stop.remove();
  }
});
