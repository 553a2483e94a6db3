/**
 * `rocketmq-lambda offsets show|reset`: the committed offsets of a mapping, and moving them.
 *
 * A reset is safe while pollers run: in the DynamoDB store it is a new offset generation
 * (offset-store.ts), which running pollers adopt at their next write or, for an idle queue, through
 * their reset watch (offset-reset-watch.ts), restarting the queue there. The broker's copy of the
 * group's committed offset is moved too (UPDATE_CONSUMER_OFFSET to the queue's master): a poller starts
 * a queue at the higher of the store's and the broker's offsets (start-offset.ts), so a reset backwards
 * that left the broker's copy alone would be undone by the next start. Stores that cannot take a safe
 * reset are refused with the reason: broadcasting mappings (each poller's own files), the memory store,
 * and the file store while a poller of the group runs. A consumeMode POP mapping has no committed
 * offsets at all (the brokers keep its group's position): both commands refuse it and say what to use
 * instead (pop-offsets-refusal.ts).
 */
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { QueueReader } from '../client/queue-reader.js';
import { RocketMQError } from '../errors.js';
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import { describeError } from '../util/describe-error.js';
import { type CommandHelp, declareCommand, parseCommand } from './cli-command.js';
import type { CliIo } from './cli-io.js';
import { isResettableStore } from './command-target.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { applyReset, runningPollers, unsafeStoreReason } from './offset-reset-apply.js';
import {
  describeResetTo,
  parseResetTo,
  planQueueReset,
  type QueueResetStep,
  type ResetTo,
} from './offset-reset-plan.js';
import { popOffsetsRefusal } from './pop-offsets-refusal.js';
import { readCommittedRecords, readMappingOffsets } from './queue-offsets.js';
import { reportUnreachable } from './status-command.js';
import { statusJson, statusTable } from './status-render.js';
import { runSubcommand } from './subcommands.js';
import {
  declareTargetOptions,
  openTargetOrReport,
  selectMapping,
  type TargetOptionValues,
  withTarget,
} from './target-options.js';
import { terminalStyle } from './terminal-style.js';

/** What `offsets show --help` says beyond its options. */
export const OFFSETS_SHOW_HELP: CommandHelp = {
  name: 'offsets show',
  description: `Shows the committed offsets of each mapping (or of --mapping), per queue, with the broker's min and max offsets, the lag, the offset generation and the poller holding the queue. A consumeMode POP mapping has none (the broker keeps its group's position; see it with status): refused when --mapping names it, skipped with a note otherwise.`,
  examples: [
    'rocketmq-lambda offsets show --config poller.yaml',
    'rocketmq-lambda offsets show --mapping orders --json',
  ],
  exitCodes: {
    [EXIT_FAILURE]: 'a broker or the offset store could not be read, or every mapping shown is a POP mapping',
  },
};

/** What `offsets reset --help` says beyond its options. */
export const OFFSETS_RESET_HELP: CommandHelp = {
  name: 'offsets reset',
  description: `Moves the committed offsets of a mapping's queues (all, or --queue): to the oldest stored message (earliest), past the newest (latest), to the first message stored at or after an ISO time, or to an offset (refused outside the queue's [min, max]). Prints before -> after per queue; --dry-run stops there. Safe while pollers run (DynamoDB store): the reset is a new offset generation, which running pollers adopt within a few seconds, restarting the queue there; the broker's copy of the group's offset moves too. Refused (exit 1, with the reason) for broadcasting mappings, the memory store, the file store while a poller of the group runs, and consumeMode POP mappings (the broker keeps their group's position: move it with mqadmin resetOffsetByTime). Asks for confirmation on a terminal unless --yes; elsewhere --yes is required.`,
  examples: [
    'rocketmq-lambda offsets reset --mapping orders --to earliest --dry-run',
    'rocketmq-lambda offsets reset --config poller.yaml --mapping orders --to 2026-12-01T12:00:00Z --yes',
    'rocketmq-lambda offsets reset --mapping orders --to 1042 --queue broker-a:3 --yes',
  ],
  exitCodes: {
    [EXIT_OK]: 'reset (or, with --dry-run, planned)',
    [EXIT_FAILURE]:
      'refused (the reason is on stderr: out of range, unsafe store, POP mapping, no confirmation) or failed',
  },
};

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

/** A `--queue`: a queue id on every broker group, or one queue `<broker>:<id>`. */
interface QueueSelector {
  readonly brokerName: string | undefined;
  readonly queueId: number;
}

interface ResetOptions extends TargetOptionValues {
  to: ResetTo;
  queue?: QueueSelector;
  dryRun?: boolean;
  yes?: boolean;
}

/**
 * Runs `offsets <show|reset>`; resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await offsetsCommand(['reset', '--mapping', 'orders', '--to', 'earliest', '--yes'], processIo());
 * ```
 */
export async function offsetsCommand(args: readonly string[], io: CliIo): Promise<number> {
  return runSubcommand('offsets', OFFSETS_USAGE, { show: offsetsShow, reset: offsetsReset }, args, io);
}

async function offsetsShow(args: readonly string[], io: CliIo): Promise<number> {
  const command = declareTargetOptions(declareCommand(OFFSETS_SHOW_HELP, io)).option('--json', 'JSON output');
  const parsed = parseCommand<TargetOptionValues & { json?: boolean }>(command, args);
  if (typeof parsed === 'number') return parsed;
  const options = parsed.options;
  return withTarget(command, options, io, async (target, selected) => {
    // A POP mapping has no committed offsets: refused when named, skipped (with the reason) otherwise.
    const mappings = selected.filter((m) => popOffsetsRefusal(m) === undefined);
    const verdict = mappings.length === 0 ? 'refused' : 'skipped';
    for (const m of selected) {
      const refusal = popOffsetsRefusal(m);
      if (refusal !== undefined) io.stderr.write(`${command.name()}: ${verdict}: ${refusal}\n`);
    }
    if (mappings.length === 0 && selected.length > 0) return EXIT_FAILURE;
    const snapshots = await Promise.all(
      mappings.map((m) =>
        readMappingOffsets(target.client, m, target.offsetStore(m), { messageAges: false }),
      ),
    );
    const nowMs = Date.now();
    if (options.json === true)
      io.stdout.write(`${JSON.stringify(statusJson(target.source, snapshots, nowMs))}\n`);
    else
      io.stdout.write(statusTable(snapshots, nowMs, terminalStyle(io.stdout as { isTTY?: boolean }, io.env)));
    return reportUnreachable(command, snapshots, io);
  });
}

function declareResetCommand(io: CliIo): Command {
  return declareTargetOptions(declareCommand(OFFSETS_RESET_HELP, io))
    .requiredOption('--to <position>', 'earliest | latest | <ISO time> | <offset>', parseResetTo)
    .option(
      '-q, --queue <queue>',
      'one queue id (on every broker group), or <broker>:<id>',
      parseQueueSelector,
    )
    .option('--dry-run', 'print before -> after per queue and stop')
    .option('-y, --yes', 'do not ask for confirmation');
}

async function offsetsReset(args: readonly string[], io: CliIo): Promise<number> {
  const command = declareResetCommand(io);
  const parsed = parseCommand<ResetOptions>(command, args);
  if (typeof parsed === 'number') return parsed;
  const options = parsed.options;
  const fail = (message: string, code = EXIT_FAILURE): number => {
    io.stderr.write(`rocketmq-lambda offsets reset: ${message}\n`);
    return code;
  };
  const target = await openTargetOrReport(command, options, io);
  if (typeof target === 'number') return target;
  try {
    const mapping = selectMapping(command, target, options, io);
    if (typeof mapping === 'number') return mapping;
    const pop = popOffsetsRefusal(mapping);
    if (pop !== undefined) return fail(`refused: ${pop}`);
    const unsafe = unsafeStoreReason(mapping);
    if (unsafe !== undefined) return fail(`refused: ${unsafe}`);
    const reader = new QueueReader({ client: target.client, consumerGroup: mapping.consumerGroup });
    let steps: QueueResetStep[];
    let addresses: Map<string, string>;
    try {
      const all = (await reader.queues(mapping.topic)).filter((q) => q.readable).map((q) => q.queue);
      const queues =
        options.queue === undefined ? all : all.filter((q) => matches(options.queue as QueueSelector, q));
      if (queues.length === 0) {
        return fail(
          `no queue ${selectorText(options.queue)} in topic ${mapping.topic}; its queues: ${all.map((q) => `${q.brokerName}:${q.queueId}`).join(', ')}`,
          EXIT_USAGE,
        );
      }
      addresses = new Map(
        await Promise.all(
          queues.map(async (q) => [messageQueueKey(q), await reader.masterAddress(q)] as [string, string]),
        ),
      );
      const store = target.offsetStore(mapping);
      const records = await readCommittedRecords(store, queues).catch((error: unknown) => {
        throw new StepError(`the offset store cannot be read: ${describeError(error)}`, error);
      });
      steps = await Promise.all(
        queues.map(async (queue) => {
          const address = addresses.get(messageQueueKey(queue)) as string;
          const header = { topic: queue.topic, queueId: queue.queueId, bname: queue.brokerName };
          const [minOffset, maxOffset, searchedOffset] = await Promise.all([
            target.client.broker.getMinOffset(address, header),
            target.client.broker.getMaxOffset(address, header),
            options.to.kind === 'time'
              ? target.client.broker.firstOffsetAtOrAfter(address, {
                  ...header,
                  consumerGroup: mapping.consumerGroup,
                  timestamp: options.to.timestampMs,
                })
              : undefined,
          ]);
          const committed = records.get(messageQueueKey(queue))?.offset;
          return planQueueReset(options.to, { queue, minOffset, maxOffset, committed, searchedOffset });
        }),
      );
    } catch (error) {
      if (error instanceof StepError) return fail(error.message);
      return fail(`the broker cannot be read: ${describeError(error)}`);
    }

    io.stdout.write(
      `${mapping.name} (group ${mapping.consumerGroup}): reset to ${describeResetTo(options.to)}\n`,
    );
    for (const step of steps) io.stdout.write(`  ${stepLine(step)}\n`);
    const refused = steps.filter((step) => step.refused !== undefined);
    if (refused.length > 0) {
      return fail(
        `refused: ${refused.length} of ${steps.length} queues cannot be reset (above); nothing was reset`,
      );
    }
    if (options.dryRun === true) {
      io.stdout.write('dry run: nothing was reset\n');
      return EXIT_OK;
    }
    const store = target.offsetStore(mapping);
    if (!isResettableStore(store)) {
      const running = await runningPollers(target.client.broker, mapping.consumerGroup, [
        ...new Set(addresses.values()),
      ]);
      if ('unknown' in running) {
        return fail(
          `refused: cannot tell whether a poller of the group runs (the brokers did not say: ${running.unknown})`,
        );
      }
      if (running.ids.length > 0) {
        return fail(
          `refused: the ${mapping.offsetStoreKind} store of ${mapping.name} belongs to a running poller (${running.ids.join(', ')}), which would overwrite the reset with its own offsets: stop it first`,
        );
      }
    }
    if (options.yes !== true) {
      const confirmed = await confirm(io, `Reset ${steps.length} queue(s) of ${mapping.name}? [y/N] `);
      if (confirmed === undefined)
        return fail('refused: not a terminal, nothing was reset: add --yes to reset without confirmation');
      if (!confirmed) return fail('not confirmed: nothing was reset');
    }
    return await applyReset(target, mapping, store, steps, addresses, io, fail);
  } finally {
    await target.close();
  }
}

/** A failure whose message is already what the operator should read. */
class StepError extends RocketMQError {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/** Asks `question` on the terminal; undefined when stdin/stdout are not a terminal. */
async function confirm(io: CliIo, question: string): Promise<boolean | undefined> {
  const stdout = io.stdout as { isTTY?: boolean };
  if (process.stdin.isTTY !== true || stdout.isTTY !== true) return undefined;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

function stepLine(step: QueueResetStep): string {
  const label = `${step.queue.brokerName}:${step.queue.queueId}`.padEnd(16);
  const range = `[min ${step.minOffset}, max ${step.maxOffset}]`;
  if (step.refused !== undefined) return `${label} refused: ${step.refused} ${range}`;
  return `${label} ${String(step.committed ?? '-').padStart(8)} -> ${String(step.after).padEnd(8)} ${range}`;
}

/**
 * Parses `--queue`: `3` (queue 3 of every broker group) or `broker-a:3`.
 *
 * @example
 * ```ts
 * parseQueueSelector('broker-a:3'); // => { brokerName: 'broker-a', queueId: 3 }
 * ```
 */
export function parseQueueSelector(text: string): QueueSelector {
  const match = /^(?:(.+):)?(\d+)$/.exec(text.trim());
  const queueId = Number(match?.[2]);
  if (match === null || !Number.isSafeInteger(queueId)) {
    throw new InvalidArgumentError('--queue must be a queue id (3) or <broker>:<id> (broker-a:3).');
  }
  return { brokerName: match[1], queueId };
}

function matches(selector: QueueSelector, queue: MessageQueue): boolean {
  return (
    queue.queueId === selector.queueId &&
    (selector.brokerName === undefined || selector.brokerName === queue.brokerName)
  );
}

function selectorText(selector: QueueSelector | undefined): string {
  if (selector === undefined) return '';
  return selector.brokerName === undefined
    ? String(selector.queueId)
    : `${selector.brokerName}:${selector.queueId}`;
}
