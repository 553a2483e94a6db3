/**
 * The rules of a run config that span several keys or need more than a type: addresses, the offset
 * store's keys, AT_TIMESTAMP, unique mapping names, one mapping per consumer group, tag and SQL92
 * filter expressions, function references, `onFailure` destinations and the two decompression limits.
 *
 * They run on the raw input next to the schema (not after it), so one pass reports every problem; each
 * rule looks only at values of the right type and leaves wrong types to the schema's own lines.
 *
 * The rules of the keys a mapping shares with the Serverless `rocketmq` event (`mapping-keys.ts`) are
 * exported: the plugin runs them on each event too (src/serverless/schema-problems.ts), so both surfaces
 * refuse the same values in the same words.
 */

import { RocketMQError } from '../errors.js';
import { DEFAULT_TIMEOUT_MARGIN_MS } from '../invoke/lambda-timeouts.js';
import { parseAddress } from '../network/address.js';
import { NetworkError } from '../network/errors.js';
import { parseNameServerAddresses } from '../network/name-server-addresses.js';
import { checkSql92Filter } from '../protocol/sql92-filter.js';
import { buildSubscriptionData } from '../protocol/subscription.js';
import { echoedText, echoedValue, MAX_ECHOED_CHARS } from '../util/echoed-value.js';
import { FAILURE_DESTINATION_ARN } from '../util/failure-destination-arn-pattern.js';
import { asPlainRecord } from '../util/plain-record.js';
import { isS3Arn, s3BucketArnProblem } from '../util/s3-bucket-arn.js';
import { MAPPING_DEFAULTS } from './config-defaults.js';
import type { ConfigProblem, KeyPath } from './config-problem.js';
import { CONSUMER_OPTION_SPECS } from './consumer-option-keys.js';
import { filterCriteriaProblems } from './filter-criteria-problems.js';
import { classifyFunctionRef } from './function-ref.js';
import { MAX_RECORD_AGE_SECONDS, MAX_TIMESTAMP_SECONDS, MIN_RECORD_AGE_SECONDS } from './mapping-keys.js';
import { tlsSourceProblems } from './tls-material-sources.js';

/** An object of raw input: the config, a mapping, a Serverless event. */
export type Raw = Readonly<Record<string, unknown>>;
/** The path of a key of the mapping (or event) being checked. */
export type KeyAt = (key: string) => KeyPath;

/** Keys of `offsets` that only the DynamoDB store reads. */
const DYNAMODB_ONLY_KEYS = ['table', 'region', 'endpoint', 'createTable'] as const;

/**
 * Every cross-key problem of a raw config (after environment variables were applied).
 */
export function crossKeyProblems(raw: unknown): ConfigProblem[] {
  const root = asPlainRecord(raw);
  if (root === undefined) return [];
  return [
    ...nameServerProblems(root.nameServer),
    ...tlsProblems(root.tls, ['tls']),
    ...offsetsProblems(root.offsets),
    ...mappingsProblems(root.mappings),
  ];
}

/**
 * The settings form of `tls` (the run config's, `custom.rocketmq.tls`): one source per piece of material,
 * a client certificate and its key together (tls-material-sources.ts). `path` is where `tls` is.
 */
export function tlsProblems(value: unknown, path: KeyPath): ConfigProblem[] {
  return tlsSourceProblems(value, path);
}

function nameServerProblems(value: unknown): ConfigProblem[] {
  if (typeof value === 'string') {
    const addresses = parseNameServerAddresses(value);
    if (addresses.length === 0)
      return [{ path: ['nameServer'], message: 'must list at least one host:port' }];
    return addresses.flatMap((address) => addressProblems(address, ['nameServer']));
  }
  if (Array.isArray(value)) {
    return value.flatMap((address: unknown, index) =>
      typeof address === 'string' ? addressProblems(address.trim(), ['nameServer', index]) : [],
    );
  }
  return [];
}

function addressProblems(address: string, path: KeyPath): ConfigProblem[] {
  try {
    parseAddress(address);
    return [];
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    return [{ path, message: `${echoedValue(address)} is not host:port` }];
  }
}

function offsetsProblems(value: unknown): ConfigProblem[] {
  const offsets = asPlainRecord(value);
  if (offsets === undefined) return [];
  const store = offsets.store;
  if (store === 'dynamodb') {
    return offsets.table === undefined
      ? [{ path: ['offsets', 'table'], message: 'required when offsets.store is dynamodb' }]
      : [];
  }
  if (store !== 'file' && store !== 'memory') return [];
  return DYNAMODB_ONLY_KEYS.filter((key) => offsets[key] !== undefined).map((key) => ({
    path: ['offsets', key],
    message: `only used when offsets.store is dynamodb (it is ${store})`,
  }));
}

function mappingsProblems(value: unknown): ConfigProblem[] {
  if (!Array.isArray(value)) return [];
  const mappings = value.map(asPlainRecord);
  const problems: ConfigProblem[] = [];
  mappings.forEach((mapping, index) => {
    if (mapping !== undefined) problems.push(...mappingProblems(mapping, index));
  });
  problems.push(...uniqueNameProblems(mappings), ...sharedGroupProblems(mappings));
  return problems;
}

function mappingProblems(mapping: Raw, index: number): ConfigProblem[] {
  const at: KeyAt = (key) => ['mappings', index, key];
  const problems: ConfigProblem[] = [
    ...startingPositionProblems(mapping, at),
    ...allocationProblems(mapping, at),
    ...decompressionProblems(mapping, at),
    ...consumeModeProblems(mapping, at),
    ...orderlyFailureProblems(mapping, at),
    ...filterProblems(mapping, at),
    ...recordAgeProblems(mapping.maxRecordAgeSeconds, at('maxRecordAgeSeconds')),
  ];
  if (typeof mapping.function === 'string' && mapping.function !== '') {
    const ref = classifyFunctionRef(mapping.function);
    // The reason is bounded where it is made (it quotes the reference with echoedValue).
    if (ref.kind === 'invalid') problems.push({ path: at('function'), message: ref.reason });
    if (ref.kind === 'local' && mapping.functionTimeoutMs !== undefined) {
      problems.push({
        path: at('functionTimeoutMs'),
        message: 'only used with a Lambda function (local: handlers run in-process)',
      });
    }
    if (ref.kind === 'lambda') problems.push(...consumeTimeoutProblems(mapping, at));
  }
  if (typeof mapping.onFailure === 'string' && mapping.onFailure.trim() !== '') {
    problems.push(...destinationProblems(mapping.onFailure.trim(), at('onFailure')));
  }
  return problems;
}

/**
 * The maximum record age (the run config's `maxRecordAgeSeconds`, the event's `maxRecordAge`): AWS's gap
 * between -1 (no limit) and its minimum, which a range in the schema cannot say. Values the schema refuses
 * (not an integer, out of -1..max) are its own lines.
 */
export function recordAgeProblems(age: unknown, path: KeyPath): ConfigProblem[] {
  if (typeof age !== 'number' || !Number.isInteger(age) || age <= MAPPING_DEFAULTS.maxRecordAgeSeconds)
    return [];
  if (age >= MIN_RECORD_AGE_SECONDS) return [];
  return [
    {
      path,
      message: `must be ${MAPPING_DEFAULTS.maxRecordAgeSeconds} (no limit) or ${MIN_RECORD_AGE_SECONDS}–${MAX_RECORD_AGE_SECONDS} seconds, got ${age}`,
    },
  ];
}

/** `startingPositionTimestamp`: with AT_TIMESTAMP, and only then; seconds, or a real calendar date. */
export function startingPositionProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const position = mapping.startingPosition;
  const timestamp = mapping.startingPositionTimestamp;
  if (position === 'AT_TIMESTAMP' && timestamp === undefined) {
    problems.push({
      path: at('startingPositionTimestamp'),
      message: 'required when startingPosition is AT_TIMESTAMP',
    });
  }
  if (timestamp !== undefined && position !== 'AT_TIMESTAMP') {
    const actual =
      typeof position === 'string' ? position : `${MAPPING_DEFAULTS.startingPosition}, the default`;
    problems.push({
      path: at('startingPositionTimestamp'),
      message: `only used when startingPosition is AT_TIMESTAMP (it is ${actual})`,
    });
  }
  if (typeof timestamp === 'number' && timestamp > MAX_TIMESTAMP_SECONDS) {
    problems.push({
      path: at('startingPositionTimestamp'),
      message: 'is Unix time in seconds (this looks like milliseconds)',
    });
  }
  if (typeof timestamp === 'string' && !isRealDate(timestamp)) {
    problems.push({
      path: at('startingPositionTimestamp'),
      message: `${echoedValue(timestamp)} is not a valid date`,
    });
  }
  return problems;
}

/** `orderlyFailure` says what an orderly mapping does with a failed batch. */
export function orderlyFailureProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  return mapping.orderlyFailure !== undefined && mapping.orderly !== true
    ? [{ path: at('orderlyFailure'), message: 'only used when orderly is true' }]
    : [];
}

/**
 * Both filters: the broker's (`filter`: a tag expression that names a tag, or an SQL92 expression the
 * broker's grammar accepts) and the poller's (`filters`: patterns that compile, filter-criteria-problems.ts).
 */
export function filterProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  return [...brokerFilterProblems(mapping, at), ...filterCriteriaProblems(mapping.filters, at('filters'))];
}

function brokerFilterProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  if (typeof mapping.filter === 'string') return tagExpressionProblems(mapping.filter, at('filter'));
  const sql = asPlainRecord(mapping.filter)?.sql;
  return typeof sql === 'string' && sql.trim() !== '' ? sqlFilterProblems(sql, [...at('filter'), 'sql']) : [];
}

/** `allocateVirtualNodes` tunes the ring of CONSISTENT_HASH only. */
export function allocationProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (mapping.allocateVirtualNodes !== undefined && mapping.allocateStrategy !== 'CONSISTENT_HASH') {
    problems.push({
      path: at('allocateVirtualNodes'),
      message: 'only used when allocateStrategy is CONSISTENT_HASH',
    });
  }
  return problems;
}

/**
 * One pull's inflated bodies together (`maxDecompressedPullBytes`) must hold the largest one body may
 * inflate to (`maxDecompressedBodyBytes`), or a message at the body limit could never be read: the
 * consumer refuses such options at start (src/consumer/consumer-options.ts), the config at load. The
 * problem goes on the key that was set, the other's value (or default) named. Values outside their range
 * are left to the schema's own line.
 */
function decompressionProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  const body = inRange(mapping.maxDecompressedBodyBytes, CONSUMER_OPTION_SPECS.maxDecompressedBodyBytes);
  const pull = inRange(mapping.maxDecompressedPullBytes, CONSUMER_OPTION_SPECS.maxDecompressedPullBytes);
  if (body === null || pull === null) return [];
  const bodyBytes = body ?? MAPPING_DEFAULTS.maxDecompressedBodyBytes;
  const pullBytes = pull ?? MAPPING_DEFAULTS.maxDecompressedPullBytes;
  if (pullBytes >= bodyBytes) return [];
  if (pull !== undefined) {
    const defaulted = body === undefined ? ', the default' : '';
    return [
      {
        path: at('maxDecompressedPullBytes'),
        message: `must be at least maxDecompressedBodyBytes (${bodyBytes}${defaulted}): one pull must hold a body at its limit`,
      },
    ];
  }
  return [
    {
      path: at('maxDecompressedBodyBytes'),
      message: `must be at most maxDecompressedPullBytes (${pullBytes}, the default): one pull must hold a body at its limit; raise maxDecompressedPullBytes too`,
    },
  ];
}

/** An integer option's value when absent (undefined), in its range (the number), or not (null). */
function inRange(
  value: unknown,
  spec: { readonly minimum: number; readonly maximum: number },
): number | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= spec.minimum &&
    value <= spec.maximum
    ? value
    : null;
}

/**
 * POP has no queue of its own (no locks, no order), no client-side start position (the broker decides a
 * queue's first pop: TRIM_HORIZON or LATEST) and no per-poller copy of the messages; and a bisected batch
 * would re-invoke past the invisible time, which is sized for one invoke. Allocation keys are PUSH's.
 */
export function consumeModeProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (mapping.consumeMode === 'POP') {
    const refused: [key: string, set: boolean, why: string][] = [
      ['orderly', mapping.orderly === true, 'POP gives no order (use consumeMode PUSH for orderly)'],
      [
        'startingPosition',
        mapping.startingPosition === 'AT_TIMESTAMP',
        'POP starts a queue at TRIM_HORIZON or LATEST only (the broker keeps the position)',
      ],
      [
        'messageModel',
        mapping.messageModel === 'BROADCASTING',
        'POP shares each message among the pollers; BROADCASTING needs consumeMode PUSH',
      ],
      [
        'bisectBatchOnError',
        mapping.bisectBatchOnError === true,
        "POP's invisible time covers one invoke per batch; bisecting re-invokes past it (duplicates)",
      ],
    ];
    for (const [key, set, why] of refused) {
      if (set) problems.push({ path: at(key), message: `not with consumeMode POP: ${why}` });
    }
    for (const key of ['allocateStrategy', 'allocateVirtualNodes', 'zoneNearby']) {
      if (mapping[key] !== undefined) {
        problems.push({ path: at(key), message: 'only used with consumeMode PUSH (POP does not rebalance)' });
      }
    }
  }
  return problems;
}

/**
 * A Lambda mapping's `consumeTimeoutMs` must outlast one invoke (`functionTimeoutMs` plus the invoker's
 * margin): otherwise a message whose invoke is still running would be sent back for retry (a duplicate).
 */
function consumeTimeoutProblems(mapping: Raw, at: KeyAt): ConfigProblem[] {
  const consumeTimeoutMs = mapping.consumeTimeoutMs;
  if (typeof consumeTimeoutMs !== 'number') return [];
  const functionTimeoutMs =
    typeof mapping.functionTimeoutMs === 'number'
      ? mapping.functionTimeoutMs
      : MAPPING_DEFAULTS.functionTimeoutMs;
  const longestInvokeMs = functionTimeoutMs + DEFAULT_TIMEOUT_MARGIN_MS;
  if (consumeTimeoutMs > longestInvokeMs) return [];
  return [
    {
      path: at('consumeTimeoutMs'),
      message: `must be longer than one invoke may take (functionTimeoutMs ${functionTimeoutMs} + ${DEFAULT_TIMEOUT_MARGIN_MS} ms margin = ${longestInvokeMs} ms), got ${consumeTimeoutMs}: a message still being processed would be sent back for retry`,
    },
  ];
}

function destinationProblems(arn: string, path: KeyPath): ConfigProblem[] {
  if (FAILURE_DESTINATION_ARN.test(arn)) return [];
  if (isS3Arn(arn)) {
    const problem = s3BucketArnProblem(arn);
    return problem === undefined ? [] : [{ path, message: `${echoedValue(arn)}: ${problem}` }];
  }
  return [
    {
      path,
      message: `${echoedValue(arn)} is not an SQS queue ARN, SNS topic ARN or S3 bucket ARN (arn:aws:sqs:<region>:<account>:<queue>, arn:aws:sns:<region>:<account>:<topic> or arn:aws:s3:::<bucket>[/<key prefix>])`,
    },
  ];
}

function tagExpressionProblems(expression: string, path: KeyPath): ConfigProblem[] {
  try {
    buildSubscriptionData('topic', expression, 'TAG', 0);
    return [];
  } catch (error) {
    if (!(error instanceof RocketMQError)) throw error;
    return [{ path, message: `tag expression ${echoedValue(expression)} names no tag (use "*" for all)` }];
  }
}

/** The broker's SQL92 grammar, checked here so that a typo fails at config time, not as a broker error. */
function sqlFilterProblems(expression: string, path: KeyPath): ConfigProblem[] {
  const checked = checkSql92Filter(expression);
  // The parser's message quotes the expression near the error: cut like any echoed value.
  return checked.ok
    ? []
    : [{ path, message: `invalid SQL92 filter: ${echoedText(checked.message, 3 * MAX_ECHOED_CHARS)}` }];
}

/** The name a mapping goes by: `name`, else its consumer group. */
function effectiveName(mapping: Raw | undefined): string | undefined {
  if (mapping === undefined) return undefined;
  if (typeof mapping.name === 'string') return mapping.name;
  return typeof mapping.consumerGroup === 'string' ? mapping.consumerGroup : undefined;
}

function uniqueNameProblems(mappings: readonly (Raw | undefined)[]): ConfigProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: ConfigProblem[] = [];
  mappings.forEach((mapping, index) => {
    const name = effectiveName(mapping);
    if (name === undefined) return;
    const first = firstIndex.get(name);
    if (first === undefined) {
      firstIndex.set(name, index);
      return;
    }
    const how =
      typeof mapping?.name === 'string'
        ? echoedValue(name)
        : `defaults to its consumerGroup ${echoedValue(name)}, which`;
    problems.push({
      path: ['mappings', index, 'name'],
      message: `${how} is already the name of mappings[${first}]`,
    });
  });
  return problems;
}

/**
 * One mapping per consumer group. RocketMQ keeps one subscription per group (each member's heartbeat
 * replaces the group's topics and filters), and one poller is one member (one client id): two mappings of
 * a group would either flap between subscriptions or be allocated the same queues twice.
 */
function sharedGroupProblems(mappings: readonly (Raw | undefined)[]): ConfigProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: ConfigProblem[] = [];
  mappings.forEach((mapping, index) => {
    const group = mapping?.consumerGroup;
    if (typeof group !== 'string') return;
    const first = firstIndex.get(group);
    if (first === undefined) {
      firstIndex.set(group, index);
      return;
    }
    const other = mappings[first];
    const sameSubscription =
      other?.topic === mapping?.topic &&
      JSON.stringify(other?.filter ?? '*') === JSON.stringify(mapping?.filter ?? '*');
    const message = sameSubscription
      ? `consumer group ${echoedValue(group)} is already used by mappings[${first}]; one poller is one member of a group, so both mappings would get the same queues: give each mapping its own consumerGroup`
      : `consumer group ${echoedValue(group)} is already used by mappings[${first}] with a different subscription (topic or filter); RocketMQ keeps one subscription per group, so they would replace each other: give each mapping its own consumerGroup`;
    problems.push({ path: ['mappings', index, 'consumerGroup'], message });
  });
  return problems;
}

/** True when an ISO 8601 text names a real calendar day and time (Date.parse rolls 02-30 over to March). */
function isRealDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text);
  if (match === null || Number.isNaN(Date.parse(text))) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match
    .slice(1)
    .map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() + 1 === month &&
    date.getUTCDate() === day &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}
