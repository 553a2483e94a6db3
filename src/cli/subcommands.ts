/**
 * How a command made of subcommands (`dlq show|redrive`, `offsets show|reset`) picks one: the first word
 * names it, the rest are its arguments; `help`, `-h` and `--help` print the command's usage; a missing or
 * unknown word is a usage error that prints the usage on stderr.
 */
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';

/**
 * A subcommand: its arguments (after its name) in, its exit code out.
 *
 * @example
 * ```ts
 * const show: Subcommand = (args, io) => offsetsShow(args, io);
 * ```
 */
export type Subcommand = (args: readonly string[], io: CliIo) => Promise<number>;

/**
 * Runs the subcommand `args[0]` of `rocketmq-lambda <name>` with the remaining arguments; resolves with
 * its exit code.
 *
 * @example
 * ```ts
 * return runSubcommand('offsets', OFFSETS_USAGE, { show: offsetsShow, reset: offsetsReset }, args, io);
 * ```
 */
export async function runSubcommand(
  name: string,
  usage: string,
  subcommands: Readonly<Record<string, Subcommand>>,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== undefined && Object.hasOwn(subcommands, sub)) {
    const subcommand = subcommands[sub] as Subcommand;
    return subcommand(rest, io);
  }
  if (sub === '-h' || sub === '--help' || sub === 'help') {
    io.stdout.write(usage);
    return EXIT_OK;
  }
  io.stderr.write(
    `rocketmq-lambda ${name}: ${sub === undefined ? 'missing subcommand' : `unknown subcommand ${sub}`}\n\n${usage}`,
  );
  return EXIT_USAGE;
}
