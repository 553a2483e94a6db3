/**
 * The batch processor: runs a per-record handler over a batch and builds the partial-batch response
 * (`{ batchItemFailures }`), in concurrent or orderly mode. The middy middleware is a thin layer over
 * {@link runBatch}.
 */
import {
  describeValue,
  normalizeBatchOptions,
  type RocketMQBatchOptions,
  type RocketMQBatchSettings,
} from './batch-options.js';
import { RocketMQParseError } from './errors.js';
import type {
  RocketMQBatchItemFailure,
  RocketMQBatchResponse,
  RocketMQEvent,
  RocketMQHandlerContext,
  RocketMQRecord,
} from './types.js';

/**
 * Handles one record. Resolve (with anything) when it succeeded; throw or reject when it failed, which
 * fails that record only.
 *
 * @example
 * ```ts
 * const handleOrder: RocketMQRecordHandler = async (record, context) => {
 *   const order = recordJson(record, Order);
 *   await saveOrder(order, { requestId: context.awsRequestId });
 * };
 * ```
 */
export type RocketMQRecordHandler<TContext = RocketMQHandlerContext> = (
  record: RocketMQRecord,
  context: TContext,
) => unknown;

/**
 * Options of {@link processRocketMQBatch}: the batch options plus the Lambda context handed to each
 * record handler.
 *
 * @example
 * ```ts
 * export const handler: RocketMQHandler = (event, context) =>
 *   processRocketMQBatch(event, handleOrder, { context, concurrency: 5 });
 * ```
 */
export interface ProcessRocketMQBatchOptions<TContext> extends RocketMQBatchOptions {
  context: TContext;
}

/**
 * Runs `recordHandler` for each record of `event` and returns the partial-batch response that fails
 * exactly the records whose handler threw (as {@link RocketMQBatchOptions} describes for concurrent and
 * orderly mode). Every record succeeded: `{ batchItemFailures: [] }`. Unlike Powertools, a batch whose
 * records all failed is reported the same way, not by throwing: the poller treats both alike.
 * Throws (failing the whole invoke) only for an event without `Records` of string `messageId`s, for bad
 * options (a TypeError) and when `onRecordError` throws. Without middy; see `rocketmqBatchProcessor` for
 * the middleware and {@link createBatchHandler} for a ready handler.
 *
 * @example
 * ```ts
 * import { processRocketMQBatch, recordJson, type RocketMQHandler } from 'rocketmq-lambda-handler';
 *
 * export const handler: RocketMQHandler = (event, context) =>
 *   processRocketMQBatch(event, async (record) => saveOrder(recordJson(record)), { context });
 * ```
 */
export function processRocketMQBatch(
  event: Pick<RocketMQEvent, 'Records'>,
  recordHandler: RocketMQRecordHandler<undefined>,
  options?: RocketMQBatchOptions,
): Promise<RocketMQBatchResponse>;
export function processRocketMQBatch<TContext>(
  event: Pick<RocketMQEvent, 'Records'>,
  recordHandler: RocketMQRecordHandler<TContext>,
  options: ProcessRocketMQBatchOptions<TContext>,
): Promise<RocketMQBatchResponse>;
export async function processRocketMQBatch<TContext>(
  event: Pick<RocketMQEvent, 'Records'>,
  recordHandler: RocketMQRecordHandler<TContext | undefined>,
  options?: RocketMQBatchOptions & { context?: TContext },
): Promise<RocketMQBatchResponse> {
  const settings = normalizeBatchOptions(options, 'processRocketMQBatch', ['context']);
  checkRecordHandler(recordHandler, 'processRocketMQBatch');
  return runBatch(event, recordHandler, options?.context, settings);
}

/**
 * A complete Lambda handler from a per-record handler: {@link processRocketMQBatch} with the invoke's
 * context. Options are checked once, when the handler is created (at cold start).
 *
 * @example
 * ```ts
 * import { createBatchHandler, recordJson } from 'rocketmq-lambda-handler';
 *
 * export const handler = createBatchHandler(async (record) => {
 *   await saveOrder(recordJson(record, Order));
 * }, { concurrency: 10, onRecordError: (error, record) => console.error(record.messageId, error) });
 * ```
 */
export function createBatchHandler(
  recordHandler: RocketMQRecordHandler,
  options?: RocketMQBatchOptions,
): (event: RocketMQEvent, context: RocketMQHandlerContext) => Promise<RocketMQBatchResponse> {
  const settings = normalizeBatchOptions(options, 'createBatchHandler');
  checkRecordHandler(recordHandler, 'createBatchHandler');
  return (event, context) => runBatch(event, recordHandler, context, settings);
}

/**
 * Throws a TypeError unless `recordHandler` is a function.
 */
export function checkRecordHandler(recordHandler: unknown, caller: string): void {
  if (typeof recordHandler !== 'function') {
    throw new TypeError(
      `${caller}: the record handler must be a function, got ${describeValue(recordHandler)}`,
    );
  }
}

/**
 * Runs a batch with normalised settings (the shared core of the processor and the middleware).
 */
export async function runBatch<TContext>(
  event: unknown,
  recordHandler: RocketMQRecordHandler<TContext>,
  context: TContext,
  settings: RocketMQBatchSettings,
): Promise<RocketMQBatchResponse> {
  const records = checkedRecords(event);
  const runRecord = async (record: RocketMQRecord): Promise<boolean> => {
    try {
      await recordHandler(record, context);
      return true;
    } catch (thrown) {
      // A throwing onRecordError propagates: it fails the invoke rather than hiding a failure.
      await settings.onRecordError?.(asError(thrown), record);
      return false;
    }
  };
  const failedFrom = settings.orderly
    ? await runInOrder(records, runRecord)
    : await runConcurrently(records, runRecord, settings.concurrency);
  return { batchItemFailures: failuresOf(records, failedFrom) };
}

/** Runs records one at a time until the first failure; every record from it on has failed. */
async function runInOrder(
  records: readonly RocketMQRecord[],
  runRecord: (record: RocketMQRecord) => Promise<boolean>,
): Promise<(index: number) => boolean> {
  for (let i = 0; i < records.length; i++) {
    if (!(await runRecord(records[i] as RocketMQRecord))) return (index) => index >= i;
  }
  return () => false;
}

/** Runs every record, at most `concurrency` at a time, starting them in batch order. */
async function runConcurrently(
  records: readonly RocketMQRecord[],
  runRecord: (record: RocketMQRecord) => Promise<boolean>,
  concurrency: number,
): Promise<(index: number) => boolean> {
  const failed = new Uint8Array(records.length);
  let next = 0;
  let fatal: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (fatal === undefined && next < records.length) {
      const index = next++;
      try {
        if (!(await runRecord(records[index] as RocketMQRecord))) failed[index] = 1;
      } catch (error) {
        // Only onRecordError can throw here; stop starting records, let the running ones finish.
        fatal ??= { error };
      }
    }
  };
  const workerCount = Math.min(concurrency, records.length);
  await Promise.all(Array.from({ length: workerCount }, worker));
  if (fatal !== undefined) throw fatal.error;
  return (index) => failed[index] === 1;
}

/** The failed records' ids in batch order, each once (several records may share an id). */
function failuresOf(
  records: readonly RocketMQRecord[],
  failed: (index: number) => boolean,
): RocketMQBatchItemFailure[] {
  const ids = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    if (failed(i)) ids.add((records[i] as RocketMQRecord).messageId);
  }
  return Array.from(ids, (itemIdentifier) => ({ itemIdentifier }));
}

/** The event's records, checked just enough to report failures: an array of objects with string ids. */
function checkedRecords(event: unknown): RocketMQRecord[] {
  const records =
    typeof event === 'object' && event !== null ? (event as { Records?: unknown }).Records : undefined;
  if (!Array.isArray(records)) {
    throw new RocketMQParseError('RocketMQ event', [
      { path: 'Records', message: `expected an array, got ${describeValue(records)}` },
    ]);
  }
  const issues = [];
  for (let i = 0; i < records.length; i++) {
    const record: unknown = records[i];
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      issues.push({
        path: `Records[${i}]`,
        message: `expected a record object, got ${describeValue(record)}`,
      });
      continue;
    }
    const { messageId } = record as { messageId?: unknown };
    if (typeof messageId !== 'string') {
      issues.push({
        path: `Records[${i}].messageId`,
        message: `expected a string, got ${describeValue(messageId)}`,
      });
    }
  }
  if (issues.length > 0) throw new RocketMQParseError('RocketMQ event', issues);
  return records as RocketMQRecord[];
}

function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(`record handler threw a non-Error value: ${describeValue(thrown)}`, { cause: thrown });
}
