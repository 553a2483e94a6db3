/**
 * Every `rocketmq-lambda` command and subcommand, in one tree, and the one way a command line is
 * dispatched through it: the first word picks an entry, the rest are its arguments; a group (`dlq`,
 * `offsets`) picks its subcommand the same way; a leaf's module is imported only when it runs (so `run`
 * never loads dev's embedded DynamoDB or the local broker). `help`, `-h` and `--help` in place of a word
 * print the usage of where they stand, `help <command> [<subcommand>]` the help of that command; a
 * missing or unknown word is a usage error (exit 2), with the command it most likely meant, and options
 * before a group's subcommand are answered with where they go.
 *
 * A command's module exports its entry made with `cliCommand` (cli-exit.ts): it may end early with a
 * `CliExit`, caught there and here.
 */

import { closestKey } from '../util/closest-key.js';
import { exitCodeOf } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import type { DlqCommandDeps } from './dlq-context.js';
import {
  EXIT_CODE_TABLE,
  EXIT_FAILURE,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_TERMINATED,
  EXIT_USAGE,
  exitCodeLines,
} from './exit-codes.js';

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
  -h, --help  show this help (rocketmq-lambda help dlq show, dlq redrive --help: their options)

Examples:
  $ rocketmq-lambda dlq show --config poller.yaml --mapping orders
  $ rocketmq-lambda dlq show --name-server 127.0.0.1:9876 --group orders-consumer
  $ rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --dry-run

Exit codes:
${exitCodeLines({
  [EXIT_OK]: EXIT_CODE_TABLE[EXIT_OK] as string,
  [EXIT_FAILURE]: EXIT_CODE_TABLE[EXIT_FAILURE] as string,
  [EXIT_USAGE]: EXIT_CODE_TABLE[EXIT_USAGE] as string,
  [EXIT_INTERRUPTED]: `dlq redrive: interrupted by SIGINT (${EXIT_TERMINATED}: SIGTERM); it says where it stopped`,
})}
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
  -h, --help  show this help (rocketmq-lambda help offsets show, offsets reset --help: their options)

Examples:
  $ rocketmq-lambda offsets show --config poller.yaml
  $ rocketmq-lambda offsets show --name-server 127.0.0.1:9876 --group orders-consumer --topic orders
  $ rocketmq-lambda offsets reset --config poller.yaml --mapping orders --to earliest --dry-run

Exit codes:
${exitCodeLines({
  [EXIT_OK]: EXIT_CODE_TABLE[EXIT_OK] as string,
  [EXIT_FAILURE]: 'the command ran and failed, or a reset was refused (the reason is on stderr)',
  [EXIT_USAGE]: EXIT_CODE_TABLE[EXIT_USAGE] as string,
  [EXIT_INTERRUPTED]: `offsets reset: interrupted by SIGINT (${EXIT_TERMINATED}: SIGTERM); it says where it stopped`,
})}
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
  template: {
    summary: 'build a standalone CloudFormation template of the poller from a stack file',
    load: async () => (await import('./template-command.js')).templateCommand,
  },
  dlq: DLQ_COMMANDS,
  status: {
    summary: 'live pollers and what each holds; per queue offsets, lag, oldest message; dead letters',
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

status, offsets and dlq act on the mappings of a config (--config, else ./serverless.yml), or ad hoc
on one consumer group, no file needed: --name-server <host:port[;host:port]> --group <group> --topic <topic>.

Options:
  -h, --help     show this help (rocketmq-lambda help <command> [<subcommand>]: that command's help)
  -v, --version  print the version

Exit codes (every command):
${exitCodeLines(EXIT_CODE_TABLE)}
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
    const next = word === undefined ? undefined : subcommandOf(node, word);
    if (next !== undefined) return dispatch([...path, word as string], next, rest, io, deps);
    // `help <command> [<subcommand>]`: that command's own --help, found as a command line finds it (an
    // unknown name gets the same did-you-mean).
    if (word === 'help' && rest.length > 0) return dispatch(path, node, [...rest, '--help'], io, deps);
    if (word === '-h' || word === '--help' || word === 'help') {
      io.stdout.write(node.usage);
      return EXIT_OK;
    }
    io.stderr.write(`${usageProblem(path, node, args)}${node.usage}`);
    return EXIT_USAGE;
  });
}

/** The entry `word` names in `group`, if any (never one of Object's own properties). */
function subcommandOf<Deps>(group: CommandGroup<Deps>, word: string): CommandNode<Deps> | undefined {
  return Object.hasOwn(group.subcommands, word) ? group.subcommands[word] : undefined;
}

/**
 * The line before the usage on a missing or unknown word (none for a bare `rocketmq-lambda`): what is
 * wrong and, when one is near, the command it most likely meant; for options before a group's
 * subcommand, the command lines that would take them.
 */
function usageProblem<Deps>(
  path: readonly string[],
  group: CommandGroup<Deps>,
  args: readonly string[],
): string {
  const at = ['rocketmq-lambda', ...path].join(' ');
  const [word] = args;
  const names = Object.keys(group.subcommands);
  if (word === undefined)
    return path.length === 0 ? '' : `${at}: missing subcommand (${names.join(' or ')})\n\n`;
  if (word.startsWith('-')) {
    if (path.length === 0) return `${at}: unknown option ${word}\n\n`;
    const options = args.join(' ');
    return `${at}: ${path.join(' ')} needs a subcommand first: ${names.map((name) => `${at} ${name} ${options}`).join(', or ')}\n\n`;
  }
  const guess = closestKey(word, [...names, 'help']);
  const what = path.length === 0 ? 'command' : 'subcommand';
  return `${at}: unknown ${what} ${word}${guess === undefined ? '' : ` (did you mean ${guess}?)`}\n\n`;
}
