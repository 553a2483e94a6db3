/**
 * `rocketmq-lambda dlq redrive`: sends a mapping's dead letters back, to its retry topic (only its group
 * gets them) or to their original topic (every group of the topic does), from the redrive position on,
 * and moves the position past each message sent (operations/dead-letter-redrive.ts says why an interrupted
 * run sends nothing twice). SIGINT/SIGTERM stop it after the send in flight; progress on stderr.
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
  type RedriveResult,
  redriveDeadLetters,
} from '../operations/dead-letter-redrive.js';
import { redriveRefusal } from '../operations/dead-letters.js';
import { CopySearchLimitError } from '../operations/redriven-copy.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { describeError } from '../util/describe-error.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { CliExit, cliCommand } from './cli-exit.js';
import { type CliIo, type StopSignal, signalExitCode } from './cli-io.js';
import { collect } from './collect-option.js';
import { DLQ_ENVIRONMENT, type DlqCommandDeps, queueLabel, withDeadLetterQueue } from './dlq-context.js';
import { bodyPreview } from './dlq-render.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
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

The redrive position moves past each message as soon as the broker took it, so a second redrive
sends nothing twice, also after an interruption. Ctrl-C (SIGINT) or SIGTERM stops the run after the
message in flight: it prints "stopped at #<offset> of <queue>: N sent, M left" and exits 130 (SIGINT)
or 143 (SIGTERM); run the same command again to continue. A second Ctrl-C exits at once. If the
process is killed between a send and the save of the position (SIGKILL, a crash), the next run looks
for that one message in the target topic (every redriven message carries the user property
REDRIVEN_FROM = <dlq topic>/<broker>/<queueId>/<offset>) and, when it is there, moves on without
sending it again ("already sent"). The first send that fails stops the run there (the next redrive
starts with that message; --from <offset+1> skips it). With --msg-id only the named messages are
sent and the position stays where it is. Run one redrive of a group at a time. The DLQ itself is
never changed.

--json prints one JSON document on stdout when the run ends: {dlqTopic, to, dryRun, sent,
alreadySent, messages: [{dlqTopic, brokerName, queueId, dlqOffset, msgId, topic, status
("sent" | "already-sent" | "would-send"), newMsgId}], failure: {brokerName, queueId, dlqOffset, msgId,
error} | null, stoppedAt: {brokerName, queueId, dlqOffset, signal} | null, notFound: [msgIds],
positions: [{dlqTopic, brokerName, queueId, position}]}. Progress and notes stay on stderr.`,
  examples: [
    'rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --dry-run',
    'rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --yes',
    'rocketmq-lambda dlq redrive --mapping orders --msg-id 7F0000010000633100000000000002E8 --to topic --yes',
    'rocketmq-lambda dlq redrive --config poller.yaml --mapping orders --yes --json | jq .sent',
  ],
  exitCodes: {
    [EXIT_OK]: 'every chosen message was sent (or, with --dry-run, listed)',
    [EXIT_FAILURE]:
      'a send or a read failed (which message, and why, on stderr), or the confirmation was declined',
    [EXIT_USAGE]: 'bad arguments, or no --yes (nor --dry-run) when stdin is not a terminal',
    [signalExitCode('SIGINT')]:
      'stopped by Ctrl-C (SIGINT) after the message in flight; run again to continue',
    [signalExitCode('SIGTERM')]: 'stopped by SIGTERM after the message in flight; run again to continue',
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
  json?: boolean;
}

/**
 * Runs `dlq redrive` with the arguments after `redrive`; resolves with the exit code.
 */
export const dlqRedriveCommand = cliCommand(
  async (args: readonly string[], io: CliIo, deps: DlqCommandDeps = {}): Promise<number> => {
    const command = declareTargetOptions(declareCommand(DLQ_REDRIVE_HELP, io), { offsetsTable: false })
      .option('-l, --limit <n>', 'send at most n messages (default: all)', positiveInteger('--limit'))
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
      .option('-y, --yes', 'do not ask before sending')
      .option('--json', 'one JSON document on stdout when done (see above); progress stays on stderr');
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
    const json = options.json === true;
    // With --json, stdout carries only the document: notes and per-message lines go to stderr.
    const out = json ? io.stderr : io.stdout;
    let document: RedriveDocument | undefined;
    const code = await withDeadLetterQueue(
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
        const doc: RedriveDocument = emptyDocument(dlq.topic, options.to, dryRun);
        document = doc;
        doc.positions = plans.map((plan) => positionEntry(plan.queue, plan.position));
        const available = plans.reduce((sum, plan) => sum + plan.count, 0);
        const total = Math.min(available, options.limit ?? available);
        if (total === 0) {
          out.write(
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
        // No retries inside the producer: a send that timed out may have been stored, and a retry would
        // store it twice. A failed send stops the run; the next one looks for it (dead-letter-redrive.ts).
        const producer = new Producer({ client: target.client, logger: io.logger, retries: 0 });
        await producer.start();
        const linePerMessage = dryRun || json || (io.stdout as { isTTY?: boolean }).isTTY !== true;
        // Stop after the send in flight on the first SIGINT/SIGTERM; a second one exits at once (the
        // progress reporter's exit hook gives the terminal back).
        const stop = new AbortController();
        let stopSignal: StopSignal | undefined;
        const removeSignals = dryRun
          ? () => {
              // A dry run sends nothing: the default Ctrl-C is fine.
            }
          : io.onStopSignal((signal) => {
              if (stopSignal !== undefined) {
                io.exitNow(signalExitCode(signal));
                return;
              }
              stopSignal = signal;
              io.stderr.write(`\n${signal}: stopping after the message in flight (again to exit at once)\n`);
              stop.abort(new Error(`received ${signal}`));
            });
        const progress = dryRun
          ? undefined
          : startProgress({
              stream: io.stderr as { write(text: string): unknown },
              label: 'dead letters scanned',
              // Named messages are looked for in every stored dead letter.
              total: msgIds === undefined ? total : available,
            });
        let sent = 0;
        let alreadySent = 0;
        let failure: RedriveFailure | undefined;
        let stoppedAt: RedriveResult['stoppedAt'];
        try {
          const onEvent = (event: RedriveEvent): void => {
            progress?.advance(1);
            if (event.kind === 'sent' || event.kind === 'would-send') sent++;
            if (event.kind === 'already-sent') alreadySent++;
            if (event.kind === 'failed' || event.kind === 'passed') return;
            doc.messages.push({
              dlqTopic: event.queue.topic,
              brokerName: event.queue.brokerName,
              queueId: event.queue.queueId,
              dlqOffset: event.view.dlqOffset,
              msgId: event.view.msgId,
              topic: event.topic,
              status: event.kind,
              newMsgId: event.kind === 'would-send' ? null : event.newMsgId,
            });
            if (!linePerMessage && event.kind !== 'already-sent') return;
            const head = `#${event.view.dlqOffset} msgId ${event.view.msgId}`;
            out.write(
              event.kind === 'sent'
                ? `sent ${head} -> ${event.topic} as ${event.newMsgId}\n`
                : event.kind === 'already-sent'
                  ? `already sent ${head} -> ${event.topic} as ${event.newMsgId} (by an interrupted run): not sent again\n`
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
            findCopy: (topic, queue, offset, at) => dlq.findRedrivenCopy(topic, queue, offset, at),
            signal: stop.signal,
            dryRun,
            onEvent,
          });
          sent = result.sent;
          alreadySent = result.alreadySent;
          failure = result.failure;
          stoppedAt = result.stoppedAt;
          doc.positions = result.positions.map((p) => positionEntry(p.queue, p.position));
        } catch (error) {
          // A read (or a position update) failed between sends: say how far the run got, then why.
          io.stderr.write(
            `sent ${sent} dead letter(s) before the error below; run again to continue (nothing is sent twice)\n`,
          );
          if (error instanceof CopySearchLimitError) {
            throw new CliExit(
              EXIT_FAILURE,
              `dlq redrive: ${error.message}\nthe message at the redrive position may have been sent by an interrupted run: pass --from <its offset> to send it anyway, or --from <its offset + 1> to skip it\n`,
            );
          }
          throw error;
        } finally {
          removeSignals();
          progress?.finish();
          await producer.shutdown();
        }
        doc.sent = sent;
        doc.alreadySent = alreadySent;
        if (dryRun) {
          out.write(
            `dry run: would send ${sent} dead letter(s) of ${dlq.topic} to ${destination}; nothing sent\n`,
          );
          return EXIT_OK;
        }
        const found = alreadySent === 0 ? '' : ` (${alreadySent} more already sent by an interrupted run)`;
        out.write(`sent ${sent} dead letter(s) of ${dlq.topic} to ${destination}${found}\n`);
        if (msgIds !== undefined && sent < msgIds.size) {
          const seen = new Set(doc.messages.map((m) => m.msgId));
          doc.notFound = [...msgIds].filter((id) => !seen.has(id));
        }
        if (failure !== undefined) {
          doc.failure = {
            brokerName: failure.queue.brokerName,
            queueId: failure.queue.queueId,
            dlqOffset: failure.offset,
            msgId: failure.msgId,
            error: describeError(failure.error),
          };
          io.stderr.write(
            `${style.red('failed')}: #${failure.offset} msgId ${failure.msgId} of ${queueLabel(failure.queue)}: ${describeError(failure.error)}\n` +
              (msgIds === undefined
                ? `stopped there; the redrive position stays at ${failure.offset}: run again to retry it, or --from ${failure.offset + 1} to skip it\n`
                : 'stopped there; the redrive position was not moved (--msg-id never moves it)\n'),
          );
          return EXIT_FAILURE;
        }
        if (stoppedAt !== undefined && stopSignal !== undefined) {
          doc.stoppedAt = {
            brokerName: stoppedAt.queue.brokerName,
            queueId: stoppedAt.queue.queueId,
            dlqOffset: stoppedAt.offset,
            signal: stopSignal,
          };
          const left =
            msgIds === undefined ? Math.max(0, total - sent - alreadySent) : Math.max(0, msgIds.size - sent);
          io.stderr.write(
            `${style.yellow('stopped')} at #${stoppedAt.offset} of ${queueLabel(stoppedAt.queue)}: ${sent} sent, ${left} left; run again to continue\n`,
          );
          return signalExitCode(stopSignal);
        }
        if (msgIds !== undefined && sent < msgIds.size) {
          io.stderr.write(
            `${style.yellow('note')}: ${msgIds.size - sent} of the named msgIds were not found in ${dlq.topic}\n`,
          );
          return EXIT_FAILURE;
        }
        return EXIT_OK;
      },
      (target, mapping) => {
        const refusal = redriveRefusal(target, mapping, options.to);
        if (refusal !== undefined) throw usageExit(command, refusal);
      },
      out,
    );
    if (json) {
      io.stdout.write(`${JSON.stringify(document ?? emptyDocument(undefined, options.to, dryRun))}\n`);
    }
    return code;
  },
);

/** What `dlq redrive --json` prints (documented in the help). */
interface RedriveDocument {
  dlqTopic: string | null;
  to: RedriveTarget;
  dryRun: boolean;
  sent: number;
  alreadySent: number;
  messages: {
    dlqTopic: string;
    brokerName: string;
    queueId: number;
    dlqOffset: number;
    msgId: string;
    topic: string;
    status: 'sent' | 'already-sent' | 'would-send';
    newMsgId: string | null;
  }[];
  failure: { brokerName: string; queueId: number; dlqOffset: number; msgId: string; error: string } | null;
  stoppedAt: { brokerName: string; queueId: number; dlqOffset: number; signal: StopSignal } | null;
  notFound: string[];
  positions: { dlqTopic: string; brokerName: string; queueId: number; position: number | null }[];
}

function emptyDocument(dlqTopic: string | undefined, to: RedriveTarget, dryRun: boolean): RedriveDocument {
  return {
    dlqTopic: dlqTopic ?? null,
    to,
    dryRun,
    sent: 0,
    alreadySent: 0,
    messages: [],
    failure: null,
    stoppedAt: null,
    notFound: [],
    positions: [],
  };
}

function positionEntry(
  queue: MessageQueue,
  position: number | undefined,
): RedriveDocument['positions'][number] {
  return {
    dlqTopic: queue.topic,
    brokerName: queue.brokerName,
    queueId: queue.queueId,
    position: position ?? null,
  };
}

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
