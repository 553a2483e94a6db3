/**
 * Where an offset reset moves each queue, and what that does to the messages: pure computation over
 * what the broker and the store say of the queue, so that offset-reset.ts only gathers facts and applies
 * the plan.
 *
 * - `earliest`: the broker's min offset (the oldest message still stored);
 * - `latest`: the max offset (the next message's: nothing old is delivered);
 * - an ISO time with its zone: the first message stored at or after it (`BrokerClient.firstOffsetAtOrAfter`,
 *   the same on 4.x brokers, whose own search answers the nearest message; kept within [min, max]). A
 *   time without a zone is refused (util/zoned-time.ts);
 * - a number: that offset, refused outside [min, max] with the reason (below min the messages are gone;
 *   above max there is nothing: the queue would wait for offsets the broker has not written).
 *
 * Each queue's move is counted from where the group would resume today (`from`): the higher of the
 * store's committed offset and the broker's copy of it (a poller starts at the higher one,
 * consumer/rebalance/start-offset.ts), or the mapping's starting position when neither has one. Moving
 * back redelivers `from - after` messages; moving forward skips `after - from` unconsumed ones, which
 * the CLI only does when told so explicitly ({@link skipGuard}).
 */
import { RocketMQError } from '../errors.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { localIsoTime, localZoneName, parseZonedTime } from '../util/zoned-time.js';

/** Where a reset moves a queue (the CLI's `--to`). */
export type ResetTo =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'time'; readonly timestampMs: number }
  | { readonly kind: 'offset'; readonly offset: number };

/** A reset position that is none of `earliest`, `latest`, an ISO time with its zone or an offset. */
export class ResetToError extends RocketMQError {
  constructor(message: string) {
    super(message, { permanent: true });
    this.name = 'ResetToError';
  }
}

/**
 * Reads a reset position: `earliest`, `latest`, an ISO time with its zone or an offset; throws
 * {@link ResetToError} otherwise (a time without a zone: with how to write it).
 */
export function resetToOf(text: string, nowMs = Date.now()): ResetTo {
  const value = text.trim();
  if (value === 'earliest' || value === 'latest') return { kind: value };
  if (/^\d+$/.test(value)) {
    const offset = Number(value);
    if (Number.isSafeInteger(offset)) return { kind: 'offset', offset };
  }
  const time = parseZonedTime(value, nowMs);
  if (time?.ok === true) return { kind: 'time', timestampMs: time.timestampMs };
  if (time !== undefined) throw new ResetToError(`${time.problem}.`);
  throw new ResetToError(
    '--to must be earliest, latest, an ISO time with its zone (2026-12-01T12:00:00Z, 2026-12-01T14:00:00+02:00) or an offset.',
  );
}

/**
 * What is known of a queue when its reset is planned.
 */
export interface QueueResetFacts {
  readonly queue: MessageQueue;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** The store's committed offset now (undefined: none). */
  readonly committed: number | undefined;
  /** The broker's copy of the group's committed offset (undefined: none, or the broker keeps none). */
  readonly brokerCommitted?: number | undefined;
  /** Where the mapping starts a queue that has no committed offset (its startingPosition). */
  readonly startOffset?: number | undefined;
  /** For `--to <time>`: the first offset stored at or after the time (`firstOffsetAtOrAfter`). */
  readonly searchedOffset?: number | undefined;
}

/** What a queue's move does to its messages. */
interface QueueResetEffect {
  /**
   * Where the group resumes the queue today, kept within [min, max]: the higher of the store's and the
   * broker's committed offsets, else the starting position (the min offset when that is unknown).
   */
  readonly from: number;
}

/**
 * The reset of one queue: from -> after with what it redelivers or skips, or why it is refused.
 */
export type QueueResetStep = QueueResetFacts &
  QueueResetEffect &
  (
    | {
        readonly after: number;
        readonly refused?: undefined;
        /** Messages delivered again (moving back from `from`). */
        readonly redelivered: number;
        /** Unconsumed messages never delivered (moving forward from `from`). */
        readonly skipped: number;
        /** The store and the broker's copy are both at `after` already: nothing to write. */
        readonly alreadyThere: boolean;
      }
    | {
        readonly after?: undefined;
        readonly refused: string;
        readonly redelivered: 0;
        readonly skipped: 0;
        readonly alreadyThere: false;
      }
  );

/**
 * Plans the reset of one queue to `to`.
 */
export function planQueueReset(to: ResetTo, facts: QueueResetFacts): QueueResetStep {
  const from = resumeOffset(facts);
  const target = targetOffset(to, facts);
  if (typeof target === 'string') {
    return { ...facts, from, refused: target, redelivered: 0, skipped: 0, alreadyThere: false };
  }
  return {
    ...facts,
    from,
    after: target,
    redelivered: Math.max(0, from - target),
    skipped: Math.max(0, target - from),
    alreadyThere:
      facts.committed === target && (facts.brokerCommitted === undefined || facts.brokerCommitted === target),
  };
}

/** The offset `to` means for the queue, or why there is none. */
function targetOffset(to: ResetTo, facts: QueueResetFacts): number | string {
  const { minOffset, maxOffset } = facts;
  switch (to.kind) {
    case 'earliest':
      return minOffset;
    case 'latest':
      return maxOffset;
    case 'time': {
      const searched = facts.searchedOffset;
      if (searched === undefined) return 'the broker did not answer the time search';
      return clamp(searched, minOffset, maxOffset);
    }
    case 'offset': {
      if (to.offset < minOffset) {
        return `offset ${to.offset} is below the min offset ${minOffset}: older messages are no longer stored`;
      }
      if (to.offset > maxOffset) {
        return `offset ${to.offset} is above the max offset ${maxOffset} (the next message's): nothing is stored there`;
      }
      return to.offset;
    }
  }
}

/** Where the group resumes the queue today (see {@link QueueResetEffect.from}). */
function resumeOffset(facts: QueueResetFacts): number {
  const committed = [facts.committed, facts.brokerCommitted].filter((o): o is number => o !== undefined);
  const resume = committed.length > 0 ? Math.max(...committed) : (facts.startOffset ?? facts.minOffset);
  return clamp(resume, facts.minOffset, facts.maxOffset);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** What a whole plan does, over every queue. */
export interface ResetTotals {
  /** Queues in the plan. */
  readonly queues: number;
  /** Queues the reset writes (neither refused nor already there). */
  readonly moving: number;
  readonly alreadyThere: number;
  readonly refused: number;
  /** Messages delivered again, over every queue. */
  readonly redelivered: number;
  /** Unconsumed messages never delivered, over every queue. */
  readonly skipped: number;
}

/**
 * The totals of `steps`.
 */
export function resetTotals(steps: readonly QueueResetStep[]): ResetTotals {
  let moving = 0;
  let alreadyThere = 0;
  let refused = 0;
  let redelivered = 0;
  let skipped = 0;
  for (const step of steps) {
    if (step.refused !== undefined) refused++;
    else if (step.alreadyThere) alreadyThere++;
    else moving++;
    redelivered += step.redelivered;
    skipped += step.skipped;
  }
  return { queues: steps.length, moving, alreadyThere, refused, redelivered, skipped };
}

/**
 * Why a reset needs the operator's explicit consent to lose messages, or undefined: it skips unconsumed
 * messages (latest, a time after them, an offset ahead of the group's), or it is to a time in the future
 * (which lands every queue at its latest offset: likely a typo for a past time).
 */
export function skipGuard(
  to: ResetTo,
  steps: readonly QueueResetStep[],
  nowMs: number,
): { readonly future: boolean; readonly skipped: number; readonly reason: string } | undefined {
  const skipped = resetTotals(steps).skipped;
  const future = to.kind === 'time' && to.timestampMs > nowMs;
  if (!future && skipped === 0) return undefined;
  const skips = `it skips ${skipped} unconsumed message(s)`;
  const perQueue = steps
    .filter((step) => step.skipped > 0)
    .map((step) => `${step.queue.brokerName}:${step.queue.queueId} ${step.skipped}`)
    .join(', ');
  const detail = perQueue === '' ? '' : ` (${perQueue})`;
  const reason = future
    ? `${new Date(to.timestampMs).toISOString()} is in the future (now ${new Date(nowMs).toISOString()}): every queue lands on its latest offset; ${skips}${detail}`
    : `${skips}${detail}`;
  return { future, skipped, reason };
}

/**
 * How a reset position reads in messages: `earliest`, `latest`, the time in UTC and in the local zone,
 * or `offset 42`.
 */
export function describeResetTo(to: ResetTo): string {
  switch (to.kind) {
    case 'earliest':
    case 'latest':
      return to.kind;
    case 'time': {
      const zone = localZoneName();
      return `${new Date(to.timestampMs).toISOString()} (local ${localIsoTime(to.timestampMs)}${zone === undefined ? '' : ` ${zone}`})`;
    }
    case 'offset':
      return `offset ${to.offset}`;
  }
}
