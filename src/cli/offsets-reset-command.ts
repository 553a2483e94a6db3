/**
 * `rocketmq-lambda offsets reset --to ...`: moves a mapping's committed offsets (operations/offset-reset.ts
 * plans, checks and applies; offset-reset-plan.ts counts what each queue redelivers or skips; this file
 * parses, guards, asks and prints). Prints from -> to per queue with the totals; --dry-run stops there. A
 * reset that skips unconsumed messages, or to a time in the future, needs --allow-skip. SIGINT/SIGTERM
 * during the apply finish the queue in flight and stop, saying which queues moved.
 */
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError } from 'commander';
import {
  applyOffsetReset,
  checkOffsetResetSafe,
  type OffsetResetPlan,
  type OffsetResetResult,
  planOffsetReset,
  type QueueResetOutcome,
  type QueueSelector,
} from '../operations/offset-reset.js';
import {
  describeResetTo,
  type QueueResetStep,
  type ResetTo,
  type ResetTotals,
  resetToOf,
  resetTotals,
  skipGuard,
} from '../operations/offset-reset-plan.js';
import { OperationError } from '../operations/operation-error.js';
import { localIsoTime, localZoneName } from '../util/zoned-time.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { CliExit, cliCommand } from './cli-exit.js';
import { type CliIo, type StopSignal, signalExitCode } from './cli-io.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, EXIT_USAGE } from './exit-codes.js';
import { startProgress } from './progress-reporter.js';
import {
  declareTargetOptions,
  openTarget,
  selectMapping,
  type TargetOptionValues,
} from './target-options.js';

/** What `offsets reset --help` says beyond its options. */
export const OFFSETS_RESET_HELP: CommandHelp = {
  name: 'offsets reset',
  description: `Moves the committed offsets of a mapping's queues (all, or --queue): to the oldest stored message (earliest), past the newest (latest), to the first message stored at or after an ISO time, or to an offset (refused outside the queue's [min, max]). A time must say its zone (2026-12-01T12:00:00Z or 2026-12-01T14:00:00+02:00; one without is refused, exit 2); the plan shows it in UTC and in the local zone.

Prints from -> to per queue, where "from" is where the group resumes today (the higher of the store's committed offset and the broker's copy, else the mapping's starting position), with how many messages each queue redelivers (moving back) or skips (moving forward past unconsumed messages), and the totals; --dry-run stops there. A reset that skips any message (latest, a later time, an offset ahead), and any reset to a time in the future (it lands on latest), is refused (exit 1, naming the count) unless --allow-skip.

Safe while pollers run (DynamoDB store): the reset is a new offset generation, which running pollers adopt within a few seconds, restarting the queue there; the broker's copy of the group's offset moves too. Applied one queue at a time, each queue moved whole or not at all: SIGINT/SIGTERM finish the queue in flight, stop, and list the queues moved and not moved (exit 130/143); a rerun reports queues already at the target as "already there" and writes only what is missing (while pollers run, finish with --queue for the queues not moved: a rerun moves back again a queue consumed since). Refused (exit 1, with the reason) for broadcasting mappings, the memory store, the file store while a poller of the group runs, and consumeMode POP mappings (the broker keeps their group's position: move it with mqadmin resetOffsetByTime). Asks for confirmation on a terminal unless --yes; without a terminal --yes is required (exit 2).

--json prints one document on stdout: {mapping, topic, consumerGroup, to: {kind, input, at, atLocal, timeZone, offset}, dryRun, queues: [{brokerName, queueId, minOffset, maxOffset, committedOffset, brokerOffset, resumeOffset, targetOffset, redelivered, skipped, state (planned | alreadyThere | refused | moved | notMoved), refused, brokerFailure}], totals: {queues, moving, alreadyThere, refused, redelivered, skipped}, needsAllowSkip (the reason, or null), result (null for a plan; else {moved, alreadyThere, notMoved, interrupted, adoptedByRunningPollers, brokerFailures, storeFailure})}; progress and errors stay on stderr.`,
  examples: [
    'rocketmq-lambda offsets reset --mapping orders --to earliest --dry-run',
    'rocketmq-lambda offsets reset --config poller.yaml --mapping orders --to 2026-12-01T12:00:00Z --yes',
    'rocketmq-lambda offsets reset --mapping orders --to 2026-12-01T14:00:00+02:00 --dry-run --json',
    'rocketmq-lambda offsets reset --mapping orders --to 1042 --queue broker-a:3 --yes',
    'rocketmq-lambda offsets reset --mapping orders --to latest --allow-skip --yes',
  ],
  exitCodes: {
    [EXIT_OK]: 'reset, every queue already there, or (with --dry-run) planned',
    [EXIT_FAILURE]:
      'refused (the reason is on stderr: out of range, skips messages without --allow-skip, unsafe store, POP mapping, declined) or failed',
    [EXIT_USAGE]: 'bad arguments (a time without a zone, an unknown queue), or no --yes without a terminal',
    [EXIT_INTERRUPTED]: 'interrupted by SIGINT: the queues moved and not moved are listed on stderr',
    [EXIT_TERMINATED]: 'terminated by SIGTERM: the queues moved and not moved are listed on stderr',
  },
};

interface ResetOptions extends TargetOptionValues {
  to: ResetTo;
  queue?: QueueSelector[];
  dryRun?: boolean;
  yes?: boolean;
  allowSkip?: boolean;
  json?: boolean;
}

/** Runs `offsets reset` with the arguments after `reset`; resolves with the exit code. */
export const offsetsResetCommand = cliCommand(async (args: readonly string[], io: CliIo): Promise<number> => {
  const command = declareTargetOptions(declareCommand(OFFSETS_RESET_HELP, io))
    .requiredOption(
      '--to <position>',
      'earliest | latest | <ISO time with zone: 2026-12-01T12:00:00Z> | <offset>',
      parseResetTo,
    )
    .option(
      '-q, --queue <queue>',
      'one queue id (on every broker group), or <broker>:<id>; repeat for several',
      (text: string, previous: QueueSelector[] | undefined) => [
        ...(previous ?? []),
        parseQueueSelector(text),
      ],
    )
    .option('--allow-skip', 'allow a reset that skips unconsumed messages, or to a time in the future')
    .option('--dry-run', 'print the plan (from -> to per queue, the totals) and stop')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'the plan and the result as one JSON document on stdout');
  const { options } = parseArgs<ResetOptions>(command, args);
  const dryRun = options.dryRun === true;
  const input = rawOption(args, '--to');
  if (!dryRun && options.yes !== true && process.stdin.isTTY !== true) {
    throw usageExit(
      command,
      'stdin is not a terminal, so nobody can confirm: pass --yes to reset (or --dry-run to see the plan)',
    );
  }
  const target = await openTarget(command, options, io);
  try {
    const mapping = selectMapping(command, target, options.mapping);
    const nowMs = Date.now();
    const plan = await operation(planOffsetReset(target, mapping, options.to, options.queue));
    const totals = resetTotals(plan.steps);
    const guard = skipGuard(options.to, plan.steps, nowMs);
    const json = options.json === true;
    const document = (result: OffsetResetResult | undefined): string =>
      `${JSON.stringify(resetJson(plan, totals, guard?.reason, dryRun, input, result))}\n`;
    if (!json) io.stdout.write(planText(plan, totals));
    if (plan.refused.length > 0) {
      if (json) io.stdout.write(document(undefined));
      throw fail(
        `refused: ${plan.refused.length} of ${plan.steps.length} queues cannot be reset (${json ? 'queues[].refused' : 'above'}); nothing was reset`,
      );
    }
    if (dryRun) {
      if (json) io.stdout.write(document(undefined));
      else io.stdout.write('dry run: nothing was reset\n');
      if (guard !== undefined && options.allowSkip !== true) {
        io.stderr.write(`note: applying it needs --allow-skip: ${guard.reason}\n`);
      }
      return EXIT_OK;
    }
    if (guard !== undefined && options.allowSkip !== true) {
      if (json) io.stdout.write(document(undefined));
      throw fail(`refused: ${guard.reason}; nothing was reset: pass --allow-skip to skip them`);
    }
    if (totals.moving === 0) {
      if (json) io.stdout.write(document(undefined));
      else io.stdout.write(`nothing to do: every queue of ${mapping.name} is already there\n`);
      return EXIT_OK;
    }
    await operation(checkOffsetResetSafe(target, plan));
    if (options.yes !== true) {
      const answer = await confirm(
        `Reset ${totals.moving} queue(s) of ${mapping.name} (redelivers ${totals.redelivered}, skips ${totals.skipped})? [y/N] `,
      );
      if (answer === 'interrupted') throw fail('interrupted: nothing was reset', EXIT_INTERRUPTED);
      if (!answer) throw fail('not confirmed: nothing was reset');
    }
    const result = await applyWithStopSignals(io, plan, totals, (signal, onQueue) =>
      operation(applyOffsetReset(target, plan, { signal, onQueue })),
    );
    if (json) io.stdout.write(document(result.result));
    else io.stdout.write(resultText(plan, result.result));
    return endOf(plan, result.result, result.signalled);
  } finally {
    await target.close();
  }
});

/** The exit code of an applied reset, with what went wrong on stderr (through the thrown CliExit). */
function endOf(plan: OffsetResetPlan, result: OffsetResetResult, signalled: StopSignal | undefined): number {
  const notMoved = result.outcomes.filter((o) => o.state === 'not moved');
  const where =
    notMoved.length === 0
      ? ''
      : `; not moved: ${notMoved.map(queueText).join(', ')} (finish with ${notMoved.map((o) => `--queue ${queueText(o)}`).join(' ')})`;
  if (result.storeFailure !== undefined) {
    throw fail(`the offset store refused the reset of ${result.storeFailure}: stopped there${where}`);
  }
  if (signalled !== undefined) {
    const code = signalled === 'SIGINT' ? EXIT_INTERRUPTED : EXIT_TERMINATED;
    throw fail(
      `stopped by ${signalled} after ${result.reset + result.alreadyThere} of ${plan.steps.length} queue(s)${where}`,
      code,
    );
  }
  if (result.brokerFailures.length > 0) {
    throw fail(
      `the store was reset, but the broker's copy of these offsets was not moved (a poller that starts before one runs may start at the broker's older copy): ${result.brokerFailures.join('; ')}`,
    );
  }
  return EXIT_OK;
}

/**
 * Runs the apply with SIGINT/SIGTERM turned into a stop after the queue in flight (a second signal exits
 * at once: each queue is moved whole or not, operations/offset-reset.ts), and a progress display on
 * stderr (progress-reporter.ts, which restores the terminal however the process ends).
 */
async function applyWithStopSignals(
  io: CliIo,
  plan: OffsetResetPlan,
  totals: ResetTotals,
  apply: (signal: AbortSignal, onQueue: (outcome: QueueResetOutcome) => void) => Promise<OffsetResetResult>,
): Promise<{ result: OffsetResetResult; signalled: StopSignal | undefined }> {
  const controller = new AbortController();
  let signalled: StopSignal | undefined;
  const remove = io.onStopSignal((signal) => {
    if (signalled !== undefined) {
      io.stderr.write(
        `rocketmq-lambda offsets reset: second ${signal}: exiting now; run the same reset again to finish (queues already moved are reported already there)\n`,
      );
      io.exitNow(signalExitCode(signal));
      return;
    }
    signalled = signal;
    io.stderr.write(
      `rocketmq-lambda offsets reset: ${signal}: finishing the queue in flight, then stopping\n`,
    );
    controller.abort();
  });
  // A live bar on a terminal only: elsewhere stdout's result line says the same, and stderr stays for
  // what went wrong.
  const stderr = io.stderr as { write(text: string): unknown; isTTY?: boolean };
  const progress =
    stderr.isTTY === true
      ? startProgress({
          stream: stderr,
          label: `queue(s) of ${plan.mapping.name} reset`,
          total: totals.moving,
        })
      : undefined;
  try {
    const result = await apply(controller.signal, (outcome) => {
      if (outcome.state === 'moved') progress?.advance(1);
    });
    return { result, signalled };
  } finally {
    progress?.finish();
    remove();
  }
}

/** The text given to `option` (`--to x` or `--to=x`; the last one wins, as commander reads it). */
function rawOption(args: readonly string[], option: string): string | undefined {
  let value: string | undefined;
  args.forEach((arg, i) => {
    if (arg === option) value = args[i + 1];
    else if (arg.startsWith(`${option}=`)) value = arg.slice(option.length + 1);
  });
  return value;
}

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

/** Asks `question` on the terminal (stderr: stdout stays the result's); Ctrl-C at the prompt interrupts. */
async function confirm(question: string): Promise<boolean | 'interrupted'> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const interrupted = new AbortController();
  prompt.once('SIGINT', () => interrupted.abort());
  try {
    const answer = await prompt.question(question, { signal: interrupted.signal });
    return /^y(es)?$/i.test(answer.trim());
  } catch (error) {
    if (interrupted.signal.aborted) return 'interrupted';
    throw error;
  } finally {
    prompt.close();
  }
}

function queueText(step: { readonly queue: QueueResetStep['queue'] }): string {
  return `${step.queue.brokerName}:${step.queue.queueId}`;
}

/** The plan as text: the position, one line per queue, the totals. */
export function planText(plan: OffsetResetPlan, totals: ResetTotals): string {
  const lines = [
    `${plan.mapping.name} (group ${plan.mapping.consumerGroup}): reset to ${describeResetTo(plan.to)}`,
    ...plan.steps.map((step) => `  ${stepLine(step)}`),
    `  total: ${totals.moving} queue(s) move${totals.alreadyThere > 0 ? `, ${totals.alreadyThere} already there` : ''}${totals.refused > 0 ? `, ${totals.refused} refused` : ''}; redelivers ${totals.redelivered}, skips ${totals.skipped}`,
  ];
  return `${lines.join('\n')}\n`;
}

function stepLine(step: QueueResetStep): string {
  const label = queueText(step).padEnd(16);
  const range = `[min ${step.minOffset}, max ${step.maxOffset}]`;
  if (step.refused !== undefined) return `${label} refused: ${step.refused} ${range}`;
  const effect = step.alreadyThere
    ? 'already there'
    : step.redelivered > 0
      ? `redelivers ${step.redelivered}`
      : step.skipped > 0
        ? `skips ${step.skipped}`
        : 'no message redelivered or skipped';
  return `${label} ${String(step.from).padStart(8)} -> ${String(step.after).padEnd(8)} ${range.padEnd(24)} ${effect}${fromNote(step)}`;
}

/** Why `from` is not simply the store's committed offset, when it is not. */
function fromNote(step: QueueResetStep): string {
  if (step.committed === undefined && step.brokerCommitted === undefined) {
    return ' (no committed offset: from is where the mapping starts)';
  }
  if (
    step.brokerCommitted !== undefined &&
    (step.committed === undefined || step.brokerCommitted > step.committed)
  ) {
    return ` (from is the broker's copy; the store has ${step.committed ?? 'none'})`;
  }
  return '';
}

function resultText(plan: OffsetResetPlan, result: OffsetResetResult): string {
  const lines = result.outcomes
    .filter((o) => o.state !== 'moved')
    .map((o) => `  ${queueText(o).padEnd(16)} ${o.state}`);
  const adopted =
    result.adoptedByRunningPollers && result.reset > 0
      ? ': a running poller of the group resumes there within a few seconds, a starting one begins there'
      : '';
  lines.push(
    `reset ${result.reset} queue(s) of ${plan.mapping.name}${result.alreadyThere > 0 ? ` (${result.alreadyThere} already there)` : ''}${adopted}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The `--json` document (the command's help lists its fields). */
function resetJson(
  plan: OffsetResetPlan,
  totals: ResetTotals,
  needsAllowSkip: string | undefined,
  dryRun: boolean,
  input: string | undefined,
  result: OffsetResetResult | undefined,
) {
  const { mapping, to } = plan;
  const outcomes = new Map(result?.outcomes.map((o) => [queueText(o), o]));
  return {
    mapping: mapping.name,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    to: {
      kind: to.kind,
      input: input ?? null,
      at: to.kind === 'time' ? new Date(to.timestampMs).toISOString() : null,
      atLocal: to.kind === 'time' ? localIsoTime(to.timestampMs) : null,
      timeZone: to.kind === 'time' ? (localZoneName() ?? null) : null,
      offset: to.kind === 'offset' ? to.offset : null,
    },
    dryRun,
    queues: plan.steps.map((step) => {
      const outcome = outcomes.get(queueText(step));
      return {
        brokerName: step.queue.brokerName,
        queueId: step.queue.queueId,
        minOffset: step.minOffset,
        maxOffset: step.maxOffset,
        committedOffset: step.committed ?? null,
        brokerOffset: step.brokerCommitted ?? null,
        resumeOffset: step.from,
        targetOffset: step.after ?? null,
        redelivered: step.redelivered,
        skipped: step.skipped,
        state:
          step.refused !== undefined
            ? 'refused'
            : outcome !== undefined
              ? outcomeState(outcome)
              : step.alreadyThere
                ? 'alreadyThere'
                : 'planned',
        refused: step.refused ?? null,
        brokerFailure: outcome?.brokerFailure ?? null,
      };
    }),
    totals,
    needsAllowSkip: needsAllowSkip ?? null,
    result:
      result === undefined
        ? null
        : {
            moved: result.reset,
            alreadyThere: result.alreadyThere,
            notMoved: result.outcomes.filter((o) => o.state === 'not moved').length,
            interrupted: result.interrupted,
            adoptedByRunningPollers: result.adoptedByRunningPollers,
            brokerFailures: result.brokerFailures,
            storeFailure: result.storeFailure ?? null,
          },
  };
}

function outcomeState(outcome: QueueResetOutcome): 'moved' | 'alreadyThere' | 'notMoved' {
  return outcome.state === 'moved'
    ? 'moved'
    : outcome.state === 'already there'
      ? 'alreadyThere'
      : 'notMoved';
}

/**
 * Parses `--to` (commander's argument parser): `earliest`, `latest`, an ISO time with its zone or an
 * offset.
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
