/**
 * The options every operator command (`status`, `offsets`, `dlq`) takes to say what it acts on, and how
 * it opens that target (operations/target.ts) and reports the reasons it cannot: exit 2 for an invalid
 * config or a target that cannot be resolved, 1 for anything else our own code threw.
 */
import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { RocketMQError } from '../errors.js';
import {
  openTarget as openOperationsTarget,
  type Target,
  TargetError,
  type TargetMapping,
  type TargetOptions,
} from '../operations/target.js';
import { CliExit } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

/**
 * The parsed target options.
 */
export interface TargetOptionValues {
  config?: string;
  stage?: string;
  region?: string;
  offsetsTable?: string;
  mapping?: string;
}

/**
 * Adds `--config`, `--mapping`, `--stage`, `--region` and, for a command that reads the offsets table,
 * `--offsets-table` to `command`.
 */
export function declareTargetOptions(
  command: Command,
  { offsetsTable = true }: { readonly offsetsTable?: boolean } = {},
): Command {
  command
    .option(
      '-c, --config <file>',
      'a poller config (YAML/JSON), or a serverless.yml (default: ./serverless.yml: its running dev session, else its deployed settings)',
    )
    .option(
      '-m, --mapping <name>',
      'one mapping (default: every mapping; required when an action needs one and there are several)',
    )
    .option('--stage <stage>', 'serverless.yml: the stage');
  if (!offsetsTable) return command.option('--region <region>', 'serverless.yml: the region');
  return command
    .option('--region <region>', 'serverless.yml: the region of the offsets table')
    .option('--offsets-table <name>', 'serverless.yml: the offsets table, when CloudFormation named it');
}

/**
 * Opens the target `options` name. Ends the command when it cannot, saying why (prefixed with the
 * command's name): exit 2 for an invalid config or an unresolvable target, 1 for another of our errors.
 */
export async function openTarget(command: Command, options: TargetOptions, io: CliIo): Promise<Target> {
  try {
    return await openOperationsTarget(
      {
        config: options.config,
        stage: options.stage,
        region: options.region,
        offsetsTable: options.offsetsTable,
        cwd: options.cwd,
      },
      io,
    );
  } catch (error) {
    if (error instanceof ConfigError) {
      const source = error.source ?? options.config ?? 'config';
      throw new CliExit(
        EXIT_USAGE,
        error.problems.map((problem) => `${command.name()}: ${source}: ${problem}\n`).join(''),
      );
    }
    if (error instanceof TargetError) throw new CliExit(EXIT_USAGE, `${command.name()}: ${error.message}\n`);
    if (error instanceof RocketMQError)
      throw new CliExit(EXIT_FAILURE, `${command.name()}: ${error.message}\n`);
    throw error;
  }
}

/**
 * The frame of every command that reads a target: opens it, runs `action` with the mappings `--mapping`
 * selects (all without it), and closes the target whatever the action did. A `--mapping` that names no
 * mapping ends the command with exit 2.
 */
export async function withTarget(
  command: Command,
  options: TargetOptionValues & { cwd?: string | undefined },
  io: CliIo,
  action: (target: Target, mappings: readonly TargetMapping[]) => Promise<number>,
): Promise<number> {
  const target = await openTarget(command, options, io);
  try {
    return await action(
      target,
      targetCall(command, () => target.select(options.mapping)),
    );
  } finally {
    await target.close();
  }
}

/**
 * The one mapping an action works on: `name`, or the only mapping without it. Ends the command with
 * exit 2 when it names no mapping, or names none while there are several.
 */
export function selectMapping(command: Command, target: Target, name: string | undefined): TargetMapping {
  return targetCall(command, () => target.mapping(name));
}

/** `call`, with a {@link TargetError} turned into the end of the command (exit 2, the reason on stderr). */
function targetCall<T>(command: Command, call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    throw new CliExit(EXIT_USAGE, `${command.name()}: ${error.message}\n`);
  }
}
