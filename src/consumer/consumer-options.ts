/**
 * The options of one mapping's consumer runtime, normalised in this one place: every tunable option is
 * checked against, and filled from, its one definition in `consumer-option-specs.ts` (range, default,
 * description), and the rest of the consumer layer only sees {@link NormalizedConsumerOptions}.
 */
import { retryTopicOf } from '../protocol/group-topics.js';
import { type ExpressionType, SUB_ALL } from '../protocol/subscription.js';
import { ConsumerOptionsError } from './consumer-errors.js';
import {
  CONSUMER_OPTION_SPECS,
  type ConsumerOptionName,
  type ConsumerOptionSpec,
  type ConsumerOptionSpecs,
  type OptionValue,
  optionProblem,
} from './consumer-option-specs.js';

/** Where to start a queue that has no stored offset. */
export type StartingPosition = OptionValue<ConsumerOptionSpecs['startingPosition']>;
/** CLUSTERING shares queues across a group; BROADCASTING gives every consumer every queue. */
export type MessageModel = OptionValue<ConsumerOptionSpecs['messageModel']>;
/** PUSH: queues shared by rebalance, offsets kept by the client; POP: the broker hands out messages. */
export type ConsumeMode = OptionValue<ConsumerOptionSpecs['consumeMode']>;
/** How a group's queues are shared among its pollers. */
export type AllocateStrategy = OptionValue<ConsumerOptionSpecs['allocateStrategy']>;

/**
 * Zone-aware allocation: queues go to the pollers in their broker's zone first (allocate-zone-nearby.ts).
 * Brokers' zones from `brokerZones` (broker name to zone), else from a `<zone>@<name>` broker name;
 * pollers' zones from their client ids (zone-conventions.ts).
 */
export interface ZoneNearbyOptions {
  readonly brokerZones?: Readonly<Record<string, string>> | undefined;
}

/** Orderly: after `maxReconsumeTimes`, skip the message to the DLQ or keep retrying it. */
export type OrderlyFailure = OptionValue<ConsumerOptionSpecs['orderlyFailure']>;

/** A subscription filter. */
export interface ConsumerFilter {
  /** @default 'TAG' */
  type?: ExpressionType | undefined;
  /** A tag expression (`TagA || TagB`, `*`) or an SQL92 expression. @default '*' */
  expression?: string | undefined;
}

/** The tunable options as a caller gives them: each optional, ranges and defaults in `CONSUMER_OPTION_SPECS`. */
type TunableOptions = { [K in ConsumerOptionName]?: OptionValue<ConsumerOptionSpecs[K]> | undefined };

/** The tunable options resolved. */
type ResolvedTunableOptions = { readonly [K in ConsumerOptionName]: OptionValue<ConsumerOptionSpecs[K]> };

/**
 * What a caller gives: the mapping's identity, and any tunable option of `CONSUMER_OPTION_SPECS` (each
 * described, ranged and defaulted there); see {@link normalizeConsumerOptions}.
 */
export interface ConsumerOptions extends TunableOptions {
  /** The mapping's name (logs, status). */
  name: string;
  topic: string;
  consumerGroup: string;
  /** @default { type: 'TAG', expression: '*' } */
  filter?: ConsumerFilter | undefined;
  /** Milliseconds since the epoch; required with AT_TIMESTAMP. */
  startingPositionTimestamp?: number | undefined;
  /** @default undefined (allocation ignores zones) */
  zoneNearby?: ZoneNearbyOptions | undefined;
}

/** Every option resolved. */
export interface NormalizedConsumerOptions extends ResolvedTunableOptions {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly filter: { readonly type: ExpressionType; readonly expression: string };
  readonly startingPositionTimestamp: number | undefined;
  readonly zoneNearby: ZoneNearbyOptions | undefined;
  /** `%RETRY%<group>`. */
  readonly retryTopic: string;
}

export { dlqTopicOf, retryTopicOf } from '../protocol/group-topics.js';

/**
 * Fills defaults and checks ranges; throws {@link ConsumerOptionsError} naming the first bad option.
 */
export function normalizeConsumerOptions(input: ConsumerOptions): NormalizedConsumerOptions {
  const name = requireText('name', input.name);
  const topic = requireText('topic', input.topic);
  const consumerGroup = requireText('consumerGroup', input.consumerGroup);
  const filterType = input.filter?.type ?? 'TAG';
  if (filterType !== 'TAG' && filterType !== 'SQL92') {
    throw new ConsumerOptionsError('filter.type', `must be TAG or SQL92, got ${String(filterType)}`);
  }
  const expression = input.filter?.expression ?? SUB_ALL;
  if (expression.trim().length === 0 && filterType === 'SQL92') {
    throw new ConsumerOptionsError('filter.expression', 'must not be empty for SQL92');
  }
  const tunables = resolveTunableOptions(input);
  const startingPositionTimestamp = input.startingPositionTimestamp;
  if (
    tunables.startingPosition === 'AT_TIMESTAMP' &&
    (startingPositionTimestamp === undefined ||
      !Number.isSafeInteger(startingPositionTimestamp) ||
      startingPositionTimestamp < 0)
  ) {
    throw new ConsumerOptionsError(
      'startingPositionTimestamp',
      `is required with AT_TIMESTAMP and must be milliseconds since the epoch, got ${String(startingPositionTimestamp)}`,
    );
  }
  if (tunables.maxDecompressedPullBytes < tunables.maxDecompressedBodyBytes) {
    throw new ConsumerOptionsError(
      'maxDecompressedPullBytes',
      `must be at least maxDecompressedBodyBytes (${tunables.maxDecompressedBodyBytes})`,
    );
  }
  if (tunables.pullTimeoutMs <= tunables.suspendTimeoutMs) {
    throw new ConsumerOptionsError(
      'pullTimeoutMs',
      `must exceed suspendTimeoutMs (${tunables.suspendTimeoutMs})`,
    );
  }
  return {
    ...tunables,
    name,
    topic,
    consumerGroup,
    filter: { type: filterType, expression },
    startingPositionTimestamp,
    zoneNearby: input.zoneNearby,
    retryTopic: retryTopicOf(consumerGroup),
  };
}

/**
 * The heartbeat's informational `consumeFromWhere` for a starting position.
 */
export function consumeFromWhere(position: StartingPosition): string {
  switch (position) {
    case 'LATEST':
      return 'CONSUME_FROM_LAST_OFFSET';
    case 'TRIM_HORIZON':
      return 'CONSUME_FROM_FIRST_OFFSET';
    case 'AT_TIMESTAMP':
      return 'CONSUME_FROM_TIMESTAMP';
  }
}

function requireText(option: string, value: string | undefined): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new ConsumerOptionsError(option, 'is required and must be a non-empty string');
  }
  return value;
}

/**
 * Each tunable option as given, else its spec's default (the one place a consumer default is applied),
 * checked against its spec.
 */
function resolveTunableOptions(input: ConsumerOptions): ResolvedTunableOptions {
  const resolved: Partial<Record<ConsumerOptionName, unknown>> = {};
  const specs = Object.entries(CONSUMER_OPTION_SPECS) as [ConsumerOptionName, ConsumerOptionSpec][];
  for (const [option, spec] of specs) {
    const value = input[option] ?? spec.default;
    const problem = optionProblem(spec, value);
    if (problem !== undefined) throw new ConsumerOptionsError(option, problem);
    resolved[option] = value;
  }
  return resolved as ResolvedTunableOptions;
}
