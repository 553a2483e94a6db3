/**
 * The options every operator command (`status`, `offsets`, `dlq`) takes to say what it acts on, and how
 * it opens that target and reports the reasons it cannot (see command-target.ts).
 */
import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { RocketMQError } from '../errors.js';
import type { CliIo } from './cli-io.js';
import {
  type CommandTarget,
  CommandTargetError,
  type CommandTargetOptions,
  openCommandTarget,
  type TargetMapping,
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
 * Adds `--config`, `--mapping`, `--stage`, `--region` and, for a command that reads the offsets table,
 * `--offsets-table` to `command`.
 *
 * @example
 * ```ts
 * const command = declareTargetOptions(declareCommand(STATUS_HELP, io)).option('--json', 'JSON output');
 * const dlqShow = declareTargetOptions(declareCommand(DLQ_SHOW_HELP, io), { offsetsTable: false });
 * ```
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
 * Opens the target `options` name; on failure writes why (prefixed with the command's name) and returns
 * the exit code: 2 for an invalid config or an unresolvable target, 1 otherwise.
 *
 * @example
 * ```ts
 * const target = await openTargetOrReport(command, parsed.options, io);
 * if (typeof target === 'number') return target;
 * ```
 */
export async function openTargetOrReport(
  command: Command,
  options: CommandTargetOptions,
  io: CliIo,
): Promise<CommandTarget | number> {
  try {
    return await openCommandTarget(
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
      for (const problem of error.problems) io.stderr.write(`${command.name()}: ${source}: ${problem}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof CommandTargetError) {
      io.stderr.write(`${command.name()}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof RocketMQError) {
      io.stderr.write(`${command.name()}: ${error.message}\n`);
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
 * const mappings = selectMappings(command, target, parsed.options, io);
 * if (typeof mappings === 'number') return mappings;
 * ```
 */
export function selectMappings(
  command: Command,
  target: CommandTarget,
  values: TargetOptionValues,
  io: CliIo,
): CommandTarget['mappings'] | number {
  if (values.mapping === undefined) return target.mappings;
  const mapping = selectMapping(command, target, values, io);
  return typeof mapping === 'number' ? mapping : [mapping];
}

/**
 * The frame of every command that reads a target: opens it (or reports why it cannot, exit 2), runs
 * `action` with the mappings `--mapping` selects (all without it; exit 2 when it names none), and closes
 * the target whatever the action did.
 *
 * @example
 * ```ts
 * return withTarget(command, parsed.options, io, async (target, mappings) => print(target, mappings));
 * ```
 */
export async function withTarget(
  command: Command,
  options: TargetOptionValues,
  io: CliIo,
  action: (target: CommandTarget, mappings: CommandTarget['mappings']) => Promise<number>,
): Promise<number> {
  const target = await openTargetOrReport(command, options, io);
  if (typeof target === 'number') return target;
  try {
    const mappings = selectMappings(command, target, options, io);
    if (typeof mappings === 'number') return mappings;
    return await action(target, mappings);
  } finally {
    await target.close();
  }
}

/**
 * The one mapping an action works on: `values.mapping`, or the only mapping without it; writes why and
 * returns 2 when it names no mapping, or names none while there are several.
 *
 * @example
 * ```ts
 * const mapping = selectMapping(command, target, parsed.options, io);
 * if (typeof mapping === 'number') return mapping;
 * ```
 */
export function selectMapping(
  command: Command,
  target: CommandTarget,
  values: TargetOptionValues,
  io: CliIo,
): TargetMapping | number {
  try {
    return target.mapping(values.mapping);
  } catch (error) {
    if (!(error instanceof CommandTargetError)) throw error;
    io.stderr.write(`${command.name()}: ${error.message}\n`);
    return EXIT_USAGE;
  }
}
