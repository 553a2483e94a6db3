/**
 * The options of one mapping's POP consumer, checked and defaulted in this one place. The names shared
 * with the pull consumer (`batchSize`, `maxConcurrency`, `maxReconsumeTimes`, ...) mean the same there;
 * the POP-only ones are `invisibleTimeMs`, `pollTimeMs` and `retryDelaysMs`.
 */
import { POP_MAX_MESSAGES } from '../../protocol/pop-headers.js';
import { type ExpressionType, SUB_ALL } from '../../protocol/subscription.js';
import { ConsumerOptionsError } from '../consumer-errors.js';
import { CONSUMER_OPTION_SPECS } from '../consumer-option-specs.js';

/**
 * How long a failed message waits before its next delivery, by its `reconsumeTimes` (the last entry for
 * any later one): 10 s, 30 s, 1 min ... 2 h, Java's `popDelayLevel`, which is also the pull consumer's
 * send-back ladder (delay level `3 + reconsumeTimes`).
 */
export const POP_RETRY_DELAYS_MS: readonly number[] = [
  10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200,
].map((seconds) => seconds * 1000);

/** Defaults of the POP consumer's tunable options. */
export const POP_CONSUMER_DEFAULTS = {
  /** Messages per batch; more than 32 takes several pops. */
  batchSize: 32,
  /** How long a batch may wait to fill after its first pop, ms. */
  maximumBatchingWindowMs: 500,
  /** Batches in flight at once (popped and not yet settled), over all brokers. */
  maxConcurrency: 10,
  /** Failed deliveries before the DLQ: a message failing at `reconsumeTimes >= maxReconsumeTimes` goes there. */
  maxReconsumeTimes: 16,
  /** How long popped messages stay invisible to the group's other pops; must cover the consume. */
  invisibleTimeMs: 60_000,
  /** How long the broker holds a pop while nothing is there (Java's 15 s). */
  pollTimeMs: 15_000,
  /** The pause after a failed pop. */
  pullDelayOnErrorMs: 3000,
  routeRefreshIntervalMs: 30_000,
  /** Registration with every master of the topic (the group's member list; operators see the pollers). */
  heartbeatIntervalMs: 30_000,
  /** How long stop() waits for batches in flight before aborting them (they are then redelivered). */
  shutdownTimeoutMs: 30_000,
  /** Most bytes one compressed body may inflate to; past it the message goes to the DLQ as too large. */
  maxDecompressedBodyBytes: CONSUMER_OPTION_SPECS.maxDecompressedBodyBytes.default,
  /** Most bytes the compressed bodies of one pop may inflate to together. */
  maxDecompressedPullBytes: CONSUMER_OPTION_SPECS.maxDecompressedPullBytes.default,
  /** How long it may be unable to consume before it reports unhealthy (consume-state.ts). */
  readinessGraceMs: CONSUMER_OPTION_SPECS.readinessGraceMs.default,
} as const;

/**
 * What a caller gives.
 */
export interface PopConsumerOptions {
  /** The mapping's name (logs, status). */
  name: string;
  topic: string;
  consumerGroup: string;
  /** @default { type: 'TAG', expression: '*' } */
  filter?: { type?: ExpressionType | undefined; expression?: string | undefined } | undefined;
  /**
   * Where the group starts a queue it never popped: TRIM_HORIZON the first message, LATEST the last one.
   * Decided once per queue by the broker, at the group's first pop. @default 'LATEST'
   */
  startingPosition?: 'TRIM_HORIZON' | 'LATEST' | undefined;
  batchSize?: number | undefined;
  maximumBatchingWindowMs?: number | undefined;
  maxConcurrency?: number | undefined;
  maxReconsumeTimes?: number | undefined;
  invisibleTimeMs?: number | undefined;
  pollTimeMs?: number | undefined;
  pullDelayOnErrorMs?: number | undefined;
  routeRefreshIntervalMs?: number | undefined;
  heartbeatIntervalMs?: number | undefined;
  shutdownTimeoutMs?: number | undefined;
  maxDecompressedBodyBytes?: number | undefined;
  maxDecompressedPullBytes?: number | undefined;
  readinessGraceMs?: number | undefined;
  /** @default {@link POP_RETRY_DELAYS_MS} */
  retryDelaysMs?: readonly number[] | undefined;
}

/** Every option resolved. */
export interface NormalizedPopConsumerOptions {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly filter: { readonly type: ExpressionType; readonly expression: string };
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
  readonly batchSize: number;
  readonly maximumBatchingWindowMs: number;
  readonly maxConcurrency: number;
  readonly maxReconsumeTimes: number;
  readonly invisibleTimeMs: number;
  readonly pollTimeMs: number;
  readonly pullDelayOnErrorMs: number;
  readonly routeRefreshIntervalMs: number;
  readonly heartbeatIntervalMs: number;
  readonly shutdownTimeoutMs: number;
  readonly maxDecompressedBodyBytes: number;
  readonly maxDecompressedPullBytes: number;
  readonly readinessGraceMs: number;
  readonly retryDelaysMs: readonly number[];
}

/** Ranges of the integer options: [minimum, maximum]. */
const RANGES: Record<keyof typeof POP_CONSUMER_DEFAULTS, readonly [number, number]> = {
  batchSize: [1, 10_000],
  maximumBatchingWindowMs: [0, 300_000],
  maxConcurrency: [1, 1000],
  maxReconsumeTimes: [0, 10_000],
  // The broker's revive needs a second or so; below that a message would come back before it is settled.
  invisibleTimeMs: [1000, 12 * 3_600_000],
  pollTimeMs: [0, 60_000],
  pullDelayOnErrorMs: [1, 600_000],
  routeRefreshIntervalMs: [100, 3_600_000],
  // The broker drops a client it has not heard from for 120 s.
  heartbeatIntervalMs: [100, 110_000],
  shutdownTimeoutMs: [0, 15 * 60_000],
  maxDecompressedBodyBytes: [
    CONSUMER_OPTION_SPECS.maxDecompressedBodyBytes.minimum,
    CONSUMER_OPTION_SPECS.maxDecompressedBodyBytes.maximum,
  ],
  maxDecompressedPullBytes: [
    CONSUMER_OPTION_SPECS.maxDecompressedPullBytes.minimum,
    CONSUMER_OPTION_SPECS.maxDecompressedPullBytes.maximum,
  ],
  readinessGraceMs: [
    CONSUMER_OPTION_SPECS.readinessGraceMs.minimum,
    CONSUMER_OPTION_SPECS.readinessGraceMs.maximum,
  ],
};

/**
 * Fills defaults and checks ranges; throws {@link ConsumerOptionsError} naming the first bad option.
 */
export function normalizePopConsumerOptions(input: PopConsumerOptions): NormalizedPopConsumerOptions {
  const text = (option: string, value: string | undefined) => {
    if (typeof value !== 'string' || value.trim().length === 0) {
      throw new ConsumerOptionsError(option, 'is required and must be a non-empty string');
    }
    return value;
  };
  const filterType = input.filter?.type ?? 'TAG';
  if (filterType !== 'TAG' && filterType !== 'SQL92') {
    throw new ConsumerOptionsError('filter.type', `must be TAG or SQL92, got ${String(filterType)}`);
  }
  const expression = input.filter?.expression ?? SUB_ALL;
  if (expression.trim().length === 0 && filterType === 'SQL92') {
    throw new ConsumerOptionsError('filter.expression', 'must not be empty for SQL92');
  }
  const startingPosition = input.startingPosition ?? 'LATEST';
  if (startingPosition !== 'TRIM_HORIZON' && startingPosition !== 'LATEST') {
    throw new ConsumerOptionsError(
      'startingPosition',
      `must be TRIM_HORIZON or LATEST with POP (the broker keeps the position), got ${String(startingPosition)}`,
    );
  }
  const integers = {} as Record<keyof typeof POP_CONSUMER_DEFAULTS, number>;
  for (const [option, [minimum, maximum]] of Object.entries(RANGES) as [
    keyof typeof POP_CONSUMER_DEFAULTS,
    readonly [number, number],
  ][]) {
    const value = input[option] ?? POP_CONSUMER_DEFAULTS[option];
    if (!Number.isInteger(value) || value < minimum || value > maximum) {
      throw new ConsumerOptionsError(
        option,
        `must be an integer in ${minimum}..${maximum}, got ${String(value)}`,
      );
    }
    integers[option] = value;
  }
  if (integers.maxDecompressedPullBytes < integers.maxDecompressedBodyBytes) {
    throw new ConsumerOptionsError(
      'maxDecompressedPullBytes',
      `must be at least maxDecompressedBodyBytes (${integers.maxDecompressedBodyBytes})`,
    );
  }
  const retryDelaysMs = input.retryDelaysMs ?? POP_RETRY_DELAYS_MS;
  if (retryDelaysMs.length === 0 || retryDelaysMs.some((ms) => !Number.isInteger(ms) || ms < 1000)) {
    throw new ConsumerOptionsError(
      'retryDelaysMs',
      'must list at least one integer delay of 1000 ms or more',
    );
  }
  return {
    ...integers,
    name: text('name', input.name),
    topic: text('topic', input.topic),
    consumerGroup: text('consumerGroup', input.consumerGroup),
    filter: { type: filterType, expression },
    startingPosition,
    retryDelaysMs,
  };
}

/**
 * The invisible time a failed delivery gets: its `reconsumeTimes`' entry of `retryDelaysMs`, the last one
 * past the end.
 */
export function popRetryDelayMs(reconsumeTimes: number, retryDelaysMs: readonly number[]): number {
  const index = Math.min(Math.max(0, reconsumeTimes), retryDelaysMs.length - 1);
  return retryDelaysMs[index] ?? POP_RETRY_DELAYS_MS[0] ?? 10_000;
}

/** Messages per pop for a batch that still needs `remaining`. */
export function popSize(remaining: number): number {
  return Math.min(POP_MAX_MESSAGES, Math.max(1, remaining));
}
