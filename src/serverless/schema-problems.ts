/**
 * Validation of the plugin's configuration: the zod schemas plus the rules that span keys, as problem
 * lines that name the key path in serverless.yml (`functions.orders.events[0].rocketmq.batchSize: ...`).
 * The wording of type and range problems is the poller config's own (`config-issues.ts`).
 */
import { z } from 'zod';
import { type IssueVocabulary, problemsOfIssues } from '../config/config-issues.js';
import { knownKeysAt, type SchemaNode } from '../config/config-keys.js';
import { type KeyPath, problemLine } from '../config/config-problem.js';
import { MAPPING_DEFAULTS, MAX_TIMESTAMP_SECONDS } from '../config/config-schema.js';
import { RocketMQError } from '../errors.js';
import { buildSubscriptionData } from '../protocol/subscription.js';
import {
  CUSTOM_DEFAULTS,
  FARGATE_SIZES,
  LOG_RETENTION_DAYS,
  type RocketMQCustomOptions,
} from './rocketmq-custom-schema.js';
import { MAX_RECORD_AGE_LIMITS, type RocketMQEventOptions } from './rocketmq-event-schema.js';
import { checkSecretArn } from './secret-arn.js';

/**
 * The result of {@link validateWith}: the parsed value, or problem lines.
 *
 * @example
 * ```ts
 * const checked: Checked<number> = { ok: false, problems: ['batchSize: must be ≤ 10000, got 20000'] };
 * ```
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * Parses `value` with `schema`; problems are lines under `basePath`, unknown keys with a "did you mean"
 * from the schema's own keys.
 *
 * @example
 * ```ts
 * validateWith(rocketmqEventSchema, { topic: 'T', consumerGroup: 'g', batchsize: 5 }, ['functions', 'f', 'events', 0, 'rocketmq']);
 * // => { ok: false, problems: ['functions.f.events[0].rocketmq.batchsize: unknown key (did you mean batchSize?)'] }
 * ```
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  basePath: KeyPath,
): Checked<z.output<S>> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const problems = problemsOfIssues(result.error.issues, [], vocabularyOf(schema)).map((problem) =>
    problemLine({ path: [...basePath, ...problem.path], message: problem.message }),
  );
  return { ok: false, problems: [...new Set(problems)] };
}

/**
 * Only the unknown keys of `value` under `schema`, each with its "did you mean" (empty when there are
 * none, whatever else is wrong): what the plugin reports before the framework's own schema check, whose
 * message names the key without a suggestion.
 *
 * @example
 * ```ts
 * unknownKeyProblems(rocketmqEventSchema, { topic: 'T', consumerGroup: 'g', batchsize: 5 }, ['e']);
 * // => ['e.batchsize: unknown key (did you mean batchSize?)']
 * ```
 */
export function unknownKeyProblems<S extends z.ZodType>(
  schema: S,
  value: unknown,
  basePath: KeyPath,
): string[] {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  const lines = problemsOfIssues(result.error.issues, [], vocabularyOf(schema))
    .filter((problem) => problem.message.startsWith(UNKNOWN_KEY))
    .map((problem) => problemLine({ path: [...basePath, ...problem.path], message: problem.message }));
  return [...new Set(lines)];
}

/**
 * The cross-key problems of one event (it passed the schema), as lines under `basePath`.
 *
 * @example
 * ```ts
 * eventRuleProblems({ topic: 'T', consumerGroup: 'g', startingPosition: 'AT_TIMESTAMP' }, ['e']);
 * // => ['e.startingPositionTimestamp: required when startingPosition is AT_TIMESTAMP']
 * ```
 */
export function eventRuleProblems(event: RocketMQEventOptions, basePath: KeyPath): string[] {
  const at = (key: string, message: string) => problemLine({ path: [...basePath, key], message });
  const problems: string[] = [];
  const position = event.startingPosition;
  const timestamp = event.startingPositionTimestamp;
  if (position === 'AT_TIMESTAMP' && timestamp === undefined) {
    problems.push(at('startingPositionTimestamp', 'required when startingPosition is AT_TIMESTAMP'));
  }
  if (timestamp !== undefined && position !== 'AT_TIMESTAMP') {
    problems.push(
      at(
        'startingPositionTimestamp',
        `only used when startingPosition is AT_TIMESTAMP (it is ${position ?? `${MAPPING_DEFAULTS.startingPosition}, the default`})`,
      ),
    );
  }
  if (typeof timestamp === 'string' && Number.isNaN(Date.parse(timestamp))) {
    problems.push(at('startingPositionTimestamp', `${JSON.stringify(timestamp)} is not a valid date`));
  }
  if (typeof timestamp === 'number' && timestamp > MAX_TIMESTAMP_SECONDS) {
    problems.push(at('startingPositionTimestamp', 'is Unix time in seconds (this looks like milliseconds)'));
  }
  if (event.orderlyFailure !== undefined && event.orderly !== true) {
    problems.push(at('orderlyFailure', 'only used when orderly is true'));
  }
  const age = event.maxRecordAge;
  if (age !== undefined && age !== MAX_RECORD_AGE_LIMITS.noLimit && age < MAX_RECORD_AGE_LIMITS.min) {
    problems.push(
      at(
        'maxRecordAge',
        `must be -1 (no limit) or ${MAX_RECORD_AGE_LIMITS.min}–${MAX_RECORD_AGE_LIMITS.max} seconds, got ${age}`,
      ),
    );
  }
  if (typeof event.filter === 'string') {
    try {
      buildSubscriptionData(event.topic, event.filter, 'TAG', 0);
    } catch (error) {
      if (!(error instanceof RocketMQError)) throw error;
      problems.push(
        at('filter', `tag expression ${JSON.stringify(event.filter)} names no tag (use "*" for all)`),
      );
    }
  }
  return problems;
}

/**
 * The cross-key problems of `custom.rocketmq` (it passed the schema), as lines under `basePath`.
 *
 * @example
 * ```ts
 * customRuleProblems({ nameServers: 'ns:9876', vpc: { subnetIds: ['s'] }, cpu: 300 }, ['custom', 'rocketmq']);
 * // => ['custom.rocketmq.cpu: must be one of 256, 512, 1024, 2048, 4096, 8192, 16384, got 300']
 * ```
 */
export function customRuleProblems(custom: RocketMQCustomOptions, basePath: KeyPath): string[] {
  const at = (path: KeyPath, message: string) => problemLine({ path: [...basePath, ...path], message });
  const problems: string[] = [];
  const acl = custom.acl;
  if (acl !== undefined) {
    const fromSecret = acl.secretArn !== undefined;
    const fromParameters = acl.accessKeyParameter !== undefined || acl.secretKeyParameter !== undefined;
    if (fromSecret && fromParameters) {
      problems.push(at(['acl'], 'use either secretArn or accessKeyParameter + secretKeyParameter, not both'));
    } else if (!fromSecret && !fromParameters) {
      problems.push(at(['acl'], 'needs secretArn, or accessKeyParameter + secretKeyParameter'));
    } else if (fromParameters) {
      if (acl.accessKeyParameter === undefined)
        problems.push(at(['acl', 'accessKeyParameter'], 'required with secretKeyParameter'));
      if (acl.secretKeyParameter === undefined)
        problems.push(at(['acl', 'secretKeyParameter'], 'required with accessKeyParameter'));
    }
  }
  if (acl?.secretArn !== undefined) {
    const secret = checkSecretArn(acl.secretArn);
    if (!secret.ok) problems.push(at(['acl', 'secretArn'], secret.problem));
  }
  const tls = custom.tls;
  if (typeof tls === 'object') {
    if (tls.certFile !== undefined && tls.keyFile === undefined)
      problems.push(at(['tls', 'keyFile'], 'required with certFile'));
    if (tls.keyFile !== undefined && tls.certFile === undefined)
      problems.push(at(['tls', 'certFile'], 'required with keyFile'));
  }
  if (custom.cpu !== undefined || custom.memory !== undefined)
    problems.push(...fargateSizeProblems(custom, at));
  const table = custom.offsetsTable;
  if (table?.existing !== undefined) {
    if (table.name !== undefined)
      problems.push(at(['offsetsTable', 'name'], 'only used for a new table (not with existing)'));
    if (table.retain !== undefined)
      problems.push(at(['offsetsTable', 'retain'], 'only used for a new table (not with existing)'));
  }
  const retention = custom.logRetentionInDays;
  if (retention !== undefined && !(LOG_RETENTION_DAYS as readonly number[]).includes(retention)) {
    problems.push(
      at(['logRetentionInDays'], `must be one of ${LOG_RETENTION_DAYS.join(', ')}, got ${retention}`),
    );
  }
  return problems;
}

function fargateSizeProblems(
  custom: RocketMQCustomOptions,
  at: (path: KeyPath, message: string) => string,
): string[] {
  const cpu = custom.cpu ?? CUSTOM_DEFAULTS.cpu;
  const sizes = FARGATE_SIZES[cpu];
  if (sizes === undefined) {
    return [at(['cpu'], `must be one of ${Object.keys(FARGATE_SIZES).join(', ')}, got ${cpu}`)];
  }
  const memory = custom.memory ?? sizes.memoryMiB[0];
  if (memory !== undefined && sizes.memoryMiB.includes(memory)) return [];
  return [at(['memory'], `with cpu ${cpu} must be ${sizes.words} (MiB), got ${String(memory)}`)];
}

/** How the shared wording starts an unknown key's problem (with or without a "did you mean"). */
const UNKNOWN_KEY = 'unknown key';

/** The wording's view of a plugin schema: its own keys for "did you mean", none of the poller config's hints. */
function vocabularyOf(schema: z.ZodType): IssueVocabulary {
  let root: SchemaNode | undefined;
  return {
    knownKeysAt: (path) => {
      root ??= z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as SchemaNode;
      return knownKeysAt(path, root);
    },
    requiredHints: {},
  };
}
