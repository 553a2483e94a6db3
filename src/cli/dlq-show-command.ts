/**
 * `rocketmq-lambda dlq show`: prints a mapping's dead letters from the redrive position on (or `--from`,
 * or `--all`), as text blocks or JSON lines. Reads only: no offset moves.
 */
import { describeDeadLetter } from '../operations/dead-letter.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { DLQ_ENVIRONMENT, type DlqCommandDeps, queueLabel, withDeadLetterQueue } from './dlq-context.js';
import { deadLetterJsonLine, renderDeadLetter } from './dlq-render.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { nonNegativeInteger, positiveInteger } from './option-parsers.js';
import { declareTargetOptions, type TargetOptionValues } from './target-options.js';
import { terminalStyle } from './terminal-style.js';

/** Dead letters `dlq show` prints unless `--limit` says otherwise. */
export const DEFAULT_SHOW_LIMIT = 20;

/** What `dlq show --help` says beyond its options. */
export const DLQ_SHOW_HELP: CommandHelp = {
  name: 'dlq show',
  description: `Prints the dead letters of a mapping's consumer group (%DLQ%<consumerGroup>): per
message its DLQ offset, msgId, original topic and msgId, reconsume times, when it was
dead-lettered, tags, keys, user properties and a body preview. Starts at the redrive position
(where the last 'dlq redrive' ended; --all: at the oldest dead letter the broker still stores).
Reads only: no offset moves. Ad hoc, without a config file: --group <consumerGroup> (and
--name-server, else ROCKETMQ_NAME_SERVER); ACL keys from the environment.`,
  examples: [
    'rocketmq-lambda dlq show --config poller.yaml --mapping orders',
    'rocketmq-lambda dlq show --mapping orders --all --limit 100',
    'rocketmq-lambda dlq show --name-server 127.0.0.1:9876 --group orders-consumer',
    'rocketmq-lambda dlq show --config poller.yaml --mapping orders --json | jq -r .body | base64 -d',
  ],
  exitCodes: {
    [EXIT_OK]: 'printed (also when the group has no dead letter)',
    [EXIT_FAILURE]: 'the DLQ could not be read (the reason on stderr, with the fix when one is known)',
  },
  environment: DLQ_ENVIRONMENT,
};

interface ShowOptions extends TargetOptionValues {
  limit: number;
  from?: number;
  all?: boolean;
  json?: boolean;
}

/**
 * Runs `dlq show` with the arguments after `show`; resolves with the exit code.
 */
export const dlqShowCommand = cliCommand(
  async (args: readonly string[], io: CliIo, deps: DlqCommandDeps = {}): Promise<number> => {
    const command = declareTargetOptions(declareCommand(DLQ_SHOW_HELP, io), { offsetsTable: false })
      .option(
        '-l, --limit <n>',
        'print at most n dead letters',
        positiveInteger('--limit'),
        DEFAULT_SHOW_LIMIT,
      )
      .option('--from <offset>', 'start at this DLQ offset (each DLQ queue)', nonNegativeInteger('--from'))
      .option('--all', 'start at the oldest stored dead letter, also those already redriven')
      .option('--json', 'one JSON object per line (body in base64), nothing else on stdout');
    const { options } = parseArgs<ShowOptions>(command, args);
    if (options.all === true && options.from !== undefined) {
      throw usageExit(command, 'use --from <offset> or --all, not both');
    }
    return withDeadLetterQueue(
      command,
      io,
      deps,
      options,
      async ({ dlq, queues }) => {
        const style = terminalStyle(io.stdout as { isTTY?: boolean }, io.env);
        // Headings and notes go to stderr with --json, so that stdout stays JSON lines.
        const note = options.json === true ? io.stderr : io.stdout;
        let left = options.limit;
        for (const { queue } of queues) {
          const { position, minOffset, maxOffset, from } = await dlq.start(queue, {
            from: options.from,
            oldest: options.all === true,
          });
          note.write(
            `${style.bold(queueLabel(queue))}  ${maxOffset - minOffset} stored (offsets ${minOffset}..${maxOffset - 1})  ${positionText(position, minOffset, maxOffset)}\n`,
          );
          if (left === 0) continue;
          let shown = 0;
          let next = from;
          for await (const page of dlq.pages(queue, from, left)) {
            if (page.movedFrom !== undefined) {
              note.write(`  (offset ${page.movedFrom} is no longer stored: starting at ${page.minOffset})\n`);
            }
            for (const message of page.messages) {
              const view = describeDeadLetter(
                message,
                dlq.consumerGroup,
                page.tooLarge.get(message.queueOffset),
              );
              io.stdout.write(
                options.json === true ? deadLetterJsonLine(queue, view) : renderDeadLetter(view, style),
              );
            }
            shown += page.messages.length;
            next = page.nextOffset;
          }
          left -= shown;
          if (shown === 0) {
            note.write(
              from >= maxOffset &&
                position !== undefined &&
                options.from === undefined &&
                options.all !== true
                ? `  nothing after the redrive position (--all shows the ${maxOffset - minOffset} stored)\n`
                : `  nothing from offset ${from}\n`,
            );
          } else if (next < maxOffset) {
            note.write(
              `  ${maxOffset - next} more from offset ${next} (--from ${next}, or a larger --limit)\n`,
            );
          }
        }
        return EXIT_OK;
      },
      undefined,
      options.json === true ? io.stderr : io.stdout,
    );
  },
);

function positionText(position: number | undefined, minOffset: number, maxOffset: number): string {
  if (position === undefined) return 'never redriven';
  const pending = Math.max(0, maxOffset - Math.max(position, minOffset));
  return `redrive position ${position} (${pending} not redriven)`;
}
