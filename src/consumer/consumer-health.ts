/**
 * Whether a consumer is doing its job, judged from progress rather than from being alive: a mapping is
 * unhealthy when it is not running, when no rebalance could decide its queues for
 * {@link REBALANCE_STALL_MS} (no route, no broker answering the consumer list), when a queue it holds
 * has not completed a pull for {@link PULL_STALL_MS} (a queue paused by flow control counts as progress:
 * the function is the bottleneck, not the broker), or when offset writes have been failing for
 * {@link OFFSET_WRITE_STALL_MS}, or when it could not consume at all (its topic or group missing, its
 * subscription refused, no queue assigned: consume-state.ts) for longer than its `readinessGraceMs`.
 * The thresholds are above what a broker restart (~20 s) or a short
 * DynamoDB outage takes, and well below what lets a backlog grow unnoticed; docs/operating.md lists them.
 */
import type { OffsetStoreHealth } from '../offsets/offset-store.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { describeError } from '../util/describe-error.js';
import { type ConsumeState, consumeStateProblem } from './consume-state.js';
import type { ConsumerState } from './consumer-status.js';

/** No completed pull on a held queue for this long: unhealthy. */
export const PULL_STALL_MS = 120_000;
/** No rebalance decision (route + consumer list) for this long: unhealthy. */
export const REBALANCE_STALL_MS = 120_000;
/** Offset writes failing for this long: unhealthy. */
export const OFFSET_WRITE_STALL_MS = 120_000;

/**
 * The verdict on one mapping: healthy, or the problems found (one sentence each).
 */
export interface ConsumerHealth {
  readonly healthy: boolean;
  readonly problems: readonly string[];
  /** What the consumer can do now (consume-state.ts); reported whether healthy or not. */
  readonly state?: ConsumeState | undefined;
}

/** The progress of one held queue. */
export interface QueueProgress {
  readonly queue: MessageQueue;
  /** The last completed pull or flow-control pause (ms since epoch). */
  readonly lastProgressMs: number;
  readonly lastError: unknown;
}

/** What {@link assessConsumerHealth} looks at. */
export interface ConsumerHealthInput {
  readonly state: ConsumerState;
  readonly fatalError: unknown;
  readonly startedAtMs: number | undefined;
  readonly lastDecisionMs: number | undefined;
  readonly lastDecisionError: unknown;
  readonly queues: readonly QueueProgress[];
  readonly offsets: OffsetStoreHealth;
  readonly nowMs: number;
  /** The consume state, judged against `graceMs` (consume-state.ts). */
  readonly consume?: { readonly state: ConsumeState; readonly graceMs: number } | undefined;
}

/**
 * Judges a consumer (see the file comment).
 */
export function assessConsumerHealth(input: ConsumerHealthInput): ConsumerHealth {
  const { nowMs } = input;
  const problems: string[] = [];
  const state = input.consume?.state;
  const withState = (health: ConsumerHealth): ConsumerHealth =>
    state === undefined ? health : { ...health, state };
  if (input.state !== 'running') {
    const why = input.fatalError === undefined ? '' : `: ${describeError(input.fatalError)}`;
    problems.push(`consumer is ${input.state}${why}`);
    return withState({ healthy: false, problems });
  }
  const cannotConsume =
    input.consume === undefined
      ? undefined
      : consumeStateProblem(input.consume.state, input.consume.graceMs, nowMs);
  if (cannotConsume !== undefined) problems.push(cannotConsume);
  const decidedMs = input.lastDecisionMs ?? input.startedAtMs ?? nowMs;
  // A missing topic is said once, by the consume state, not again as a rebalance that cannot decide.
  if (nowMs - decidedMs > REBALANCE_STALL_MS && cannotConsume === undefined) {
    const why = input.lastDecisionError === undefined ? '' : ` (${describeError(input.lastDecisionError)})`;
    problems.push(`no rebalance could assign queues for ${seconds(nowMs - decidedMs)}${why}`);
  }
  for (const queue of input.queues) {
    const idleMs = nowMs - queue.lastProgressMs;
    if (idleMs <= PULL_STALL_MS) continue;
    const { topic, brokerName, queueId } = queue.queue;
    const why = queue.lastError === undefined ? '' : ` (${describeError(queue.lastError)})`;
    problems.push(`queue ${topic}@${brokerName}@${queueId}: no pull completed for ${seconds(idleMs)}${why}`);
  }
  const failingSince = input.offsets.failingSinceMs;
  if (failingSince !== undefined && nowMs - failingSince > OFFSET_WRITE_STALL_MS) {
    problems.push(
      `offsets not written for ${seconds(nowMs - failingSince)} (${describeError(input.offsets.lastError)})`,
    );
  }
  return withState({ healthy: problems.length === 0, problems });
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
