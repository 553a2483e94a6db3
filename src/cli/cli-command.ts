/**
 * How every `rocketmq-lambda <command>` is declared and parsed: a commander `Command` bound to the
 * command's {@link CliIo}, with the same help layout everywhere (usage, options, then examples, exit codes
 * and environment) and the same reaction to bad arguments (one line naming the problem, the help, exit 2).
 */
import { Command, CommanderError, type OptionValues } from 'commander';
import { CliExit } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_CODE_TABLE, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, exitCodeLines } from './exit-codes.js';

/**
 * What a command's help says beyond its options.
 */
export interface CommandHelp {
  /** The command's name, as typed after `rocketmq-lambda`. */
  readonly name: string;
  /** A paragraph (or a few) on what it does. */
  readonly description: string;
  /** Command lines that work as written. */
  readonly examples: readonly string[];
  /**
   * Exit codes beyond the common ones (0, 1, 2), or what they mean for this command; every code must be
   * one of exit-codes.ts's table (a unit test walks every help).
   */
  readonly exitCodes?: Readonly<Record<number, string>> | undefined;
  /** Environment variables the command reads, with what they mean. */
  readonly environment?: Readonly<Record<string, string>> | undefined;
}

/** What every command's exit codes mean unless its help says otherwise: exit-codes.ts's table. */
const COMMON_EXIT_CODES: Readonly<Record<number, string>> = {
  [EXIT_OK]: EXIT_CODE_TABLE[EXIT_OK] as string,
  [EXIT_FAILURE]: EXIT_CODE_TABLE[EXIT_FAILURE] as string,
  [EXIT_USAGE]: EXIT_CODE_TABLE[EXIT_USAGE] as string,
};

/**
 * A commander command for `rocketmq-lambda <help.name>`, writing to `io` and never exiting the process.
 * Add options with `.option(...)` / `.requiredOption(...)`, then call {@link parseArgs}.
 */
export function declareCommand(help: CommandHelp, io: CliIo): Command {
  const command = new Command(`rocketmq-lambda ${help.name}`)
    .description(help.description)
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    .allowExcessArguments(false)
    .configureHelp({ helpWidth: 100, sortOptions: false })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`rocketmq-lambda ${help.name}: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError(`(rocketmq-lambda ${help.name} --help shows the options)`);
  command.addHelpText('after', helpEpilogue(help));
  return command;
}

/** The examples, exit codes and environment sections of a command's help. */
function helpEpilogue(help: CommandHelp): string {
  const sections = [`\nExamples:\n${help.examples.map((line) => `  $ ${line}`).join('\n')}\n`];
  const codes = { ...COMMON_EXIT_CODES, ...help.exitCodes };
  sections.push(`\nExit codes:\n${exitCodeLines(codes)}\n`);
  if (help.environment !== undefined) {
    const entries = Object.entries(help.environment);
    const width = Math.max(...entries.map(([name]) => name.length)) + 2;
    sections.push(
      `\nEnvironment:\n${entries.map(([name, meaning]) => `  ${name.padEnd(width)}${meaning}`).join('\n')}\n`,
    );
  }
  return sections.join('');
}

/**
 * The parsed options and operands of a command line.
 */
export interface ParsedCommand<Options extends OptionValues> {
  readonly options: Options;
  readonly operands: readonly string[];
}

/**
 * Parses `args` (the words after the command name) into the options and operands. Ends the command
 * with a {@link CliExit}: 0 after `--help`, {@link EXIT_USAGE} after a usage error (commander has
 * already printed it, with the help hint).
 */
export function parseArgs<Options extends OptionValues>(
  command: Command,
  args: readonly string[],
): ParsedCommand<Options> {
  try {
    command.parse([...args], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    throw new CliExit(
      error.code === 'commander.helpDisplayed' || error.code === 'commander.help' ? EXIT_OK : EXIT_USAGE,
    );
  }
  return { options: command.opts<Options>(), operands: command.args };
}

/**
 * The exit of a usage problem found after parsing (a missing or contradictory option), worded as
 * commander words its own: one line naming the problem, a hint to the help; exit {@link EXIT_USAGE}.
 * Throw it.
 */
export function usageExit(command: Command, problem: string): CliExit {
  return new CliExit(
    EXIT_USAGE,
    `${command.name()}: ${problem}\n(${command.name()} --help shows the options)\n`,
  );
}
