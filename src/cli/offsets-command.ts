/**
 * `rocketmq-lambda offsets show|reset`: the committed offsets of a mapping, and moving them. The
 * subcommands are offsets-show-command.ts and offsets-reset-command.ts, dispatched through the command
 * table (command-table.ts); the work is operations' (operations/queue-positions.ts, offset-reset.ts).
 */
import type { CliIo } from './cli-io.js';
import { dispatch, OFFSETS_COMMANDS } from './command-table.js';

export { OFFSETS_USAGE } from './command-table.js';

/**
 * Runs `offsets <show|reset>` with the arguments after `offsets`; resolves with the exit code.
 */
export async function offsetsCommand(args: readonly string[], io: CliIo): Promise<number> {
  return dispatch(['offsets'], OFFSETS_COMMANDS, args, io);
}
