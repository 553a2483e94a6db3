/**
 * `rocketmq-lambda dlq show|redrive`: look at a mapping's dead letters (`%DLQ%<consumerGroup>`) and send
 * them back to be consumed again. The DLQ itself is never changed (RocketMQ cannot delete a message);
 * what moves is the redrive position, the group's committed offset of each DLQ queue on the broker:
 * `show` starts there by default and `redrive` continues from it, so a second redrive sends nothing twice.
 * The subcommands are dlq-show-command.ts and dlq-redrive-command.ts, dispatched through the command
 * table (command-table.ts).
 */
import type { CliIo } from './cli-io.js';
import { DLQ_COMMANDS, dispatch } from './command-table.js';
import type { DlqCommandDeps } from './dlq-context.js';

export { DLQ_USAGE } from './command-table.js';
export type { DlqCommandDeps } from './dlq-context.js';
export { unreadableDlqHint } from './dlq-context.js';

/**
 * Runs `dlq <show|redrive>` with the arguments after `dlq`; resolves with the exit code.
 */
export async function dlqCommand(
  args: readonly string[],
  io: CliIo,
  deps: DlqCommandDeps = {},
): Promise<number> {
  return dispatch(['dlq'], DLQ_COMMANDS, args, io, deps);
}
