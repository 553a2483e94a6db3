/**
 * Every `rocketmq-lambda` command and subcommand, in one tree, and the one way a command line is
 * dispatched through it: the first word picks an entry, the rest are its arguments; a group (`dlq`,
 * `offsets`) picks its subcommand the same way; a leaf's module is imported only when it runs (so `run`
 * never loads dev's embedded DynamoDB or the local broker). `help`, `-h` and `--help` in place of a word
 * print the usage of where they stand; a missing or unknown word is a usage error (exit 2).
 *
 * A command's module exports its entry made with `cliCommand` (cli-exit.ts): it may end early with a
 * `CliExit`, caught there and here.
 */

import { exitCodeOf } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import type { DlqCommandDeps } from './dlq-context.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';

/** A command's entry: its arguments (after its name) in, its exit code out; `deps` are test seams. */
export type CommandHandler<Deps = never> = (
  args: readonly string[],
  io: CliIo,
  deps?: Deps,
) => Promise<number>;

/** A command that runs: how to load it, and what the top-level help says of it. */
export interface LeafCommand<Deps = never> {
  readonly summary?: string | undefined;
  readonly load: () => Promise<CommandHandler<Deps>>;
}

/** A command made of subcommands: its usage (printed for `help` and usage errors) and its subcommands. */
export interface CommandGroup<Deps = never> {
  readonly summary?: string | undefined;
  readonly usage: string;
  readonly subcommands: Readonly<Record<string, CommandNode<Deps>>>;
}

/** An entry of the tree. */
export type CommandNode<Deps = never> = LeafCommand<Deps> | CommandGroup<Deps>;

/** What `dlq --help` says. */
export const DLQ_USAGE = `Usage: rocketmq-lambda dlq [options]
       rocketmq-lambda dlq show [options]
       rocketmq-lambda dlq redrive [options]

A mapping's dead letters (%DLQ%<consumerGroup>): look at them, send them back.

Commands:
  show      print a mapping's dead letters
  redrive   send dead letters back to be consumed again (the retry topic, or the original topic)

Options:
  -h, --help  show this help (rocketmq-lambda dlq show --help, dlq redrive --help: their options)

Examples:
  $ rocketmq-lambda dlq show --config poller.yaml --mapping orders
  $ rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --dry-run

Exit codes:
  0   done
  1   the command ran and failed (the reason is on stderr)
  2   bad arguments or an invalid config (one line per problem on stderr)
`;

/** What `offsets --help` says. */
export const OFFSETS_USAGE = `Usage: rocketmq-lambda offsets [options]
       rocketmq-lambda offsets show [options]
       rocketmq-lambda offsets reset --to <earliest|latest|ISO time|offset> [options]

A mapping's committed offsets: look at them, move them (safe while pollers run, DynamoDB store).
A consumeMode POP mapping has none (the broker keeps its group's position): see it with status.

Commands:
  show    the committed offsets of the mappings, per queue
  reset   move a mapping's committed offsets (--dry-run shows before -> after)

Options:
  -h, --help  show this help (rocketmq-lambda offsets show --help, offsets reset --help: their options)

Examples:
  $ rocketmq-lambda offsets show --config poller.yaml
  $ rocketmq-lambda offsets reset --config poller.yaml --mapping orders --to earliest --dry-run

Exit codes:
  0   done
  1   the command ran and failed, or a reset was refused (the reason is on stderr)
  2   bad arguments or an invalid config (one line per problem on stderr)
`;

/** `dlq show|redrive`. */
export const DLQ_COMMANDS: CommandGroup<DlqCommandDeps> = {
  summary: "show a mapping's dead letters (dlq show) or send them back (dlq redrive)",
  usage: DLQ_USAGE,
  subcommands: {
    show: { load: async () => (await import('./dlq-show-command.js')).dlqShowCommand },
    redrive: { load: async () => (await import('./dlq-redrive-command.js')).dlqRedriveCommand },
  },
};

/** `offsets show|reset`. */
export const OFFSETS_COMMANDS: CommandGroup = {
  summary: "show a mapping's committed offsets (offsets show) or move them (offsets reset --to ...)",
  usage: OFFSETS_USAGE,
  subcommands: {
    show: { load: async () => (await import('./offsets-show-command.js')).offsetsShowCommand },
    reset: { load: async () => (await import('./offsets-reset-command.js')).offsetsResetCommand },
  },
};

/** Every command, in the order the top-level help lists them. */
export const COMMANDS: Readonly<Record<string, CommandNode>> = {
  run: {
    summary: 'start a poller for the mappings of a config file (YAML or JSON)',
    load: async () => (await import('./run-command.js')).runCommand,
  },
  dev: {
    summary: "run serverless.yml's rocketmq events locally, handlers reloaded on save",
    load: async () => (await import('./dev-command.js')).devCommand,
  },
  health: {
    summary: 'exit 0 when the poller on this host is healthy (container health check)',
    load: async () => (await import('./health-command.js')).healthCommand,
  },
  send: {
    summary: 'send test messages to a topic (name server of --name-server, a config, or dev)',
    load: async () => (await import('./send-command.js')).sendCommand,
  },
  validate: {
    summary: 'check a poller config or serverless.yml without starting anything',
    load: async () => (await import('./validate-command.js')).validateCommand,
  },
  dlq: DLQ_COMMANDS,
  status: {
    summary: 'per mapping and queue: offsets, lag, oldest unconsumed message, holder (--watch)',
    load: async () => (await import('./status-command.js')).statusCommand,
  },
  offsets: OFFSETS_COMMANDS,
};

/** The top-level help text. */
export const USAGE = `Usage: rocketmq-lambda <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, entry]) => `  ${name.padEnd(10)}${entry.summary ?? ''}`)
  .join('\n')}

Options:
  -h, --help     show this help (also: rocketmq-lambda <command> --help)
  -v, --version  print the version
`;

/** The whole tree, as the group the top-level command line picks from. */
export const ROOT: CommandGroup = { usage: USAGE, subcommands: COMMANDS };

/**
 * Runs the command line `args` from `node` (`path`: the words that led there, [] at the top); resolves
 * with the exit code.
 */
export async function dispatch<Deps>(
  path: readonly string[],
  node: CommandNode<Deps>,
  args: readonly string[],
  io: CliIo,
  deps?: Deps,
): Promise<number> {
  return exitCodeOf(io, async () => {
    if ('load' in node) return (await node.load())(args, io, deps);
    const [word, ...rest] = args;
    const next =
      word === undefined || !Object.hasOwn(node.subcommands, word) ? undefined : node.subcommands[word];
    if (next !== undefined) return dispatch([...path, word as string], next, rest, io, deps);
    if (word === '-h' || word === '--help' || word === 'help') {
      io.stdout.write(node.usage);
      return EXIT_OK;
    }
    io.stderr.write(`${usageProblem(path, word)}${node.usage}`);
    return EXIT_USAGE;
  });
}

/** The line before the usage on a missing or unknown word (none for a bare `rocketmq-lambda`). */
function usageProblem(path: readonly string[], word: string | undefined): string {
  const at = ['rocketmq-lambda', ...path].join(' ');
  if (path.length === 0) {
    if (word === undefined) return '';
    return `${at}: ${word.startsWith('-') ? `unknown option ${word}` : `unknown command ${word}`}\n\n`;
  }
  return `${at}: ${word === undefined ? 'missing subcommand' : `unknown subcommand ${word}`}\n\n`;
}
