/**
 * The one definition of every tunable consumer option: its kind, range or allowed values, default (Java
 * `DefaultMQPushConsumer`'s where RocketMQ has one, ours for batching and invokes) and description.
 * Plain data: `normalizeConsumerOptions` checks and fills from it, and the config layer builds the run
 * config's schema (and with it the README reference and the Serverless event's schema) from it, so no
 * range or default is written anywhere else.
 */

import { DEFAULT_MAX_DECOMPRESSED_BYTES } from '../protocol/compression.js';
import { DEFAULT_MAX_INFLATED_BYTES } from '../protocol/message-decoder.js';
import {
  DEFAULT_VIRTUAL_NODES,
  MAX_VIRTUAL_NODES,
} from './rebalance/allocate-message-queue-consistent-hash.js';
import { ALLOCATION_STRATEGY_NAMES } from './rebalance/create-allocation-strategy.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * An integer option: accepted in `minimum..maximum`.
 */
export interface IntegerOptionSpec {
  readonly kind: 'integer';
  readonly minimum: number;
  readonly maximum: number;
  readonly default: number;
  readonly description: string;
}

/**
 * An option taking one of a few words.
 */
export interface EnumOptionSpec {
  readonly kind: 'enum';
  readonly values: readonly [string, ...string[]];
  readonly default: string;
  readonly description: string;
}

/**
 * An on/off option.
 */
export interface BooleanOptionSpec {
  readonly kind: 'boolean';
  readonly default: boolean;
  readonly description: string;
}

/**
 * The definition of one consumer option.
 */
export type ConsumerOptionSpec = IntegerOptionSpec | EnumOptionSpec | BooleanOptionSpec;

/**
 * Every tunable option of a consumer runtime (name, topic, group, filter and the starting timestamp are
 * the mapping's identity, not tunables, and are checked by `normalizeConsumerOptions` itself).
 */
export const CONSUMER_OPTION_SPECS = {
  batchSize: {
    kind: 'integer',
    minimum: 1,
    maximum: 10_000,
    default: 100,
    description: 'Most messages per batch (one invoke).',
  },
  maximumBatchingWindowMs: {
    kind: 'integer',
    minimum: 0,
    maximum: 300_000,
    default: 500,
    description: 'How long a batch may wait to fill (0 = invoke at once).',
  },
  maxBatchBytes: {
    kind: 'integer',
    minimum: 1,
    maximum: 1024 * MiB,
    default: 5 * MiB,
    description: 'Most body bytes per batch (a larger single message goes alone).',
  },
  maxConcurrency: {
    kind: 'integer',
    minimum: 1,
    maximum: 1000,
    default: 10,
    description: 'Most batches in flight at once (orderly: also at most one per queue).',
  },
  orderly: {
    kind: 'boolean',
    default: false,
    description: 'Orderly consumption: broker queue locks, one batch per queue at a time, in queue order.',
  },
  orderlyFailure: {
    kind: 'enum',
    values: ['skip', 'block'],
    default: 'skip',
    description:
      'Orderly, after `maxReconsumeTimes`: `skip` sends the message to `%DLQ%<group>` and goes on; `block` keeps retrying it.',
  },
  maxReconsumeTimes: {
    kind: 'integer',
    minimum: 0,
    maximum: 10_000,
    default: 16,
    description: 'Deliveries after the first before a message goes to `%DLQ%<group>`.',
  },
  retryDelayLevel: {
    kind: 'integer',
    minimum: 0,
    maximum: 18,
    default: 0,
    description:
      'Delay level of a message sent back for retry: 0 lets the broker pick 3 + its reconsume times, 1–18 fix it.',
  },
  messageModel: {
    kind: 'enum',
    values: ['CLUSTERING', 'BROADCASTING'],
    default: 'CLUSTERING',
    description:
      "CLUSTERING shares the queues among the group's consumers; BROADCASTING gives every consumer every message (failures are logged and dropped).",
  },
  consumeMode: {
    kind: 'enum',
    values: ['PUSH', 'POP'],
    default: 'PUSH',
    description:
      "PUSH: the group's pollers share the queues (rebalance) and keep offsets; POP (RocketMQ 5): every poller pops from every queue, the broker keeps the position and hides a popped message from the others until it is acked, so more pollers than queues all get work.",
  },
  allocateStrategy: {
    kind: 'enum',
    values: ALLOCATION_STRATEGY_NAMES,
    default: 'AVG',
    description:
      "How the topic's queues are shared among the group's pollers (Java's `AllocateMessageQueueStrategy`): `AVG` contiguous ranges, `AVG_BY_CIRCLE` round-robin, `CONSISTENT_HASH` a hash ring (fewer moves when pollers come and go).",
  },
  allocateVirtualNodes: {
    kind: 'integer',
    minimum: 1,
    maximum: MAX_VIRTUAL_NODES,
    default: DEFAULT_VIRTUAL_NODES,
    description: 'Points per poller on the ring of `CONSISTENT_HASH`.',
  },
  startingPosition: {
    kind: 'enum',
    values: ['LATEST', 'TRIM_HORIZON', 'AT_TIMESTAMP'],
    default: 'LATEST',
    description: 'Where a queue without a stored offset starts: its end, its beginning, or a time.',
  },
  pullBatchSize: {
    kind: 'integer',
    minimum: 1,
    maximum: 1024,
    default: 32,
    description: 'Messages asked per pull (the broker caps at 32).',
  },
  pullThresholdForQueue: {
    kind: 'integer',
    minimum: 1,
    maximum: 65_535,
    default: 1000,
    description: 'Flow control: pause pulling a queue while it holds more messages than this.',
  },
  pullThresholdSizeForQueue: {
    kind: 'integer',
    minimum: 1,
    maximum: 1024 * MiB,
    default: 100 * MiB,
    description: 'Flow control: pause pulling a queue while it holds more body bytes than this.',
  },
  pullThresholdSizeForTopic: {
    kind: 'integer',
    minimum: 1 * MiB,
    maximum: 64 * 1024 * MiB,
    default: 128 * MiB,
    description:
      "Flow control: the body bytes all of a mapping's queues may hold together; each queue gets its share (Java's `pullThresholdSizeForTopic`, which Java leaves off: ours bounds a poller's memory whatever the queue count), and a pull inflates no more than its queue's share leaves.",
  },
  maxDecompressedBodyBytes: {
    kind: 'integer',
    minimum: 64 * KiB,
    maximum: 256 * MiB,
    default: DEFAULT_MAX_DECOMPRESSED_BYTES,
    description:
      'Most bytes one compressed message body may inflate to. A body that would inflate past it is never held in memory: the message goes to `%DLQ%<group>` as too large, named in the log and the failure destination (a Lambda invoke carries 6 MB at most).',
  },
  maxDecompressedPullBytes: {
    kind: 'integer',
    minimum: 1 * MiB,
    maximum: 1024 * MiB,
    default: DEFAULT_MAX_INFLATED_BYTES,
    description:
      'Most bytes the compressed bodies of one pull (or pop) may inflate to together; the messages past it are read by the next pull (POP: they come back after their invisible time). At least `maxDecompressedBodyBytes`.',
  },
  consumeConcurrentlyMaxSpan: {
    kind: 'integer',
    minimum: 1,
    maximum: 65_535,
    default: 2000,
    description:
      'Flow control (concurrent): pause pulling a queue while its buffered offsets span more than this.',
  },
  consumeTimeoutMs: {
    kind: 'integer',
    minimum: 1000,
    maximum: 24 * 3_600_000,
    default: 15 * 60_000,
    description: 'A message in flight longer than this is sent back for retry (concurrent).',
  },
  persistIntervalMs: {
    kind: 'integer',
    minimum: 100,
    maximum: 600_000,
    default: 5000,
    description: "How often each held queue's offset is written when it changed.",
  },
  heartbeatIntervalMs: {
    kind: 'integer',
    minimum: 100,
    maximum: 110_000,
    default: 30_000,
    description: 'How often the consumer heartbeats to every broker of its topic.',
  },
  rebalanceIntervalMs: {
    kind: 'integer',
    minimum: 100,
    maximum: 3_600_000,
    default: 20_000,
    description: "How often the topic's queues are shared out among the group again.",
  },
  routeRefreshIntervalMs: {
    kind: 'integer',
    minimum: 100,
    maximum: 3_600_000,
    default: 30_000,
    description: "How often the topic's route is read from the name servers.",
  },
  suspendTimeoutMs: {
    kind: 'integer',
    minimum: 1,
    maximum: 600_000,
    default: 15_000,
    description: 'How long the broker holds a pull with nothing to return.',
  },
  pullTimeoutMs: {
    kind: 'integer',
    minimum: 1,
    maximum: 900_000,
    default: 30_000,
    description: 'Pull RPC timeout; must exceed `suspendTimeoutMs`.',
  },
  pullDelayOnErrorMs: {
    kind: 'integer',
    minimum: 1,
    maximum: 600_000,
    default: 3000,
    description: 'Delay before pulling a queue again after an error.',
  },
  localRetryDelayMs: {
    kind: 'integer',
    minimum: 1,
    maximum: 600_000,
    default: 5000,
    description: 'Delay before resubmitting messages whose send-back failed.',
  },
  suspendCurrentQueueTimeMs: {
    kind: 'integer',
    minimum: 10,
    maximum: 30_000,
    default: 1000,
    description: 'Orderly: pause of a queue after a failed batch before it is consumed again.',
  },
  shutdownTimeoutMs: {
    kind: 'integer',
    minimum: 0,
    maximum: 3_600_000,
    default: 30_000,
    description: 'On stop, how long in-flight batches may take before they are abandoned.',
  },
  readinessGraceMs: {
    kind: 'integer',
    minimum: 0,
    maximum: 3_600_000,
    default: 30_000,
    description:
      'How long the consumer may be unable to consume (topic or group missing, subscription refused, no queue assigned) before it reports unhealthy; the state itself is reported at once.',
  },
  handOverTimeoutMs: {
    kind: 'integer',
    minimum: 0,
    maximum: 3_600_000,
    default: 30_000,
    description:
      'A queue given up at rebalance: how long its batches in flight may take to finish (and move the offset) before it is released anyway; the next owner waits this long plus a grace.',
  },
} as const satisfies Record<string, ConsumerOptionSpec>;

/**
 * The specs, by option name.
 */
export type ConsumerOptionSpecs = typeof CONSUMER_OPTION_SPECS;

/**
 * The name of a tunable consumer option.
 */
export type ConsumerOptionName = keyof ConsumerOptionSpecs;

/**
 * The value type of an option's spec: `number`, `boolean`, or the union of its words.
 */
export type OptionValue<S> = S extends { readonly kind: 'integer' }
  ? number
  : S extends { readonly kind: 'boolean' }
    ? boolean
    : S extends { readonly values: readonly (infer V)[] }
      ? V
      : never;

/**
 * Every option's default, read off {@link CONSUMER_OPTION_SPECS}.
 */
export const CONSUMER_DEFAULTS = Object.fromEntries(
  Object.entries(CONSUMER_OPTION_SPECS).map(([name, spec]) => [name, spec.default]),
) as { readonly [K in ConsumerOptionName]: ConsumerOptionSpecs[K]['default'] };

/**
 * What is wrong with `value` as the option of `spec` (as the consumer's error words it), or undefined
 * when it fits.
 */
export function optionProblem(spec: ConsumerOptionSpec, value: unknown): string | undefined {
  switch (spec.kind) {
    case 'integer':
      return typeof value === 'number' &&
        Number.isSafeInteger(value) &&
        value >= spec.minimum &&
        value <= spec.maximum
        ? undefined
        : `must be an integer in ${spec.minimum}..${spec.maximum}, got ${String(value)}`;
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value)
        ? undefined
        : `must be one of ${spec.values.join(', ')}, got ${String(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, got ${String(value)}`;
  }
}
