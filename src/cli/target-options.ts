/**
 * The options every operator command (`status`, `offsets`) takes to say what it acts on, and how it
 * opens that target and reports the reasons it cannot (see command-target.ts).
 */
import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { RocketMQError } from '../protocol/errors.js';
import type { CliIo } from './cli-io.js';
import {
  type CommandTarget,
  CommandTargetError,
  type CommandTargetOptions,
  openCommandTarget,
} from './command-target.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

/**
 * The parsed target options.
 *
 * @example
 * ```ts
 * const parsed = parseCommand<TargetOptionValues & { json?: boolean }>(command, args);
 * ```
 */
export interface TargetOptionValues {
  config?: string;
  stage?: string;
  region?: string;
  offsetsTable?: string;
  mapping?: string;
}

/**
 * Adds `--config`, `--mapping`, `--stage`, `--region` and `--offsets-table` to `command`.
 *
 * @example
 * ```ts
 * const command = declareTargetOptions(declareCommand(STATUS_HELP, io)).option('--json', 'JSON output');
 * ```
 */
export function declareTargetOptions(command: Command): Command {
  return command
    .option(
      '-c, --config <file>',
      'a poller config (YAML/JSON), or a serverless.yml (default: ./serverless.yml: its running dev session, else its deployed settings)',
    )
    .option(
      '-m, --mapping <name>',
      'one mapping (default: every mapping; required when an action needs one and there are several)',
    )
    .option('--stage <stage>', 'serverless.yml: the stage')
    .option('--region <region>', 'serverless.yml: the region of the offsets table')
    .option('--offsets-table <name>', 'serverless.yml: the offsets table, when CloudFormation named it');
}

/**
 * Opens the target of `values`; on failure writes why (prefixed with the command's name) and returns the
 * exit code: 2 for an invalid config or an unresolvable target, 1 otherwise.
 *
 * @example
 * ```ts
 * const target = await openTargetOrReport('status', parsed.options, io);
 * if (typeof target === 'number') return target;
 * ```
 */
export async function openTargetOrReport(
  name: string,
  values: TargetOptionValues,
  io: CliIo,
): Promise<CommandTarget | number> {
  const options: CommandTargetOptions = {
    config: values.config,
    stage: values.stage,
    region: values.region,
    offsetsTable: values.offsetsTable,
  };
  try {
    return await openCommandTarget(options, io);
  } catch (error) {
    if (error instanceof ConfigError) {
      const source = error.source ?? values.config ?? 'config';
      for (const problem of error.problems)
        io.stderr.write(`rocketmq-lambda ${name}: ${source}: ${problem}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof CommandTargetError) {
      io.stderr.write(`rocketmq-lambda ${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof RocketMQError) {
      io.stderr.write(`rocketmq-lambda ${name}: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    throw error;
  }
}

/**
 * The mappings `values.mapping` selects (every mapping without it); writes why and returns 2 when it
 * names no mapping.
 *
 * @example
 * ```ts
 * const mappings = selectMappings('status', target, parsed.options, io);
 * if (typeof mappings === 'number') return mappings;
 * ```
 */
export function selectMappings(
  name: string,
  target: CommandTarget,
  values: TargetOptionValues,
  io: CliIo,
): CommandTarget['mappings'] | number {
  if (values.mapping === undefined) return target.mappings;
  try {
    return [target.mapping(values.mapping)];
  } catch (error) {
    if (!(error instanceof CommandTargetError)) throw error;
    io.stderr.write(`rocketmq-lambda ${name}: ${error.message}\n`);
    return EXIT_USAGE;
  }
}
