/**
 * Keeps every invoke within the function's payload limit: packs the messages of a batch, in order, into
 * sub-batches whose serialized event fits, and names the messages that cannot fit even alone.
 */
import type { ConsumedMessage } from '../consumer/message-listener.js';
import { estimateEventOverheadBytes, estimateRecordBytes } from './event-builder.js';

/**
 * Lambda's limit on a synchronous invoke's request body: 6 MiB. Lambda refuses larger requests with
 * `RequestEntityTooLargeException` ("Request must be smaller than 6291456 bytes"); the 6,291,556 bytes
 * quoted in `Function.ResponseSizeTooLarge` errors are the response limit. Base64 bodies make the largest
 * deliverable message body about 4.7 MB.
 *
 * @example
 * ```ts
 * const plan = planPayloads('orders-consumer', batch, batch.map((_, i) => i), LAMBDA_MAX_PAYLOAD_BYTES);
 * ```
 */
export const LAMBDA_MAX_PAYLOAD_BYTES = 6_291_456;

/**
 * A message that cannot be delivered in any invoke.
 *
 * @example
 * ```ts
 * const entry: OversizeMessage = { index: 2, eventBytes: 11_184_923 };
 * ```
 */
export interface OversizeMessage {
  /** Its index in the batch. */
  readonly index: number;
  /** The size of an event holding only this message. */
  readonly eventBytes: number;
}

/**
 * How a batch is invoked.
 *
 * @example
 * ```ts
 * const plan: PayloadPlan = { chunks: [[0, 1, 2], [3]], oversize: [{ index: 4, eventBytes: 8_388_800 }] };
 * ```
 */
export interface PayloadPlan {
  /** Sub-batches as batch indexes, ascending; each serializes to at most the limit. */
  readonly chunks: readonly (readonly number[])[];
  /** Messages whose event alone is over the limit. */
  readonly oversize: readonly OversizeMessage[];
}

/**
 * Packs `indexes` (ascending indexes into `messages`) greedily, in order, into sub-batches whose event
 * (`serializeEvent(consumerGroup, subBatch)`) is at most `maxPayloadBytes` long. Sizes are exact
 * (`estimateRecordBytes`), so no sub-batch is ever refused for its size by a limit of the same value.
 *
 * @example
 * ```ts
 * const { chunks, oversize } = planPayloads(group, batch, batch.map((_, i) => i), LAMBDA_MAX_PAYLOAD_BYTES);
 * for (const chunk of chunks) await invoke(chunk.map((i) => batch[i]));
 * ```
 */
export function planPayloads(
  consumerGroup: string,
  messages: readonly ConsumedMessage[],
  indexes: readonly number[],
  maxPayloadBytes: number,
): PayloadPlan {
  // The envelope, minus the comma that estimateRecordBytes counts for every record but one.
  const baseBytes = estimateEventOverheadBytes(consumerGroup) - 1;
  const chunks: number[][] = [];
  const oversize: OversizeMessage[] = [];
  let current: number[] = [];
  let currentBytes = baseBytes;
  for (const index of indexes) {
    const message = messages[index];
    if (message === undefined)
      throw new RangeError(`index ${index} is outside the batch of ${messages.length}`);
    const recordBytes = estimateRecordBytes(message);
    if (baseBytes + recordBytes > maxPayloadBytes) {
      oversize.push({ index, eventBytes: baseBytes + recordBytes });
      continue;
    }
    if (currentBytes + recordBytes > maxPayloadBytes) {
      chunks.push(current);
      current = [];
      currentBytes = baseBytes;
    }
    current.push(index);
    currentBytes += recordBytes;
  }
  if (current.length > 0) chunks.push(current);
  return { chunks, oversize };
}
