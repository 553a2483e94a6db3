/**
 * Decoder of stored messages, the records a PULL body concatenates (Java `MessageDecoder.decode`).
 *
 * Record grammar (big-endian; host sizes depend on SYSFLAG bits 4 and 5):
 * ```
 * record = TOTALSIZE:int32 MAGIC:int32 BODYCRC:int32 QUEUEID:int32 FLAG:int32 QUEUEOFFSET:int64
 *          PHYSICALOFFSET:int64 SYSFLAG:int32 BORNTIMESTAMP:int64 BORNHOST:(ip:4|16 port:int32)
 *          STORETIMESTAMP:int64 STOREHOST:(ip:4|16 port:int32) RECONSUMETIMES:int32
 *          PREPAREDTRANSACTIONOFFSET:int64 BODYLEN:int32 BODY
 *          TOPICLEN:(int8 for magic v1 0xDAA320A7 | int16 for v2 0xDAA320AB) TOPIC:utf8
 *          PROPLEN:int16 PROPERTIES:utf8
 * ```
 * An inner-batch record (SYSFLAG INNER_BATCH and NEED_UNWRAP) holds in BODY a batch encoding
 * (message-encoder.ts) that expands into messages at queue offsets base, base + 1, ...
 */

import { errorMessage } from '../util/error-message.js';
import { CompressionType, DEFAULT_MAX_DECOMPRESSED_BYTES, decompress } from './compression.js';
import { DecodedMessage, offsetMessageId } from './decoded-message.js';
import { DecompressionLimitError } from './decompression-limit-error.js';
import { ProtocolError } from './errors.js';
import { decodeUtf8, formatHostField, LastDecoded } from './last-decoded.js';
import type { MessageExt } from './message.js';
import { computeBodyCrc } from './message-encoder.js';
import {
  clearCompressed,
  compressionTypeBits,
  hasSysFlag,
  isInnerBatch,
  MessageSysFlag,
} from './message-sys-flag.js';

/** Magic code of a v1 record (1-byte topic length). */
export const MESSAGE_MAGIC_CODE_V1 = 0xdaa320a7 | 0;
/** Magic code of a v2 record (2-byte topic length). */
export const MESSAGE_MAGIC_CODE_V2 = 0xdaa320ab | 0;
/** Magic code of the blank record that ends a commit-log file; never a message. */
export const BLANK_MAGIC_CODE = 0xcbd43194 | 0;

/** Smallest possible record: v1, IPv4 hosts, empty body, topic and properties. */
const MIN_RECORD_BYTES = 91;
/** Offset of SYSFLAG in a record; all fields before it have fixed positions. */
const SYSFLAG_POSITION = 36;
/** Bytes of a batch entry with empty body and properties. */
const MIN_BATCH_ENTRY_BYTES = 22;

/**
 * A record that could not be decoded. `queueOffset` and `physicalOffset` are set when the record's
 * fixed header was readable (always for a body that failed to decompress), so the consumer can route
 * exactly that message to its failure path.
 */
export class MessageDecodeError extends ProtocolError {
  /** Where the bad record starts in the decoded buffer. */
  readonly byteOffset: number;
  /** What is wrong with it, without the place. */
  readonly reason: string;
  readonly queueOffset: number | undefined;
  readonly physicalOffset: number | undefined;

  constructor(
    reason: string,
    where: { byteOffset: number; queueOffset?: number | undefined; physicalOffset?: number | undefined },
    options: { cause?: unknown } = {},
  ) {
    const ids =
      where.queueOffset === undefined
        ? ''
        : ` (queueOffset ${where.queueOffset}, physicalOffset ${where.physicalOffset})`;
    super(`Bad stored message at byte ${where.byteOffset}${ids}: ${reason}`, options);
    this.reason = reason;
    this.byteOffset = where.byteOffset;
    this.queueOffset = where.queueOffset;
    this.physicalOffset = where.physicalOffset;
  }

  /**
   * The same error with its queue offset moved by `delta`: a static topic's stored offsets are the
   * logical queue's minus the answer's offsetDelta, as its messages' are (pull-result.ts).
   */
  withOffsetDelta(delta: number): MessageDecodeError {
    if (this.queueOffset === undefined || delta === 0) return this;
    return new MessageDecodeError(
      this.reason,
      {
        byteOffset: this.byteOffset,
        queueOffset: this.queueOffset + delta,
        physicalOffset: this.physicalOffset,
      },
      this.cause === undefined ? {} : { cause: this.cause },
    );
  }
}

/**
 * Default cap on what all the compressed bodies of one PULL or POP body may inflate to together (32 MiB):
 * a 16 MiB frame of stored records stays within tens of MiB once decoded, whatever its ratio.
 */
export const DEFAULT_MAX_INFLATED_BYTES = 32 * 1024 * 1024;

/** Options of {@link decodeMessages} and {@link decodeMessage}. */
export interface DecodeOptions {
  /**
   * Cap on one decompressed body: a body that would inflate past it is not inflated and its message
   * is reported in {@link DecodeResult.tooLarge}. @default 6 MiB (DEFAULT_MAX_DECOMPRESSED_BYTES)
   */
  maxBodyBytes?: number;
  /**
   * Cap on the decompressed bytes of all the records of one {@link decodeMessages} call; once reached,
   * decoding stops before the record that would pass it ({@link DecodeResult.deferred}). Raised to
   * `maxBodyBytes` when below it, so the first compressed record always fits.
   * @default 32 MiB (DEFAULT_MAX_INFLATED_BYTES)
   */
  maxInflatedBytes?: number;
  /** Check BODYCRC against the stored body (Java's client does not). @default false */
  checkBodyCrc?: boolean;
}

/**
 * A message whose compressed body would inflate past `maxBodyBytes`: every field but the body was decoded
 * (ids, offsets, properties), the body is empty and `sysFlag` still has COMPRESSED set. Such a message can
 * never be delivered whole; a consumer hands it to the DLQ as too large.
 */
export interface TooLargeMessage {
  readonly message: MessageExt;
  /** Its place in the body: how many of the call's `messages` precede it. */
  readonly index: number;
  /** Why, naming the limit: `body inflates past 6291456 bytes (65238 bytes of zlib as stored)`. */
  readonly reason: string;
  /** The body as stored, still compressed (a view of the decoded buffer): what a resend carries as is. */
  readonly storedBody: Buffer;
}

/** Where {@link decodeMessages} stopped because the body's inflation budget ran out. */
export interface DeferredRecords {
  /** The first record not read: its start in the buffer and its queue offset. */
  readonly byteOffset: number;
  readonly queueOffset: number;
}

/** The outcome of {@link decodeMessages}. */
export interface DecodeResult {
  /** Messages of the records before the first bad one (inner batches expanded). */
  messages: MessageExt[];
  /** Set when a record could not be decoded; the records after it were not read. */
  error?: MessageDecodeError;
  /** Messages too large to inflate, in record order; they are not in `messages`. */
  tooLarge?: TooLargeMessage[];
  /**
   * Set when the records from here on would pass `maxInflatedBytes` (a body too large to inflate counts
   * `maxBodyBytes`, the work it cost): they were not read (a later call, the next pull, reads them).
   * Never set on the first compressed record of a call.
   */
  deferred?: DeferredRecords;
}

/** What one {@link decodeMessages} call has inflated so far, and what it found too large. */
interface InflationBudget {
  readonly maxBodyBytes: number;
  readonly maxInflatedBytes: number;
  inflatedBytes: number;
  tooLarge: TooLargeMessage[] | undefined;
}

/** Thrown inside the decoder when the budget of the call ran out at a record; never leaves it. */
class BudgetExhausted {
  constructor(readonly deferred: DeferredRecords) {}
}

/**
 * Decodes a PULL body. Never throws for bad bytes: it stops at the first bad record and returns the
 * messages before it with a {@link MessageDecodeError} (Java's client silently drops the rest).
 * Uncompressed bodies are views of `buffer`, not copies.
 */
export function decodeMessages(buffer: Buffer, options: DecodeOptions = {}): DecodeResult {
  const messages: MessageExt[] = [];
  const view = viewOf(buffer);
  const budget = budgetOf(options);
  const result: DecodeResult = { messages };
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset = decodeRecord(buffer, view, offset, options, messages, budget);
    } catch (err) {
      if (err instanceof BudgetExhausted) {
        result.deferred = err.deferred;
        break;
      }
      result.error =
        err instanceof MessageDecodeError
          ? err
          : new MessageDecodeError(
              `unexpected decoder failure: ${String(err)}`,
              { byteOffset: offset },
              { cause: err },
            );
      break;
    }
  }
  if (budget.tooLarge !== undefined) result.tooLarge = budget.tooLarge;
  return result;
}

function budgetOf(options: DecodeOptions): InflationBudget {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  return {
    maxBodyBytes,
    maxInflatedBytes: Math.max(maxBodyBytes, options.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES),
    inflatedBytes: 0,
    tooLarge: undefined,
  };
}

/**
 * Decodes the record at `offset`, appends its message(s) to `into` (several for an inner batch) and
 * returns the offset of the next record. When it throws, `into` may hold the inner-batch messages
 * decoded before the bad entry.
 *
 * @throws MessageDecodeError for a malformed record, an undecompressable body, or one that would
 *   inflate past `maxBodyBytes` (for a whole body, {@link decodeMessages} reports those apart instead).
 */
export function decodeMessage(
  buffer: Buffer,
  offset: number,
  options: DecodeOptions = {},
  into: MessageExt[] = [],
): number {
  const budget = budgetOf(options);
  const next = decodeRecord(buffer, viewOf(buffer), offset, options, into, budget);
  const [tooLarge] = budget.tooLarge ?? [];
  if (tooLarge !== undefined) {
    const { queueOffset, physicalOffset } = tooLarge.message;
    throw new MessageDecodeError(tooLarge.reason, { byteOffset: offset, queueOffset, physicalOffset });
  }
  return next;
}

/**
 * A DataView of `buffer`'s bytes, made once per body: its reads of the fixed fields cost a fraction of
 * Buffer#readInt32BE's (which checks its argument on every call; a record's bounds are checked once).
 */
function viewOf(buffer: Buffer): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * {@link decodeMessage} with `view` a DataView of `buffer` (one per PULL body, not one per record) and the
 * call's inflation budget: a body too large to inflate goes to `budget.tooLarge`; a body that would pass
 * what is left of the budget throws {@link BudgetExhausted}.
 */
function decodeRecord(
  buffer: Buffer,
  view: DataView,
  offset: number,
  options: DecodeOptions,
  into: MessageExt[],
  budget: InflationBudget,
): number {
  // No per-record closures (this runs once per pulled message): errors come from badRecord().
  const start = offset;
  const remaining = buffer.length - start;
  if (remaining < 4) throw badRecord(`${remaining} trailing bytes, too few for a record`, start);
  const storeSize = view.getInt32(start);
  if (storeSize < MIN_RECORD_BYTES)
    throw badRecord(`TOTALSIZE ${storeSize} is below the minimum ${MIN_RECORD_BYTES}`, start);
  if (storeSize > remaining)
    throw badRecord(`TOTALSIZE ${storeSize} exceeds the ${remaining} bytes left`, start);
  const end = start + storeSize;
  const magic = view.getInt32(start + 4);
  if (magic !== MESSAGE_MAGIC_CODE_V1 && magic !== MESSAGE_MAGIC_CODE_V2) {
    const what = magic === BLANK_MAGIC_CODE ? 'the commit-log blank magic' : 'an unknown magic code';
    throw badRecord(`${what} 0x${(magic >>> 0).toString(16).padStart(8, '0')}`, start);
  }
  const queueOffset = readLong(view, start + 20, 'QUEUEOFFSET', start);
  const physicalOffset = readLong(view, start + 28, 'PHYSICALOFFSET', start);

  let sysFlag = view.getInt32(start + SYSFLAG_POSITION);
  const bornHostBytes = hasSysFlag(sysFlag, MessageSysFlag.BORNHOST_V6) ? 20 : 8;
  const storeHostBytes = hasSysFlag(sysFlag, MessageSysFlag.STOREHOST_V6) ? 20 : 8;
  const bornHostPosition = start + 48;
  const storeTimestampPosition = bornHostPosition + bornHostBytes;
  const storeHostPosition = storeTimestampPosition + 8;
  const reconsumePosition = storeHostPosition + storeHostBytes;
  const bodyLengthPosition = reconsumePosition + 12;
  let position = bodyLengthPosition + 4;
  if (position > end)
    throw badRecord(`IPv6 hosts need more than TOTALSIZE ${storeSize}`, start, queueOffset, physicalOffset);

  const bodyLength = view.getInt32(bodyLengthPosition);
  if (bodyLength < 0 || bodyLength > end - position)
    throw badRecord(`BODY length ${bodyLength} does not fit the record`, start, queueOffset, physicalOffset);
  const bodyStart = position;
  position += bodyLength;

  const v2 = magic === MESSAGE_MAGIC_CODE_V2;
  if (position + (v2 ? 2 : 1) > end)
    throw badRecord('record ends before the topic length', start, queueOffset, physicalOffset);
  const topicLength = v2 ? view.getInt16(position) : view.getInt8(position);
  position += v2 ? 2 : 1;
  if (topicLength < 0 || topicLength > end - position)
    throw badRecord(
      `topic length ${topicLength} does not fit the record`,
      start,
      queueOffset,
      physicalOffset,
    );
  const topic = LAST_TOPIC.get(buffer, position, position + topicLength, decodeUtf8);
  position += topicLength;

  if (position + 2 > end)
    throw badRecord('record ends before the properties length', start, queueOffset, physicalOffset);
  const propertiesLength = view.getInt16(position);
  position += 2;
  if (propertiesLength < 0 || propertiesLength !== end - position) {
    throw badRecord(
      `properties length ${propertiesLength} does not end the record (${end - position} bytes left)`,
      start,
      queueOffset,
      physicalOffset,
    );
  }
  const propertiesStart = position;

  const bodyCrc = view.getInt32(start + 8);
  if (
    options.checkBodyCrc === true &&
    bodyLength > 0 &&
    computeBodyCrc(buffer.subarray(bodyStart, bodyStart + bodyLength)) !== bodyCrc
  ) {
    throw badRecord(`BODYCRC ${bodyCrc} does not match the body`, start, queueOffset, physicalOffset);
  }
  let decompressed: Buffer | undefined;
  let tooLargeReason: string | undefined;
  if (bodyLength > 0 && hasSysFlag(sysFlag, MessageSysFlag.COMPRESSED)) {
    // The smaller of the two caps binds: past the body's own, the message is too large; past what is
    // left of the call's, it waits for the next call (which starts with at least a body's worth).
    const left = budget.maxInflatedBytes - budget.inflatedBytes;
    const bodyCapBinds = budget.maxBodyBytes <= left;
    try {
      decompressed = decompress(
        compressionTypeBits(sysFlag),
        buffer.subarray(bodyStart, bodyStart + bodyLength),
        bodyCapBinds ? budget.maxBodyBytes : left,
      );
      budget.inflatedBytes += decompressed.length;
      sysFlag = clearCompressed(sysFlag);
    } catch (err) {
      if (!(err instanceof DecompressionLimitError)) {
        const reason = `body does not decompress: ${errorMessage(err)}`;
        throw badRecord(reason, start, queueOffset, physicalOffset, err);
      }
      if (!bodyCapBinds) throw new BudgetExhausted({ byteOffset: start, queueOffset });
      // What was inflated before the limit stopped it was work all the same: counted, a frame of bombs
      // costs one budget's worth of inflating per call (then the rest waits), not the whole frame's.
      budget.inflatedBytes += budget.maxBodyBytes;
      if (isInnerBatch(sysFlag)) {
        // How many messages the batch holds is inside the body: it can only go by its record.
        throw badRecord(`inner batch ${err.message}`, start, queueOffset, physicalOffset, err);
      }
      tooLargeReason = `body inflates past ${budget.maxBodyBytes} bytes (${bodyLength} bytes of ${compressionName(sysFlag)} as stored)`;
    }
  }

  // A decompressed body is a copy: such a message reads what it needs of the record now and keeps no
  // reference to the pull buffer. A stored body is viewed in the record when first read.
  const compressed = decompressed !== undefined || tooLargeReason !== undefined;
  const outer = compressed
    ? new DecodedMessage(
        decompressed ?? EMPTY_BODY,
        undefined,
        0,
        0,
        0,
        buffer.toString('utf8', propertiesStart, end),
      )
    : new DecodedMessage(bodyStart, buffer, start, propertiesStart, end, undefined, bodyLength);
  outer.topic = topic;
  outer.queueId = view.getInt32(start + 12);
  outer.queueOffset = queueOffset;
  outer.physicalOffset = physicalOffset;
  outer.sysFlag = sysFlag;
  outer.flag = view.getInt32(start + 16);
  outer.bornTimestamp = readLong(view, start + 40, 'BORNTIMESTAMP', start, queueOffset, physicalOffset);
  outer.storeTimestamp = readLong(
    view,
    storeTimestampPosition,
    'STORETIMESTAMP',
    start,
    queueOffset,
    physicalOffset,
  );
  outer.reconsumeTimes = view.getInt32(reconsumePosition);
  outer.preparedTransactionOffset = readLong(
    view,
    reconsumePosition + 4,
    'PREPAREDTRANSACTIONOFFSET',
    start,
    queueOffset,
    physicalOffset,
  );
  outer.bodyCrc = bodyCrc;
  outer.storeSize = storeSize;
  if (compressed) {
    outer.bornHost = formatHostField(buffer, bornHostPosition, bornHostPosition + bornHostBytes);
    outer.storeHost = formatHostField(buffer, storeHostPosition, storeHostPosition + storeHostBytes);
    outer.offsetMsgId = offsetMessageId(buffer, storeHostPosition, storeHostBytes, start + 28);
  }
  if (tooLargeReason !== undefined) {
    budget.tooLarge ??= [];
    const storedBody = buffer.subarray(bodyStart, bodyStart + bodyLength);
    budget.tooLarge.push({ message: outer, index: into.length, reason: tooLargeReason, storedBody });
  } else if (isInnerBatch(sysFlag)) unwrapInnerBatch(outer, start, into);
  else into.push(outer);
  return end;
}

/** The body of a message too large to inflate. */
const EMPTY_BODY = Buffer.alloc(0);

/** The compression a record's SYSFLAG names, for messages. */
function compressionName(sysFlag: number): string {
  const type = compressionTypeBits(sysFlag);
  return type === CompressionType.LZ4 ? 'LZ4' : type === CompressionType.ZSTD ? 'zstd' : 'zlib';
}

/** The error for the record at `byteOffset`, with its offsets once they were read. */
function badRecord(
  reason: string,
  byteOffset: number,
  queueOffset?: number,
  physicalOffset?: number,
  cause?: unknown,
): MessageDecodeError {
  return new MessageDecodeError(
    reason,
    { byteOffset, queueOffset, physicalOffset },
    cause === undefined ? {} : { cause },
  );
}

/** Expands an inner-batch record into one message per batch entry (Java `MessageDecoder.decodeMessage`). */
function unwrapInnerBatch(outer: DecodedMessage, byteOffset: number, into: MessageExt[]): void {
  const batch = outer.body;
  let position = 0;
  for (let index = 0; position < batch.length; index++) {
    const queueOffset = outer.queueOffset + index;
    const fail = (reason: string) =>
      new MessageDecodeError(`inner batch entry ${index}: ${reason}`, {
        byteOffset,
        queueOffset,
        physicalOffset: outer.physicalOffset,
      });
    const remaining = batch.length - position;
    if (remaining < MIN_BATCH_ENTRY_BYTES) throw fail(`${remaining} trailing bytes, too few for an entry`);
    const entrySize = batch.readInt32BE(position);
    if (entrySize < MIN_BATCH_ENTRY_BYTES || entrySize > remaining) {
      throw fail(`TOTALSIZE ${entrySize} does not fit the ${remaining} bytes left`);
    }
    const end = position + entrySize;
    const bodyLength = batch.readInt32BE(position + 16);
    const bodyStart = position + 20;
    if (bodyLength < 0 || bodyLength > end - bodyStart - 2)
      throw fail(`BODY length ${bodyLength} does not fit`);
    const propertiesLength = batch.readInt16BE(bodyStart + bodyLength);
    const propertiesStart = bodyStart + bodyLength + 2;
    if (propertiesLength < 0 || propertiesLength !== end - propertiesStart) {
      throw fail(`properties length ${propertiesLength} does not end the entry`);
    }
    // The entry's properties text is read now: the outer record's body may be a decompressed copy, and
    // an inner message keeps no reference to it beyond its own body view.
    const message = new DecodedMessage(
      batch.subarray(bodyStart, bodyStart + bodyLength),
      undefined,
      0,
      0,
      0,
      batch.toString('utf8', propertiesStart, end),
    );
    message.topic = outer.topic;
    message.queueId = outer.queueId;
    message.queueOffset = queueOffset;
    message.physicalOffset = outer.physicalOffset;
    message.sysFlag = outer.sysFlag;
    message.flag = batch.readInt32BE(position + 12);
    message.bornTimestamp = outer.bornTimestamp;
    message.bornHost = outer.bornHost;
    message.storeTimestamp = outer.storeTimestamp;
    message.storeHost = outer.storeHost;
    message.bodyCrc = batch.readInt32BE(position + 8);
    message.storeSize = entrySize;
    message.offsetMsgId = outer.offsetMsgId;
    into.push(message);
    position = end;
  }
}

/** 2^32, the weight of an int64's high word. */
const HIGH_WORD = 0x1_0000_0000;

/** Reads an int64 as a safe integer; `queueOffset`/`physicalOffset` name the record in the error. */
function readLong(
  view: DataView,
  position: number,
  field: string,
  byteOffset: number,
  queueOffset?: number,
  physicalOffset?: number,
): number {
  // Two 32-bit words, not getBigInt64 (a BigInt per field): hi * 2^32 is exact; adding lo rounds only
  // beyond 2^53, where the result is not a safe integer either way.
  const number = view.getInt32(position) * HIGH_WORD + view.getUint32(position + 4);
  if (!Number.isSafeInteger(number))
    throw longBeyondSafe(view, position, field, byteOffset, queueOffset, physicalOffset);
  return number;
}

/** The error of an int64 field beyond 2^53 (apart from readLong, which stays small enough to inline). */
function longBeyondSafe(
  view: DataView,
  position: number,
  field: string,
  byteOffset: number,
  queueOffset: number | undefined,
  physicalOffset: number | undefined,
): MessageDecodeError {
  const where = queueOffset === undefined ? { byteOffset } : { byteOffset, queueOffset, physicalOffset };
  return new MessageDecodeError(`${field} ${view.getBigInt64(position)} is beyond 2^53`, where);
}

/** Topics up to this many bytes are remembered (v1 records allow 127). */
const MAX_REMEMBERED_TOPIC_BYTES = 255;
const LAST_TOPIC = new LastDecoded(MAX_REMEMBERED_TOPIC_BYTES);
