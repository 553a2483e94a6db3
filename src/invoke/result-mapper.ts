/**
 * Maps what a function returned to the outcome of each message of its batch, exactly as
 * docs/writing-a-handler.md ("What to return") tells handler authors, in order:
 * 1. the invoke failed → the whole batch failed;
 * 2. `{ batchItemFailures: [{ itemIdentifier }] }` → the named records failed;
 * 3. `{ status, ackIndex? }` → RocketMQ's semantics (records 0..ackIndex succeeded);
 * 4. anything else → every record succeeded.
 * A response that claims to be 2 (has `batchItemFailures`) or 3 (has `status` or `ackIndex`) but is
 * malformed fails the whole batch, with a reason that says why. Never throws.
 */
import type { ConsumeResult } from '../consumer/message-listener.js';
import { errorMessage } from '../util/error-message.js';
import { isPlainRecord } from '../util/plain-record.js';
import type { InvokeOutcome } from './invoker.js';

/** The longest excerpt of a response value quoted in a reason or notice. */
const MAX_PREVIEW_CHARS = 200;

const SUCCESS: ConsumeResult = Object.freeze({ status: 'SUCCESS' });

/**
 * Something odd about a response that did not change the result (it is worth a log line).
 * - `non-json-payload`: a successful invoke returned bytes that are not JSON; rule 4 makes that a success.
 */
export interface FunctionResultNotice {
  readonly kind: 'non-json-payload';
  readonly payloadBytes: number;
  /** The start of the payload, decoded as UTF-8. */
  readonly preview: string;
  readonly error: string;
}

/**
 * Options of {@link mapFunctionResult}.
 */
export interface MapFunctionResultOptions {
  /** Told about oddities that do not change the result. */
  onNotice?: ((notice: FunctionResultNotice) => void) | undefined;
}

/**
 * The per-message result of one invoke of a batch. `records` are the batch's records in order (only their
 * `messageId` is read); several records may share a `messageId` (a message and its redelivery), and an
 * `itemIdentifier` then fails all of them. The result is normalised: `SUCCESS` when no record failed,
 * `FAILED` when all did (or the batch failed as a whole), else `PARTIAL` with ascending, distinct indexes.
 */
export function mapFunctionResult(
  outcome: InvokeOutcome,
  records: readonly { readonly messageId: string }[],
  options: MapFunctionResultOptions = {},
): ConsumeResult {
  if (!outcome.ok) return failed(`invoke failed (${outcome.kind}): ${outcome.message}`);
  const response = parsePayload(outcome.payload, options);
  if (!isPlainRecord(response)) return SUCCESS;
  if (Object.hasOwn(response, 'batchItemFailures')) {
    return mapBatchItemFailures(response.batchItemFailures, records);
  }
  if (Object.hasOwn(response, 'status') || Object.hasOwn(response, 'ackIndex')) {
    return mapStatus(response, records.length);
  }
  return SUCCESS;
}

function parsePayload(payload: Buffer, options: MapFunctionResultOptions): unknown {
  if (payload.length === 0) return undefined;
  const text = payload.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    options.onNotice?.({
      kind: 'non-json-payload',
      payloadBytes: payload.length,
      preview: text.slice(0, MAX_PREVIEW_CHARS),
      error: errorMessage(error),
    });
    return undefined;
  }
}

function mapBatchItemFailures(
  items: unknown,
  records: readonly { readonly messageId: string }[],
): ConsumeResult {
  if (!Array.isArray(items)) {
    return malformed(`batchItemFailures is ${describe(items)}, not an array`);
  }
  if (items.length === 0) return SUCCESS;
  const indexesById = new Map<string, number[]>();
  for (let i = 0; i < records.length; i++) {
    const id = (records[i] as { readonly messageId: string }).messageId;
    const indexes = indexesById.get(id);
    if (indexes === undefined) indexesById.set(id, [i]);
    else indexes.push(i);
  }
  const failedFlags = new Uint8Array(records.length);
  for (let j = 0; j < items.length; j++) {
    const item: unknown = items[j];
    const identifier = isPlainRecord(item) ? item.itemIdentifier : undefined;
    if (typeof identifier !== 'string') {
      return malformed(
        isPlainRecord(item)
          ? `batchItemFailures[${j}].itemIdentifier is ${describe(identifier)}, not a string`
          : `batchItemFailures[${j}] is ${describe(item)}, not an object with an itemIdentifier`,
      );
    }
    const indexes = indexesById.get(identifier);
    if (indexes === undefined) {
      return failed(
        `batchItemFailures[${j}].itemIdentifier ${preview(identifier)} names no record of the batch`,
      );
    }
    for (const index of indexes) failedFlags[index] = 1;
  }
  const failedIndexes: number[] = [];
  for (let i = 0; i < failedFlags.length; i++) if (failedFlags[i] === 1) failedIndexes.push(i);
  return fromFailedIndexes(failedIndexes, records.length, 'batchItemFailures');
}

function mapStatus(response: Readonly<Record<string, unknown>>, recordCount: number): ConsumeResult {
  const { status, ackIndex } = response;
  if (status !== 'CONSUME_SUCCESS' && status !== 'RECONSUME_LATER') {
    return malformed(
      Object.hasOwn(response, 'status')
        ? `status ${preview(status)} is neither CONSUME_SUCCESS nor RECONSUME_LATER`
        : `ackIndex without a status`,
    );
  }
  const hasAckIndex = Object.hasOwn(response, 'ackIndex');
  if (hasAckIndex && !Number.isInteger(ackIndex)) {
    return malformed(`ackIndex ${preview(ackIndex)} is not an integer`);
  }
  if (hasAckIndex && (ackIndex as number) < -1) {
    return malformed(`ackIndex ${ackIndex as number} is below -1`);
  }
  if (status === 'RECONSUME_LATER') return failed('function returned RECONSUME_LATER');
  if (!hasAckIndex) return SUCCESS;
  const lastSucceeded = ackIndex as number;
  const failedIndexes: number[] = [];
  for (let i = lastSucceeded + 1; i < recordCount; i++) failedIndexes.push(i);
  return fromFailedIndexes(failedIndexes, recordCount, `CONSUME_SUCCESS with ackIndex ${lastSucceeded}`);
}

function fromFailedIndexes(failedIndexes: number[], recordCount: number, source: string): ConsumeResult {
  if (failedIndexes.length === 0) return SUCCESS;
  if (failedIndexes.length === recordCount) {
    return failed(`function reported all ${recordCount} records failed (${source})`);
  }
  return {
    status: 'PARTIAL',
    failedIndexes,
    reason: `function reported ${failedIndexes.length} of ${recordCount} records failed (${source})`,
  };
}

function failed(reason: string): ConsumeResult {
  return { status: 'FAILED', reason };
}

function malformed(why: string): ConsumeResult {
  return failed(`malformed function response: ${why}`);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `${typeof value === 'object' ? 'an object' : `a ${typeof value}`} (${preview(value)})`;
}

function preview(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    // Values parsed from JSON always stringify; anything else is described by its type.
    json = `<${typeof value}: ${error instanceof Error ? error.message : 'unserializable'}>`;
  }
  const text = json ?? String(value);
  return text.length > MAX_PREVIEW_CHARS ? `${text.slice(0, MAX_PREVIEW_CHARS)}…` : text;
}
