/**
 * Validation of the plugin's configuration: the zod schemas plus the rules that span keys, as problem
 * lines that name the key path in serverless.yml (`functions.orders.events[0].rocketmq.batchSize: ...`).
 * The wording of type and range problems is the poller config's own (`config-issues.ts`).
 */
import { z } from 'zod';
import { type IssueVocabulary, problemsOfIssues } from '../config/config-issues.js';
import { knownKeysAt, type SchemaNode } from '../config/config-keys.js';
import type { KeyPath } from '../config/config-problem.js';
import { problemLine } from '../config/config-problem.js';
import {
  allocationProblems,
  consumeModeProblems,
  filterProblems,
  type KeyAt,
  orderlyFailureProblems,
  recordAgeProblems,
  startingPositionProblems,
  tlsProblems,
} from '../config/config-rules.js';
import {
  CUSTOM_DEFAULTS,
  FARGATE_SIZES,
  LOG_RETENTION_DAYS,
  type RocketMQCustomOptions,
  rocketmqCustomSchema,
} from './rocketmq-custom-schema.js';
import { type RocketMQEventOptions, rocketmqEventSchema } from './rocketmq-event-schema.js';
import { checkSecretArn } from './secret-arn.js';

/**
 * The result of {@link validateWith}: the parsed value, or problem lines.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * Parses `value` with `schema`; problems are lines under `basePath`, unknown keys with a "did you mean"
 * from the schema's own keys.
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
 * The unknown keys of a service's plugin configuration: every `rocketmq` event of `functions` (the
 * function's key and its `events` list) and `custom.rocketmq`. The plugin's and dev's checks both call it.
 */
export function serviceUnknownKeyProblems(
  functions: Iterable<readonly [key: string, events: readonly unknown[]]>,
  custom: unknown,
): string[] {
  const lines: string[] = [];
  for (const [key, events] of functions) {
    events.forEach((entry, index) => {
      if (typeof entry !== 'object' || entry === null || !('rocketmq' in entry)) return;
      const path = ['functions', key, 'events', index, 'rocketmq'];
      lines.push(...unknownKeyProblems(rocketmqEventSchema, entry.rocketmq, path));
    });
  }
  if (custom !== undefined)
    lines.push(...unknownKeyProblems(rocketmqCustomSchema, custom, ['custom', 'rocketmq']));
  return lines;
}

/**
 * The cross-key problems of one event (it passed the schema), as lines under `basePath`: the run
 * config's rules of the keys the event shares with a mapping (`config-rules.ts`), and the event's own.
 */
export function eventRuleProblems(event: RocketMQEventOptions, basePath: KeyPath): string[] {
  const at: KeyAt = (key) => [...basePath, key];
  return [
    ...startingPositionProblems(event, at),
    ...orderlyFailureProblems(event, at),
    ...recordAgeProblems(event.maxRecordAge, at('maxRecordAge')),
    ...filterProblems(event, at),
    ...allocationProblems(event, at),
    ...consumeModeProblems(event, at),
  ].map(problemLine);
}

/**
 * The cross-key problems of `custom.rocketmq` (it passed the schema), as lines under `basePath`.
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
  problems.push(...tlsProblems(custom.tls, [...basePath, 'tls']).map(problemLine));
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
