/**
 * `rocketmq-lambda dlq show|redrive`: look at a mapping's dead letters (`%DLQ%<consumerGroup>`) and send
 * them back to be consumed again. The DLQ itself is never changed (RocketMQ cannot delete a message);
 * what moves is the redrive position, the group's committed offset of each DLQ queue on the broker:
 * `show` starts there by default and `redrive` continues from it, so a second redrive sends nothing twice.
 */
import type { CliIo } from './cli-io.js';
import type { DlqCommandDeps } from './dlq-context.js';
import { dlqRedriveCommand } from './dlq-redrive-command.js';
import { dlqShowCommand } from './dlq-show-command.js';
import { runSubcommand } from './subcommands.js';

export type { DlqCommandDeps } from './dlq-context.js';
export { unreadableDlqHint } from './dlq-context.js';

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

/**
 * Runs `dlq <show|redrive>` with the arguments after `dlq`; resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await dlqCommand(['show', '--config', 'poller.yaml', '--mapping', 'orders'], processIo());
 * ```
 */
export async function dlqCommand(
  args: readonly string[],
  io: CliIo,
  deps: DlqCommandDeps = {},
): Promise<number> {
  return runSubcommand(
    'dlq',
    DLQ_USAGE,
    {
      show: (rest, subIo) => dlqShowCommand(rest, subIo, deps),
      redrive: (rest, subIo) => dlqRedriveCommand(rest, subIo, deps),
    },
    args,
    io,
  );
}
