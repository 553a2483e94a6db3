/**
 * `rocketmq-lambda status`: where each mapping's consumption stands, queue by queue (broker min/max
 * offsets, committed offset, lag, age of the oldest unconsumed message, who holds the queue now and who
 * wrote its offset last), beside the live group at the brokers (its connected clients, their versions and
 * what each holds: operations/live-group.ts) and the group's dead-letter depth. A POP mapping has no
 * committed offset: its rows show the group's consumer offset at the broker and the lag from it, with the
 * group's registered pollers (operations/queue-positions.ts). A table on a terminal, `--json` for tools
 * (shape in status-render.ts), `--watch` redraws until Ctrl-C. Exit 1 when a broker or the offset store
 * could not be read (stderr says which, and names a missing topic or group as such).
 */

import type { Command } from 'commander';
import { readDeadLetterDepth } from '../client/dead-letter-depth.js';
import { brokerProblemLine } from '../operations/broker-problem.js';
import { DEFAULT_RUNNING_INFO_TIMEOUT_MS, readLiveGroup } from '../operations/live-group.js';
import { readQueuePositions } from '../operations/queue-positions.js';
import type { Target, TargetMapping } from '../operations/target.js';
import { dlqTopicOf } from '../protocol/group-topics.js';
import { abortableSleep } from '../util/abortable-sleep.js';
import { describeError } from '../util/describe-error.js';
import { type CommandHelp, declareCommand, parseArgs } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { positiveInteger } from './option-parsers.js';
import {
  type DeadLetterStatus,
  isPopSnapshot,
  type StatusSnapshot,
  statusJson,
  statusTable,
} from './status-render.js';
import { declareTargetOptions, type TargetOptionValues, withTarget } from './target-options.js';
import { terminalStyle } from './terminal-style.js';

/** `--watch` without a value: redraw every this many seconds. */
export const DEFAULT_WATCH_SECONDS = 2;

/** What `status --help` says beyond its options. */
export const STATUS_HELP: CommandHelp = {
  name: 'status',
  description: `Shows where each mapping's consumption stands, per queue: the broker's min and max offsets, the committed offset (and its generation), the lag, the age of the oldest unconsumed message, the live holder (the connected client that says it holds the queue, as mqadmin consumerStatus asks it) and the last writer of the stored offset (released: it handed the queue over; "reset gN": an operator's reset its holder has not adopted yet) with the time of that write. Above the queues, the live group at the brokers: every connected client with its address, RocketMQ version, language, runtime and what it holds ("running but holding no queue", or no answer to the running-info request within ${DEFAULT_RUNNING_INFO_TIMEOUT_MS / 1000} s), and the group's dead-letter depth (max minus min offset over its %DLQ% queues: every dead letter the brokers store, redriven ones included). For a consumeMode POP mapping (no committed offsets: the broker keeps the group's position) the group's consumer offset at the broker, the lag from it and the group's registered pollers instead of the holders. A missing topic or group is named as such, apart from a broker that cannot be reached. --json prints one document per snapshot (mappings[].queues, .liveGroup.clients, .deadLetters; every field is described in the operating guide). Reads the poller config given with --config, or ./serverless.yml: its running dev session, else its deployed settings.`,
  examples: [
    'rocketmq-lambda status --config poller.yaml',
    'rocketmq-lambda status --mapping orders --watch',
    'rocketmq-lambda status --config poller.yaml --json | jq ".mappings[].lag"',
  ],
  exitCodes: {
    [EXIT_OK]: 'the status was read (lag is not an error)',
    [EXIT_FAILURE]:
      'a broker or the offset store could not be read, or the topic or group does not exist (stderr says which)',
  },
};

interface StatusOptions extends TargetOptionValues {
  json?: boolean;
  watch?: number | true;
}

/**
 * Runs `status`; resolves with the exit code.
 */
export const statusCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  const command = declareTargetOptions(declareCommand(STATUS_HELP, io))
    .option('--json', 'one JSON document per snapshot (shape in the docs)')
    .option(
      '-w, --watch [seconds]',
      `redraw every N seconds (default ${DEFAULT_WATCH_SECONDS}) until Ctrl-C`,
      positiveInteger('--watch'),
    );
  const { options } = parseArgs<StatusOptions>(command, args);
  return withTarget(command, options, io, async (target, mappings) => {
    if (options.watch === undefined) return await printOnce(command, target, mappings, options, io, false);
    const intervalMs = (options.watch === true ? DEFAULT_WATCH_SECONDS : options.watch) * 1000;
    return await watch(command, target, mappings, options, io, intervalMs);
  });
});

async function printOnce(
  command: Command,
  target: Target,
  mappings: readonly TargetMapping[],
  options: StatusOptions,
  io: CliIo,
  redraw: boolean,
): Promise<number> {
  const snapshots = await Promise.all(mappings.map((mapping) => readStatus(target, mapping)));
  const nowMs = Date.now();
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify(statusJson(target.source, snapshots, nowMs))}\n`);
  } else {
    const style = terminalStyle(io.stdout as { isTTY?: boolean }, io.env);
    const title = style.dim(`${target.source}, ${new Date(nowMs).toISOString()}`);
    // On a terminal a redraw replaces the previous screen; elsewhere snapshots follow each other.
    const clear = redraw && (io.stdout as { isTTY?: boolean }).isTTY === true ? '\u001b[H\u001b[2J' : '';
    io.stdout.write(`${clear}${title}\n\n${statusTable(snapshots, nowMs, style)}`);
  }
  return reportUnreachable(command, snapshots, io);
}

/**
 * What `status` reads of one mapping, all at once: its queue positions (with the retry queues), the live
 * group at the brokers and the group's dead-letter depth. Never throws for a broker that cannot be read.
 */
export async function readStatus(
  target: Pick<Target, 'client' | 'offsetStore'>,
  mapping: TargetMapping,
): Promise<StatusSnapshot> {
  const [positions, live, deadLetters] = await Promise.all([
    readQueuePositions(target, mapping, { retryQueues: true }),
    // POP pollers answer too (pop-running-info.ts): no queues, but their counters (filteredOut).
    readLiveGroup(target.client, mapping),
    readDeadLetters(target.client, mapping.consumerGroup),
  ]);
  return { ...positions, live, deadLetters };
}

async function readDeadLetters(
  client: Parameters<typeof readDeadLetterDepth>[0],
  consumerGroup: string,
): Promise<DeadLetterStatus> {
  const topic = dlqTopicOf(consumerGroup);
  try {
    const { depth, queues } = await readDeadLetterDepth(client, consumerGroup);
    return { topic, depth, queues };
  } catch (error) {
    return { topic, error: describeError(error) };
  }
}

/**
 * Writes one line per mapping whose brokers or offset store could not be read (a missing topic or group
 * named as such), prefixed with the command's name; returns the exit code (1 when there was one).
 */
export function reportUnreachable(command: Command, snapshots: readonly StatusSnapshot[], io: CliIo): number {
  let code = EXIT_OK;
  for (const snapshot of snapshots) {
    const { mapping, brokerError, live, deadLetters } = snapshot;
    const lines: string[] = [];
    if (brokerError !== undefined) lines.push(brokerProblemLine(brokerError, snapshot.brokerErrorKind));
    const storeError = isPopSnapshot(snapshot) ? undefined : snapshot.storeError;
    if (storeError !== undefined) lines.push(`offset store unreachable: ${storeError}`);
    // A failed route read (a missing topic, no name server) is said once, not again for the live group.
    const said =
      live?.problem?.message === brokerError ||
      (live?.problem?.kind === 'topic-missing' && snapshot.brokerErrorKind === 'topic-missing');
    if (live?.problem !== undefined && !said)
      lines.push(`live group: ${brokerProblemLine(live.problem.message, live.problem.kind)}`);
    if (deadLetters?.error !== undefined)
      lines.push(`dead letters of ${deadLetters.topic}: ${deadLetters.error}`);
    for (const line of lines) io.stderr.write(`${command.name()}: ${mapping.name}: ${line}\n`);
    if (lines.length > 0) code = EXIT_FAILURE;
  }
  return code;
}

/** Prints a snapshot every `intervalMs` until a stop signal; exits with the last snapshot's code. */
async function watch(
  command: Command,
  target: Target,
  mappings: readonly TargetMapping[],
  options: StatusOptions,
  io: CliIo,
  intervalMs: number,
): Promise<number> {
  const stop = new AbortController();
  const remove = io.onStopSignal(() => stop.abort());
  let code = EXIT_OK;
  try {
    while (!stop.signal.aborted) {
      code = await printOnce(command, target, mappings, options, io, true);
      await abortableSleep(intervalMs, stop.signal);
    }
  } finally {
    remove();
  }
  return code;
}
