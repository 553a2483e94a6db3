#!/usr/bin/env node
/**
 * The `rocketmq-lambda` command: dispatches to the command modules (`run`, `dev`, `health`, `send`,
 * `status`, `offsets`, `dlq`, `validate`), loading only the one asked for (the production `run` never
 * loads dev's embedded DynamoDB or the local broker). Unknown commands and flags print the usage and
 * exit with code 2.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RocketMQError } from '../errors.js';
import { suppressAwsSdkNodeVersionWarning } from '../util/aws-sdk-node-warning.js';
import { type CliIo, processIo } from './cli-io.js';
import { EXIT_USAGE } from './exit-codes.js';

/** A command: what the top-level help says of it, and how to load it. */
interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<(args: readonly string[], io: CliIo) => Promise<number>>;
}

/** Every command, in the order the help lists them. */
const COMMANDS: Readonly<Record<string, CommandEntry>> = {
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
  dlq: {
    summary: "show a mapping's dead letters (dlq show) or send them back (dlq redrive)",
    load: async () => (await import('./dlq-command.js')).dlqCommand,
  },
  status: {
    summary: 'per mapping and queue: offsets, lag, oldest unconsumed message, holder (--watch)',
    load: async () => (await import('./status-command.js')).statusCommand,
  },
  offsets: {
    summary: "show a mapping's committed offsets (offsets show) or move them (offsets reset --to ...)",
    load: async () => (await import('./offsets-command.js')).offsetsCommand,
  },
};

/**
 * The names of every command, in the order the help lists them.
 *
 * @example
 * ```ts
 * commandNames(); // => ['run', 'dev', 'health', ...]
 * ```
 */
export function commandNames(): string[] {
  return Object.keys(COMMANDS);
}

/** The top-level help text. */
export const USAGE = `Usage: rocketmq-lambda <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, entry]) => `  ${name.padEnd(10)}${entry.summary}`)
  .join('\n')}

Options:
  -h, --help     show this help (also: rocketmq-lambda <command> --help)
  -v, --version  print the version
`;

/**
 * This package's version, from its package.json.
 *
 * @example
 * ```ts
 * packageVersion(); // => '0.1.0'
 * ```
 */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

/**
 * Runs the command line `argv` (without node and the script); resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await main(['run', '--config', 'poller.yaml'], processIo());
 * ```
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  suppressAwsSdkNodeVersionWarning();
  const [command, ...rest] = argv;
  const entry = command === undefined ? undefined : COMMANDS[command];
  if (entry !== undefined && Object.hasOwn(COMMANDS, command as string))
    return (await entry.load())(rest, io);
  switch (command) {
    case '-h':
    case '--help':
    case 'help':
      io.stdout.write(USAGE);
      return 0;
    case '-v':
    case '--version':
      io.stdout.write(`${packageVersion()}\n`);
      return 0;
    case undefined:
      io.stderr.write(USAGE);
      return EXIT_USAGE;
    default: {
      const what = command.startsWith('-') ? `unknown option ${command}` : `unknown command ${command}`;
      io.stderr.write(`rocketmq-lambda: ${what}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
  }
}

/** True when this module is the process's entry point (also through an npm bin symlink). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch (error) {
    process.stderr.write(`rocketmq-lambda: cannot resolve ${script}: ${String(error)}\n`);
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2), processIo()).then(
    (code) => process.exit(code),
    (error: unknown) => {
      // Our own errors say what is wrong in their message (a stack would quote paths and input, one line
      // is the contract); anything else is a bug, and its stack is what helps.
      const text =
        error instanceof RocketMQError
          ? error.message
          : error instanceof Error
            ? (error.stack ?? error.message)
            : String(error);
      process.stderr.write(`rocketmq-lambda: ${text}\n`);
      process.exit(1);
    },
  );
}
