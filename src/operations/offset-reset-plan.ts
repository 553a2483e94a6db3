/**
 * Where an offset reset moves each queue: pure computation over what the broker says of the queue
 * (min/max offsets, and for a time the first offset stored at or after it), so that offset-reset.ts
 * only gathers facts and applies the plan.
 *
 * - `earliest`: the broker's min offset (the oldest message still stored);
 * - `latest`: the max offset (the next message's: nothing old is delivered);
 * - an ISO time: the first message stored at or after it (`BrokerClient.firstOffsetAtOrAfter`, the same
 *   on 4.x brokers, whose own search answers the nearest message; kept within [min, max]);
 * - a number: that offset, refused outside [min, max] with the reason (below min the messages are gone;
 *   above max there is nothing: the queue would wait for offsets the broker has not written).
 */
import { RocketMQError } from '../errors.js';
import type { MessageQueue } from '../protocol/message-queue.js';

/** Where a reset moves a queue (the CLI's `--to`). */
export type ResetTo =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'time'; readonly timestampMs: number }
  | { readonly kind: 'offset'; readonly offset: number };

/** An ISO 8601 date or date-time (`2026-12-01`, `2026-12-01T12:00:00Z`, `...+02:00`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A reset position that is none of `earliest`, `latest`, an ISO time or an offset. */
export class ResetToError extends RocketMQError {
  constructor(message: string) {
    super(message, { permanent: true });
    this.name = 'ResetToError';
  }
}

/**
 * Reads a reset position: `earliest`, `latest`, an ISO time or an offset; throws {@link ResetToError}
 * otherwise.
 */
export function resetToOf(text: string): ResetTo {
  const value = text.trim();
  if (value === 'earliest' || value === 'latest') return { kind: value };
  if (/^\d+$/.test(value)) {
    const offset = Number(value);
    if (Number.isSafeInteger(offset)) return { kind: 'offset', offset };
  }
  if (ISO_TIME.test(value)) {
    const timestampMs = Date.parse(value);
    if (Number.isFinite(timestampMs)) return { kind: 'time', timestampMs };
  }
  throw new ResetToError('--to must be earliest, latest, an ISO time (2026-12-01T12:00:00Z) or an offset.');
}

/**
 * What is known of a queue when its reset is planned.
 */
export interface QueueResetFacts {
  readonly queue: MessageQueue;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** The committed offset now (undefined: none). */
  readonly committed: number | undefined;
  /** For `--to <time>`: the first offset stored at or after the time (`firstOffsetAtOrAfter`). */
  readonly searchedOffset?: number | undefined;
}

/**
 * The reset of one queue: before → after, or why it is refused.
 */
export type QueueResetStep = QueueResetFacts &
  (
    | { readonly after: number; readonly refused?: undefined }
    | { readonly after?: undefined; readonly refused: string }
  );

/**
 * Plans the reset of one queue to `to`.
 */
export function planQueueReset(to: ResetTo, facts: QueueResetFacts): QueueResetStep {
  const { minOffset, maxOffset } = facts;
  switch (to.kind) {
    case 'earliest':
      return { ...facts, after: minOffset };
    case 'latest':
      return { ...facts, after: maxOffset };
    case 'time': {
      const searched = facts.searchedOffset;
      if (searched === undefined) return { ...facts, refused: 'the broker did not answer the time search' };
      return { ...facts, after: Math.min(maxOffset, Math.max(minOffset, searched)) };
    }
    case 'offset': {
      if (to.offset < minOffset) {
        return {
          ...facts,
          refused: `offset ${to.offset} is below the min offset ${minOffset}: older messages are no longer stored`,
        };
      }
      if (to.offset > maxOffset) {
        return {
          ...facts,
          refused: `offset ${to.offset} is above the max offset ${maxOffset} (the next message's): nothing is stored there`,
        };
      }
      return { ...facts, after: to.offset };
    }
  }
}

/**
 * How a reset position reads in messages: `earliest`, `latest`, the time in ISO form, or `offset 42`.
 */
export function describeResetTo(to: ResetTo): string {
  switch (to.kind) {
    case 'earliest':
    case 'latest':
      return to.kind;
    case 'time':
      return new Date(to.timestampMs).toISOString();
    case 'offset':
      return `offset ${to.offset}`;
  }
}
