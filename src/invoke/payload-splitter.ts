/**
 * Keeps every invoke within the function's payload limit: packs the messages of a batch, in order, into
 * sub-batches whose serialized event fits, and names the messages that cannot fit even alone. A message
 * whose base64 body is too large for an invoke but whose UTF-8 text fits travels as text, in an invoke of
 * its own (see `chooseBodyEncoding`).
 */

import type { ConsumedMessage } from '../consumer/message-listener.js';
import { RocketMQError } from '../errors.js';
import {
  chooseBodyEncoding,
  estimateEventOverheadBytes,
  type RecordLayout,
  type UnmeasuredRecord,
  unmeasuredRecord,
} from './event-builder.js';

/**
 * Lambda's limit on a synchronous invoke's request body: 6 MiB. Lambda refuses larger requests with
 * `RequestEntityTooLargeException` ("Request must be smaller than 6291456 bytes"); the 6,291,556 bytes
 * quoted in `Function.ResponseSizeTooLarge` errors are the response limit. Base64 bodies make the largest
 * deliverable binary body about 4.7 MB; a UTF-8 text body travels as text when its base64 does not fit,
 * up to about 6.2 MB (less when it needs many JSON escapes).
 */
export const LAMBDA_MAX_PAYLOAD_BYTES = 6_291_456;

/**
 * A message that cannot be delivered in any invoke.
 */
export interface OversizeMessage {
  /** Its index in the batch. */
  readonly index: number;
  /** The size of an event holding only this message, its body as base64 (what `serializeEvent` writes). */
  readonly eventBytes: number;
  /** The size of that event with the body as UTF-8 text; `undefined` when the body is not valid UTF-8. */
  readonly textEventBytes: number | undefined;
  /** Why it cannot be delivered, for the dead-letter decision and the failure destination. */
  readonly reason: string;
}

/**
 * How a batch is invoked.
 */
export interface PayloadPlan {
  /** Sub-batches as batch indexes, ascending; each serializes to at most the limit. */
  readonly chunks: readonly (readonly number[])[];
  /** Messages whose event alone is over the limit. */
  readonly oversize: readonly OversizeMessage[];
}

/**
 * Packs `indexes` (ascending indexes into `messages`) greedily, in order, into sub-batches whose event
 * (`serializeEvent(consumerGroup, subBatch, { maxPayloadBytes })`) is at most `maxPayloadBytes` long.
 * Sizes are exact (`chooseBodyEncoding`), so no sub-batch is ever refused for its size by a limit of the
 * same value. A message that fits only with its body as UTF-8 text is a sub-batch of its own; one that
 * fits in neither encoding is named in `oversize`, with the reason.
 */
export function planPayloads(
  consumerGroup: string,
  messages: readonly ConsumedMessage[],
  indexes: readonly number[],
  maxPayloadBytes: number,
): PayloadPlan {
  const { chunks, oversize } = planLayouts(consumerGroup, messages, indexes, maxPayloadBytes);
  return { chunks, oversize };
}

/**
 * A {@link PayloadPlan} with the layout of every planned message, so that its sub-batches are
 * serialized (`serializeLayouts`) without measuring the records again.
 */
export interface LayoutPlan extends PayloadPlan {
  /** By batch index: the layout of each message of `chunks` (undefined for the others). */
  readonly layouts: readonly (RecordLayout | undefined)[];
}

/**
 * {@link planPayloads}, keeping each planned message's layout (`layoutRecord` with `maxPayloadBytes`):
 * `serializeLayouts(consumerGroup, chunk.map((i) => layouts[i]))` is byte for byte
 * `serializeEvent(consumerGroup, chunk.map((i) => messages[i]), { maxPayloadBytes })`, for a chunk or
 * any part of one.
 *
 * The usual batch fits one invoke by far (100 records of 1 KiB: ~200 KB of a 6 MB payload): when the
 * sum of the records' upper bounds (`recordBytesBound`, lengths only) fits, every record is base64 in
 * one chunk, and no record is measured; the sizes are counted only if a payload is serialized.
 */
export function planLayouts(
  consumerGroup: string,
  messages: readonly ConsumedMessage[],
  indexes: readonly number[],
  maxPayloadBytes: number,
): LayoutPlan {
  const envelopeBytes = estimateEventOverheadBytes(consumerGroup);
  // The envelope, minus the comma that every record's size counts but one.
  const baseBytes = envelopeBytes - 1;
  // One record per message, whichever way the batch is planned: a measured plan measures these.
  const records = new Array<UnmeasuredRecord | undefined>(messages.length);
  let boundBytes = baseBytes;
  for (const index of indexes) {
    const message = messages[index];
    if (message === undefined)
      throw new RocketMQError(`index ${index} is outside the batch of ${messages.length}`);
    const record = unmeasuredRecord(message);
    records[index] = record;
    // Bounds stop counting once over: the batch is then measured record by record.
    if (boundBytes <= maxPayloadBytes) boundBytes += record.boundBytes;
  }
  if (boundBytes <= maxPayloadBytes) {
    // Every record base64 in one chunk (an event of all of them fits, so does one of each alone:
    // chooseBodyEncoding's choice), unmeasured.
    return { chunks: indexes.length === 0 ? [] : [indexes.slice()], oversize: [], layouts: records };
  }
  const chunks: number[][] = [];
  const oversize: OversizeMessage[] = [];
  const layouts = new Array<RecordLayout | undefined>(messages.length);
  let current: number[] = [];
  let currentBytes = baseBytes;
  const flush = (): void => {
    if (current.length > 0) chunks.push(current);
    current = [];
    currentBytes = baseBytes;
  };
  for (const index of indexes) {
    const layout = (records[index] as UnmeasuredRecord).measure(envelopeBytes, maxPayloadBytes);
    if (!layout.fits) {
      oversize.push(
        oversizeMessage(index, messages[index] as ConsumedMessage, maxPayloadBytes, envelopeBytes),
      );
      continue;
    }
    layouts[index] = layout;
    if (layout.encoding === 'utf8') {
      // A record that fits only as text nearly fills an invoke anyway: it gets one of its own.
      flush();
      chunks.push([index]);
      continue;
    }
    if (currentBytes + layout.recordBytes > maxPayloadBytes) flush();
    current.push(index);
    currentBytes += layout.recordBytes;
  }
  flush();
  return { chunks, oversize, layouts };
}

function oversizeMessage(
  index: number,
  message: ConsumedMessage,
  maxPayloadBytes: number,
  envelopeBytes: number,
): OversizeMessage {
  const baseBytes = envelopeBytes - 1;
  const choice = chooseBodyEncoding(message, maxPayloadBytes, envelopeBytes);
  const utf8RecordBytes = choice.fits ? undefined : choice.utf8RecordBytes;
  const textEventBytes = utf8RecordBytes === undefined ? undefined : baseBytes + utf8RecordBytes;
  const eventBytes = baseBytes + choice.recordBytes;
  return {
    index,
    eventBytes,
    textEventBytes,
    reason: oversizeReason(message.message.body.length, eventBytes, textEventBytes, maxPayloadBytes),
  };
}

function oversizeReason(
  bodyBytes: number,
  eventBytes: number,
  textEventBytes: number | undefined,
  maxPayloadBytes: number,
): string {
  if (textEventBytes === undefined) {
    return (
      `record too large: its body is ${bodyBytes} bytes of binary data (not valid UTF-8), which travel ` +
      `as base64 in an event of ${eventBytes} bytes, over the ${maxPayloadBytes}-byte payload limit`
    );
  }
  return (
    `record too large: its body is ${bodyBytes} bytes of UTF-8 text, in an event of ${textEventBytes} ` +
    `bytes as text (${eventBytes} as base64), over the ${maxPayloadBytes}-byte payload limit`
  );
}
