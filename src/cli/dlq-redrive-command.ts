/**
 * `rocketmq-lambda dlq redrive`: sends a mapping's dead letters back, to its retry topic (only its group
 * gets them) or to their original topic (every group of the topic does), from the redrive position on,
 * and moves the position over what was sent (operations/dead-letter-redrive.ts). Progress on stderr.
 */
import { createInterface } from 'node:readline/promises';
import { Option } from 'commander';
import { Producer } from '../client/producer.js';
import { retryTopicOf } from '../consumer/consumer-options.js';
import type { RedriveTarget } from '../operations/dead-letter.js';
import {
  planRedrive,
  type RedriveEvent,
  type RedriveFailure,
  redriveDeadLetters,
} from '../operations/dead-letter-redrive.js';
import { redriveRefusal } from '../operations/dead-letters.js';
import { describeError } from '../util/describe-error.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { collect } from './collect-option.js';
import { DLQ_ENVIRONMENT, type DlqCommandDeps, queueLabel, withDeadLetterQueue } from './dlq-context.js';
import { bodyPreview } from './dlq-render.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { nonNegativeInteger, positiveInteger } from './option-parsers.js';
import { startProgress } from './progress-reporter.js';
import { declareTargetOptions, type TargetOptionValues } from './target-options.js';
import { terminalStyle } from './terminal-style.js';

/** What `dlq redrive --help` says beyond its options. */
export const DLQ_REDRIVE_HELP: CommandHelp = {
  name: 'dlq redrive',
  description: `Sends dead letters of a mapping back to be consumed again, from the redrive position on
(or --from <offset>), in offset order. A redriven message keeps its body, tags, keys and user
properties; its reconsume times start at 0 again and it gets a new msgId.

--to retry (default) sends it to %RETRY%<consumerGroup>: only this mapping's group receives it
again, under its original topic. --to topic sends it to the original topic: EVERY consumer group
subscribed to that topic receives it again. A consumeMode POP mapping takes --to topic only (its
group reads retries from the broker's POP retry topic, which no producer can address); its dead
letters of retried messages name that retry topic, and are sent to the topic it retries.

The redrive position moves over what was sent, so a second redrive sends nothing twice. The first
send that fails stops the run there (the next redrive starts with that message; --from <offset+1>
skips it). With --msg-id only the named messages are sent and the position stays where it is.
The DLQ itself is never changed.`,
  examples: [
    'rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --dry-run',
    'rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --yes',
    'rocketmq-lambda dlq redrive --mapping orders --msg-id 7F0000010000633100000000000002E8 --to topic --yes',
  ],
  exitCodes: {
    [EXIT_OK]: 'every chosen message was sent (or, with --dry-run, listed)',
    [EXIT_FAILURE]: 'a send or a read failed (which message, and why, on stderr)',
  },
  environment: DLQ_ENVIRONMENT,
};

interface RedriveOptions extends TargetOptionValues {
  limit?: number;
  from?: number;
  msgId: string[];
  to: RedriveTarget;
  dryRun?: boolean;
  yes?: boolean;
}

/**
 * Runs `dlq redrive` with the arguments after `redrive`; resolves with the exit code.
 */
export const dlqRedriveCommand = cliCommand(
  async (args: readonly string[], io: CliIo, deps: DlqCommandDeps = {}): Promise<number> => {
    const command = declareTargetOptions(declareCommand(DLQ_REDRIVE_HELP, io), { offsetsTable: false })
      .option('-n, --limit <n>', 'send at most n messages (default: all)', positiveInteger('--limit'))
      .option(
        '--from <offset>',
        'start at this DLQ offset (each DLQ queue) instead of the redrive position',
        nonNegativeInteger('--from'),
      )
      .addOption(
        new Option('--msg-id <id>', 'only this message (msgId or original msgId); repeatable')
          .argParser(collect)
          .default([], 'all'),
      )
      .addOption(
        new Option('--to <target>', 'retry: only this group gets them again; topic: every group of the topic')
          .choices(['retry', 'topic'])
          .default('retry'),
      )
      .option('--dry-run', 'list what would be sent; send nothing, move nothing')
      .option('-y, --yes', 'do not ask before sending');
    const { options } = parseArgs<RedriveOptions>(command, args);
    const dryRun = options.dryRun === true;
    const msgIds = options.msgId.length === 0 ? undefined : new Set(options.msgId);
    const confirm = 'confirm' in deps ? deps.confirm : defaultConfirm();
    if (!dryRun && options.yes !== true && confirm === undefined) {
      throw usageExit(
        command,
        'stdin is not a terminal, so nobody can confirm: pass --yes to send (or --dry-run to list what would be sent)',
      );
    }
    return withDeadLetterQueue(
      command,
      io,
      deps,
      options,
      async ({ dlq, mapping, queues, target }) => {
        const style = terminalStyle(io.stderr as { isTTY?: boolean }, io.env);
        const destination =
          options.to === 'retry'
            ? `${retryTopicOf(mapping.consumerGroup)} (only group ${mapping.consumerGroup} receives them)`
            : `their original topic (every group subscribed to it receives them)`;
        // Named messages are looked for in every stored dead letter.
        const plans = await planRedrive(
          dlq,
          queues.map(({ queue }) => queue),
          { from: options.from, oldest: msgIds !== undefined },
        );
        const available = plans.reduce((sum, plan) => sum + plan.count, 0);
        const total = Math.min(available, options.limit ?? available);
        if (total === 0) {
          io.stdout.write(
            `nothing to redrive: every dead letter of ${dlq.topic} is before the redrive position${options.from === undefined ? '' : ` or --from ${options.from}`}\n`,
          );
          return EXIT_OK;
        }
        const what =
          msgIds === undefined
            ? `${total} dead letter(s)`
            : `${msgIds.size} named dead letter(s) (scanning ${total})`;
        if (!dryRun && options.yes !== true && confirm !== undefined) {
          if (!(await confirm(`Send ${what} of ${dlq.topic} to ${destination}? [y/N] `))) {
            io.stderr.write('nothing sent\n');
            return EXIT_FAILURE;
          }
        }
        const producer = new Producer({ client: target.client, logger: io.logger });
        await producer.start();
        const linePerMessage = dryRun || (io.stdout as { isTTY?: boolean }).isTTY !== true;
        const progress = dryRun
          ? undefined
          : startProgress({
              stream: io.stderr as { write(text: string): unknown },
              label: 'dead letters scanned',
              // Named messages are looked for in every stored dead letter.
              total: msgIds === undefined ? total : available,
            });
        let sent = 0;
        let failure: RedriveFailure | undefined;
        try {
          const onEvent = (event: RedriveEvent): void => {
            progress?.advance(1);
            if (event.kind === 'sent' || event.kind === 'would-send') sent++;
            if (event.kind === 'failed' || event.kind === 'passed' || !linePerMessage) return;
            const head = `#${event.view.dlqOffset} msgId ${event.view.msgId}`;
            io.stdout.write(
              event.kind === 'sent'
                ? `sent ${head} -> ${event.topic} as ${event.newMsgId}\n`
                : `would send ${head} -> ${event.topic}  ${bodyPreview(event.view.body, 60)}\n`,
            );
          };
          const result = await redriveDeadLetters(plans, {
            dlq,
            limit: options.limit ?? Number.MAX_SAFE_INTEGER,
            msgIds,
            to: options.to,
            fallbackTopic: mapping.topic,
            send: (message) => producer.send(message),
            dryRun,
            onEvent,
          });
          sent = result.sent;
          failure = result.failure;
        } catch (error) {
          // A read (or a position update) failed between sends: say how far the run got, then why.
          io.stderr.write(`sent ${sent} dead letter(s) before the error below\n`);
          throw error;
        } finally {
          progress?.finish();
          await producer.shutdown();
        }
        if (dryRun) {
          io.stdout.write(
            `dry run: would send ${sent} dead letter(s) of ${dlq.topic} to ${destination}; nothing sent\n`,
          );
          return EXIT_OK;
        }
        io.stdout.write(`sent ${sent} dead letter(s) of ${dlq.topic} to ${destination}\n`);
        if (msgIds !== undefined && sent < msgIds.size) {
          io.stderr.write(
            `${style.yellow('note')}: ${msgIds.size - sent} of the named msgIds were not found in ${dlq.topic}\n`,
          );
        }
        if (failure !== undefined) {
          io.stderr.write(
            `${style.red('failed')}: #${failure.offset} msgId ${failure.msgId} of ${queueLabel(failure.queue)}: ${describeError(failure.error)}\n` +
              (msgIds === undefined
                ? `stopped there; the redrive position stays at ${failure.offset}: run again to retry it, or --from ${failure.offset + 1} to skip it\n`
                : 'stopped there; the redrive position was not moved (--msg-id never moves it)\n'),
          );
          return EXIT_FAILURE;
        }
        if (msgIds !== undefined && sent < msgIds.size) return EXIT_FAILURE;
        return EXIT_OK;
      },
      (target, mapping) => {
        const refusal = redriveRefusal(target, mapping, options.to);
        if (refusal !== undefined) throw usageExit(command, refusal);
      },
    );
  },
);

/** A yes/no prompt on the process's terminal, or undefined when stdin is not one. */
function defaultConfirm(): ((question: string) => Promise<boolean>) | undefined {
  if (process.stdin.isTTY !== true) return undefined;
  return async (question) => {
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await prompt.question(question)).trim());
    } finally {
      prompt.close();
    }
  };
}
