/**
 * `rocketmq-lambda offsets reset --to ...`: moves a mapping's committed offsets (operations/offset-reset.ts
 * plans, checks and applies; this file parses, asks and prints). Prints before -> after per queue;
 * --dry-run stops there; asks for confirmation on a terminal unless --yes.
 */
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError } from 'commander';
import {
  applyOffsetReset,
  checkOffsetResetSafe,
  planOffsetReset,
  type QueueSelector,
} from '../operations/offset-reset.js';
import {
  describeResetTo,
  type QueueResetStep,
  type ResetTo,
  resetToOf,
} from '../operations/offset-reset-plan.js';
import { OperationError } from '../operations/operation-error.js';
import { type CommandHelp, declareCommand, parseArgs } from './cli-command.js';
import { CliExit, cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import {
  declareTargetOptions,
  openTarget,
  selectMapping,
  type TargetOptionValues,
} from './target-options.js';

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

interface ResetOptions extends TargetOptionValues {
  to: ResetTo;
  queue?: QueueSelector;
  dryRun?: boolean;
  yes?: boolean;
}

/** Runs `offsets reset` with the arguments after `reset`; resolves with the exit code. */
export const offsetsResetCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  const command = declareTargetOptions(declareCommand(OFFSETS_RESET_HELP, io))
    .requiredOption('--to <position>', 'earliest | latest | <ISO time> | <offset>', parseResetTo)
    .option(
      '-q, --queue <queue>',
      'one queue id (on every broker group), or <broker>:<id>',
      parseQueueSelector,
    )
    .option('--dry-run', 'print before -> after per queue and stop')
    .option('-y, --yes', 'do not ask for confirmation');
  const { options } = parseArgs<ResetOptions>(command, args);
  const target = await openTarget(command, options, io);
  try {
    const mapping = selectMapping(command, target, options.mapping);
    const plan = await operation(planOffsetReset(target, mapping, options.to, options.queue));
    io.stdout.write(
      `${mapping.name} (group ${mapping.consumerGroup}): reset to ${describeResetTo(options.to)}\n`,
    );
    for (const step of plan.steps) io.stdout.write(`  ${stepLine(step)}\n`);
    if (plan.refused.length > 0) {
      throw fail(
        `refused: ${plan.refused.length} of ${plan.steps.length} queues cannot be reset (above); nothing was reset`,
      );
    }
    if (options.dryRun === true) {
      io.stdout.write('dry run: nothing was reset\n');
      return EXIT_OK;
    }
    await operation(checkOffsetResetSafe(target, plan));
    if (options.yes !== true) {
      const confirmed = await confirm(io, `Reset ${plan.steps.length} queue(s) of ${mapping.name}? [y/N] `);
      if (confirmed === undefined)
        throw fail('refused: not a terminal, nothing was reset: add --yes to reset without confirmation');
      if (!confirmed) throw fail('not confirmed: nothing was reset');
    }
    const result = await operation(applyOffsetReset(target, plan));
    io.stdout.write(
      `reset ${result.reset} queue(s) of ${mapping.name}${result.adoptedByRunningPollers ? ': running pollers resume there within a few seconds' : ''}\n`,
    );
    if (result.brokerFailures.length > 0) {
      throw fail(
        `the store was reset, but the broker's copy of these offsets was not moved (a poller that starts before one runs may start at the broker's older copy): ${result.brokerFailures.join('; ')}`,
      );
    }
    return EXIT_OK;
  } finally {
    await target.close();
  }
});

/** The end of the command with `message` (prefixed with its name) on stderr. */
function fail(message: string, code = EXIT_FAILURE): CliExit {
  return new CliExit(code, `rocketmq-lambda offsets reset: ${message}\n`);
}

/** Awaits an operation; its {@link OperationError} ends the command (invalid: exit 2, else 1). */
async function operation<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    if (!(error instanceof OperationError)) throw error;
    if (error.kind === 'invalid') throw fail(error.message, EXIT_USAGE);
    throw fail(error.kind === 'refused' ? `refused: ${error.message}` : error.message);
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
 * Parses `--to` (commander's argument parser): `earliest`, `latest`, an ISO time or an offset.
 */
export function parseResetTo(text: string): ResetTo {
  try {
    return resetToOf(text);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Parses `--queue`: `3` (queue 3 of every broker group) or `broker-a:3`.
 */
export function parseQueueSelector(text: string): QueueSelector {
  const match = /^(?:(.+):)?(\d+)$/.exec(text.trim());
  const queueId = Number(match?.[2]);
  if (match === null || !Number.isSafeInteger(queueId)) {
    throw new InvalidArgumentError('--queue must be a queue id (3) or <broker>:<id> (broker-a:3).');
  }
  return { brokerName: match[1], queueId };
}
