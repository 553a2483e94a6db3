/**
 * The options of the batch processor, normalised in one place against a closed schema: an unknown key (a
 * typo) or a value of the wrong type is an error naming the option, thrown when the handler is created.
 * Hand-written rather than zod, so that a function using only the processor does not bundle zod.
 */
import type { RocketMQRecord } from './types.js';

/**
 * How a batch's records are run.
 *
 * @example
 * ```ts
 * const options: RocketMQBatchOptions = {
 *   concurrency: 10,
 *   onRecordError: (error, record) => console.error({ messageId: record.messageId, error }),
 * };
 * ```
 */
export interface RocketMQBatchOptions {
  /**
   * Orderly mode, for mappings that consume orderly: records run one at a time in batch order, and the
   * first failure stops the batch; it and every record after it are reported failed (the records after it
   * are not run). `concurrency` must then be 1 or left out.
   * @default false
   */
  orderly?: boolean | undefined;
  /**
   * Concurrent mode: how many records run at once (a positive integer, or `Infinity` for all of them).
   * Every record runs, whatever the others do. The default runs them one at a time, in order, which
   * keeps the load a batch puts on downstream systems predictable.
   * @default 1
   */
  concurrency?: number | undefined;
  /**
   * Told about each failed record (the kit has no logger of its own). A value thrown that is not an Error
   * arrives wrapped in one (the value as its `cause`). If this callback throws, the whole invoke fails
   * (after the records already started have finished).
   */
  onRecordError?: ((error: Error, record: RocketMQRecord) => unknown) | undefined;
}

/**
 * {@link RocketMQBatchOptions} with every default applied.
 */
export interface RocketMQBatchSettings {
  readonly orderly: boolean;
  readonly concurrency: number;
  readonly onRecordError: ((error: Error, record: RocketMQRecord) => unknown) | undefined;
}

const BATCH_OPTION_KEYS = ['orderly', 'concurrency', 'onRecordError'] as const;

/**
 * Checks `options` against the closed schema of {@link RocketMQBatchOptions} plus `extraKeys` (which the
 * caller checks itself) and applies the defaults. Throws a TypeError naming every bad option, with a
 * suggestion for a misspelt one.
 */
export function normalizeBatchOptions(
  options: unknown,
  caller: string,
  extraKeys: readonly string[] = [],
): RocketMQBatchSettings {
  if (options === undefined) return { orderly: false, concurrency: 1, onRecordError: undefined };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${caller}: options must be an object, got ${describeValue(options)}`);
  }
  const known: readonly string[] = [...BATCH_OPTION_KEYS, ...extraKeys];
  const problems: string[] = [];
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const suggestion = closest(key, known);
    problems.push(
      `unknown option "${key}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
    );
  }
  const { orderly, concurrency, onRecordError } = options as Record<string, unknown>;
  if (orderly !== undefined && typeof orderly !== 'boolean') {
    problems.push(`"orderly" must be a boolean, got ${describeValue(orderly)}`);
  }
  const concurrencyOk =
    concurrency === undefined ||
    concurrency === Number.POSITIVE_INFINITY ||
    (Number.isSafeInteger(concurrency) && (concurrency as number) >= 1);
  if (!concurrencyOk) {
    problems.push(`"concurrency" must be a positive integer or Infinity, got ${describeValue(concurrency)}`);
  } else if (orderly === true && concurrency !== undefined && concurrency !== 1) {
    problems.push(`"concurrency" must be 1 or left out in orderly mode (records run one at a time)`);
  }
  if (onRecordError !== undefined && typeof onRecordError !== 'function') {
    problems.push(`"onRecordError" must be a function, got ${describeValue(onRecordError)}`);
  }
  if (problems.length > 0) throw new TypeError(`${caller}: ${problems.join('; ')}`);
  return {
    orderly: orderly === true,
    concurrency: (concurrency as number | undefined) ?? 1,
    onRecordError: onRecordError as RocketMQBatchSettings['onRecordError'],
  };
}

/** Largest edit distance still taken for a typo. */
const MAX_TYPO_DISTANCE = 2;
/** The shortest key taken for a shortened option name. */
const MIN_SHORTENED_CHARS = 4;

function closest(key: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_TYPO_DISTANCE + 1;
  for (const candidate of candidates) {
    const distance = typoDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Small for a likely typo: a different case, a few edits, or a shortened name (`handler` for `recordHandler`). */
function typoDistance(key: string, candidate: string): number {
  if (key === candidate) return 0;
  if (key.length >= MIN_SHORTENED_CHARS && candidate.endsWith(key)) return 1;
  return editDistance(key, candidate);
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * A short description of a value for an error message: its type and, for primitives, its value.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
  return `a ${typeof value} (${shown})`;
}
