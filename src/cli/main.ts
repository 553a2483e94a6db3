#!/usr/bin/env node
/**
 * The `rocketmq-lambda` command: dispatches through the command table (command-table.ts: `run`, `dev`,
 * `health`, `send`, `status`, `offsets`, `dlq`, `validate`, `template`), loading only the one asked for (the
 * production `run` never loads dev's embedded DynamoDB or the local broker). Unknown commands and flags
 * print the usage (with the command a typo most likely meant) and exit with code 2; `help <command>`
 * prints that command's help.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RocketMQError } from '../errors.js';
import { suppressAwsSdkNodeVersionWarning } from '../util/aws-sdk-node-warning.js';
import { buildInfo } from '../util/build-info.js';
import { type CliIo, processIo } from './cli-io.js';
import { COMMANDS, dispatch, ROOT, USAGE } from './command-table.js';

export { USAGE };

/**
 * The names of every command, in the order the help lists them.
 */
export function commandNames(): string[] {
  return Object.keys(COMMANDS);
}

/**
 * This package's version, from its package.json (`unknown` when it cannot be read).
 */
export function packageVersion(): string {
  return buildInfo().version;
}

/**
 * Runs the command line `argv` (without node and the script); resolves with the exit code.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  suppressAwsSdkNodeVersionWarning();
  if (argv[0] === '-v' || argv[0] === '--version') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  return dispatch([], ROOT, argv, io);
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
