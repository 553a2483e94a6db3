/**
 * `rocketmq-lambda status`: where each mapping's consumption stands, queue by queue (broker min/max
 * offsets, committed offset, lag, age of the oldest unconsumed message, the poller holding the queue and
 * its last commit). A POP mapping has no committed offset: its rows show the group's consumer offset at
 * the broker and the lag from it, with the group's registered pollers (operations/queue-positions.ts). A table on
 * a terminal, `--json` for tools (shape in status-render.ts), `--watch` redraws until Ctrl-C. Exit 1 when
 * a broker or the offset store could not be read (stderr says which).
 */

import type { Command } from 'commander';
import { readQueuePositions } from '../operations/queue-positions.js';
import type { Target, TargetMapping } from '../operations/target.js';
import { abortableSleep } from '../util/abortable-sleep.js';
import { type CommandHelp, declareCommand, parseArgs } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { positiveInteger } from './option-parsers.js';
import { isPopSnapshot, type StatusSnapshot, statusJson, statusTable } from './status-render.js';
import { declareTargetOptions, type TargetOptionValues, withTarget } from './target-options.js';
import { terminalStyle } from './terminal-style.js';

/** `--watch` without a value: redraw every this many seconds. */
export const DEFAULT_WATCH_SECONDS = 2;

/** What `status --help` says beyond its options. */
export const STATUS_HELP: CommandHelp = {
  name: 'status',
  description: `Shows where each mapping's consumption stands, per queue: the broker's min and max offsets, the committed offset (and its generation), the lag, the age of the oldest unconsumed message, the poller holding the queue (released: it handed the queue over) and its last commit. For a consumeMode POP mapping (no committed offsets: the broker keeps the group's position) the group's consumer offset at the broker, the lag from it and the group's registered pollers instead. Reads the poller config given with --config, or ./serverless.yml: its running dev session, else its deployed settings.`,
  examples: [
    'rocketmq-lambda status --config poller.yaml',
    'rocketmq-lambda status --mapping orders --watch',
    'rocketmq-lambda status --config poller.yaml --json | jq ".mappings[].lag"',
  ],
  exitCodes: {
    [EXIT_OK]: 'the status was read (lag is not an error)',
    [EXIT_FAILURE]: 'a broker or the offset store could not be read (stderr says which)',
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
  const snapshots = await Promise.all(
    mappings.map((mapping) => readQueuePositions(target, mapping, { retryQueues: true })),
  );
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
 * Writes one line per mapping whose broker or offset store could not be read, prefixed with the
 * command's name; returns the exit code (1 when there was one).
 */
export function reportUnreachable(command: Command, snapshots: readonly StatusSnapshot[], io: CliIo): number {
  let code = EXIT_OK;
  for (const snapshot of snapshots) {
    const { mapping, brokerError } = snapshot;
    const storeError = isPopSnapshot(snapshot) ? undefined : snapshot.storeError;
    for (const [what, error] of [
      ['broker', brokerError],
      ['offset store', storeError],
    ] as const) {
      if (error === undefined) continue;
      io.stderr.write(`${command.name()}: ${mapping.name}: ${what} unreachable: ${error}\n`);
      code = EXIT_FAILURE;
    }
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
