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
import { DEFAULT_MAX_DECOMPRESSED_BYTES, decompress } from './compression.js';
import { ProtocolError } from './errors.js';
import type { MessageExt } from './message.js';
import { MessageConst } from './message.js';
import { computeBodyCrc } from './message-encoder.js';
import { formatHostPort, formatIpAddress } from './message-id.js';
import { decodeProperties } from './message-properties.js';
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
 *
 * @example
 * ```ts
 * const { messages, error } = decodeMessages(body);
 * if (error instanceof MessageDecodeError && error.queueOffset !== undefined) markFailed(error.queueOffset);
 * ```
 */
export class MessageDecodeError extends ProtocolError {
  /** Where the bad record starts in the decoded buffer. */
  readonly byteOffset: number;
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
    this.byteOffset = where.byteOffset;
    this.queueOffset = where.queueOffset;
    this.physicalOffset = where.physicalOffset;
  }
}

/** Options of {@link decodeMessages} and {@link decodeMessage}. */
export interface DecodeOptions {
  /** Cap on one decompressed body. @default 64 MiB */
  maxBodyBytes?: number;
  /** Check BODYCRC against the stored body (Java's client does not). @default false */
  checkBodyCrc?: boolean;
}

/** The outcome of {@link decodeMessages}. */
export interface DecodeResult {
  /** Messages of the records before the first bad one (inner batches expanded). */
  messages: MessageExt[];
  /** Set when a record could not be decoded; the records after it were not read. */
  error?: MessageDecodeError;
}

/**
 * Decodes a PULL body. Never throws for bad bytes: it stops at the first bad record and returns the
 * messages before it with a {@link MessageDecodeError} (Java's client silently drops the rest).
 * Uncompressed bodies are views of `buffer`, not copies.
 *
 * @example
 * ```ts
 * const { messages, error } = decodeMessages(response.body);
 * if (error) log.warn({ err: error }, 'pull body partly undecodable');
 * ```
 */
export function decodeMessages(buffer: Buffer, options: DecodeOptions = {}): DecodeResult {
  const messages: MessageExt[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset = decodeMessage(buffer, offset, options, messages);
    } catch (err) {
      const error =
        err instanceof MessageDecodeError
          ? err
          : new MessageDecodeError(
              `unexpected decoder failure: ${String(err)}`,
              { byteOffset: offset },
              { cause: err },
            );
      return { messages, error };
    }
  }
  return { messages };
}

/**
 * Decodes the record at `offset`, appends its message(s) to `into` (several for an inner batch) and
 * returns the offset of the next record. When it throws, `into` may hold the inner-batch messages
 * decoded before the bad entry.
 *
 * @throws MessageDecodeError for a malformed record or an undecompressable body.
 * @example
 * ```ts
 * const out: MessageExt[] = [];
 * const next = decodeMessage(body, 0, {}, out);
 * ```
 */
export function decodeMessage(
  buffer: Buffer,
  offset: number,
  options: DecodeOptions = {},
  into: MessageExt[] = [],
): number {
  // No per-record closures (this runs once per pulled message): errors come from badRecord().
  const start = offset;
  const remaining = buffer.length - start;
  if (remaining < 4) throw badRecord(`${remaining} trailing bytes, too few for a record`, start);
  const storeSize = buffer.readInt32BE(start);
  if (storeSize < MIN_RECORD_BYTES)
    throw badRecord(`TOTALSIZE ${storeSize} is below the minimum ${MIN_RECORD_BYTES}`, start);
  if (storeSize > remaining)
    throw badRecord(`TOTALSIZE ${storeSize} exceeds the ${remaining} bytes left`, start);
  const end = start + storeSize;
  const magic = buffer.readInt32BE(start + 4);
  if (magic !== MESSAGE_MAGIC_CODE_V1 && magic !== MESSAGE_MAGIC_CODE_V2) {
    const what = magic === BLANK_MAGIC_CODE ? 'the commit-log blank magic' : 'an unknown magic code';
    throw badRecord(`${what} 0x${(magic >>> 0).toString(16).padStart(8, '0')}`, start);
  }
  const queueOffset = readLong(buffer, start + 20, 'QUEUEOFFSET', start);
  const physicalOffset = readLong(buffer, start + 28, 'PHYSICALOFFSET', start);

  let sysFlag = buffer.readInt32BE(start + SYSFLAG_POSITION);
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

  const bodyLength = buffer.readInt32BE(bodyLengthPosition);
  if (bodyLength < 0 || bodyLength > end - position)
    throw badRecord(`BODY length ${bodyLength} does not fit the record`, start, queueOffset, physicalOffset);
  const storedBody = buffer.subarray(position, position + bodyLength);
  position += bodyLength;

  const v2 = magic === MESSAGE_MAGIC_CODE_V2;
  if (position + (v2 ? 2 : 1) > end)
    throw badRecord('record ends before the topic length', start, queueOffset, physicalOffset);
  const topicLength = v2 ? buffer.readInt16BE(position) : buffer.readInt8(position);
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
  const propertiesLength = buffer.readInt16BE(position);
  position += 2;
  if (propertiesLength < 0 || propertiesLength !== end - position) {
    throw badRecord(
      `properties length ${propertiesLength} does not end the record (${end - position} bytes left)`,
      start,
      queueOffset,
      physicalOffset,
    );
  }
  const properties = decodeProperties(buffer.toString('utf8', position, end));

  const bodyCrc = buffer.readInt32BE(start + 8);
  if (options.checkBodyCrc === true && bodyLength > 0 && computeBodyCrc(storedBody) !== bodyCrc) {
    throw badRecord(`BODYCRC ${bodyCrc} does not match the body`, start, queueOffset, physicalOffset);
  }
  let body = storedBody;
  if (bodyLength > 0 && hasSysFlag(sysFlag, MessageSysFlag.COMPRESSED)) {
    try {
      body = decompress(
        compressionTypeBits(sysFlag),
        storedBody,
        options.maxBodyBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES,
      );
    } catch (err) {
      const reason = `body does not decompress: ${errorMessage(err)}`;
      throw badRecord(reason, start, queueOffset, physicalOffset, err);
    }
    sysFlag = clearCompressed(sysFlag);
  }

  const storeHost = LAST_STORE_HOST.get(
    buffer,
    storeHostPosition,
    storeHostPosition + storeHostBytes,
    formatHost,
  );
  const offsetMsgId = offsetMessageId(buffer, storeHostPosition, storeHostBytes, start + 28);
  const outer: MessageExt = {
    topic,
    queueId: buffer.readInt32BE(start + 12),
    queueOffset,
    physicalOffset,
    sysFlag,
    flag: buffer.readInt32BE(start + 16),
    bornTimestamp: readLong(buffer, start + 40, 'BORNTIMESTAMP', start, queueOffset, physicalOffset),
    bornHost: LAST_BORN_HOST.get(buffer, bornHostPosition, bornHostPosition + bornHostBytes, formatHost),
    storeTimestamp: readLong(
      buffer,
      storeTimestampPosition,
      'STORETIMESTAMP',
      start,
      queueOffset,
      physicalOffset,
    ),
    storeHost,
    reconsumeTimes: buffer.readInt32BE(reconsumePosition),
    preparedTransactionOffset: readLong(
      buffer,
      reconsumePosition + 4,
      'PREPAREDTRANSACTIONOFFSET',
      start,
      queueOffset,
      physicalOffset,
    ),
    bodyCrc,
    storeSize,
    body,
    properties,
    offsetMsgId,
    msgId: properties[MessageConst.UNIQ_KEY] ?? offsetMsgId,
    tags: properties[MessageConst.TAGS],
    keys: splitKeys(properties[MessageConst.KEYS]),
  };
  if (isInnerBatch(sysFlag)) unwrapInnerBatch(outer, start, into);
  else into.push(outer);
  return end;
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
function unwrapInnerBatch(outer: MessageExt, byteOffset: number, into: MessageExt[]): void {
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
    const properties = decodeProperties(batch.toString('utf8', propertiesStart, end));
    into.push({
      topic: outer.topic,
      queueId: outer.queueId,
      queueOffset,
      physicalOffset: outer.physicalOffset,
      sysFlag: outer.sysFlag,
      flag: batch.readInt32BE(position + 12),
      bornTimestamp: outer.bornTimestamp,
      bornHost: outer.bornHost,
      storeTimestamp: outer.storeTimestamp,
      storeHost: outer.storeHost,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
      bodyCrc: batch.readInt32BE(position + 8),
      storeSize: entrySize,
      body: batch.subarray(bodyStart, bodyStart + bodyLength),
      properties,
      offsetMsgId: outer.offsetMsgId,
      msgId: properties[MessageConst.UNIQ_KEY] ?? outer.offsetMsgId,
      tags: properties[MessageConst.TAGS],
      keys: splitKeys(properties[MessageConst.KEYS]),
    });
    position = end;
  }
}

/** 2^32, the weight of an int64's high word. */
const HIGH_WORD = 0x1_0000_0000;

/** Reads an int64 as a safe integer; `queueOffset`/`physicalOffset` name the record in the error. */
function readLong(
  buffer: Buffer,
  position: number,
  field: string,
  byteOffset: number,
  queueOffset?: number,
  physicalOffset?: number,
): number {
  // Two 32-bit reads, not readBigInt64BE: no BigInt per field. hi * 2^32 is exact; adding lo rounds
  // only beyond 2^53, where the result is not a safe integer either way.
  const number = buffer.readInt32BE(position) * HIGH_WORD + buffer.readUInt32BE(position + 4);
  if (!Number.isSafeInteger(number)) {
    const where = queueOffset === undefined ? { byteOffset } : { byteOffset, queueOffset, physicalOffset };
    throw new MessageDecodeError(`${field} ${buffer.readBigInt64BE(position)} is beyond 2^53`, where);
  }
  return number;
}

const UPPER_HEX_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1');
/** Scratch for {@link offsetMessageId}: 2 hex digits for each of at most 20 + 8 bytes. */
const OFFSET_MSG_ID_SCRATCH = Buffer.allocUnsafe(56);

/** Upper-case hex of the store host bytes then PHYSICALOFFSET (Java `MessageDecoder.createMessageId`). */
function offsetMessageId(
  buffer: Buffer,
  storeHostPosition: number,
  storeHostBytes: number,
  physicalOffsetPosition: number,
): string {
  const out = OFFSET_MSG_ID_SCRATCH;
  let pos = 0;
  for (let i = storeHostPosition; i < storeHostPosition + storeHostBytes; i++) {
    const byte = buffer[i] as number;
    out[pos++] = UPPER_HEX_DIGITS[byte >> 4] as number;
    out[pos++] = UPPER_HEX_DIGITS[byte & 0x0f] as number;
  }
  for (let i = physicalOffsetPosition; i < physicalOffsetPosition + 8; i++) {
    const byte = buffer[i] as number;
    out[pos++] = UPPER_HEX_DIGITS[byte >> 4] as number;
    out[pos++] = UPPER_HEX_DIGITS[byte & 0x0f] as number;
  }
  return out.toString('latin1', 0, pos);
}

/**
 * The last string decoded from one kind of field, with a copy of its bytes: the records of a pull body
 * repeat their topic and hosts, and comparing a few bytes is cheaper than building the string again.
 * Never holds the caller's buffer.
 */
class LastDecoded {
  private readonly bytes: Buffer;
  private length = -1;
  private text = '';

  constructor(maxBytes: number) {
    this.bytes = Buffer.alloc(maxBytes);
  }

  /** `decode(buffer, start, end)`, or the remembered string when the bytes are the same as last time. */
  get(
    buffer: Buffer,
    start: number,
    end: number,
    decode: (buffer: Buffer, start: number, end: number) => string,
  ): string {
    const length = end - start;
    const bytes = this.bytes;
    if (length === this.length) {
      let i = 0;
      while (i < length && bytes[i] === buffer[start + i]) i++;
      if (i === length) return this.text;
    }
    const text = decode(buffer, start, end);
    if (length <= bytes.length) {
      buffer.copy(bytes, 0, start, end);
      this.length = length;
      this.text = text;
    }
    return text;
  }
}

/** Topics up to this many bytes are remembered (v1 records allow 127). */
const MAX_REMEMBERED_TOPIC_BYTES = 255;
const LAST_TOPIC = new LastDecoded(MAX_REMEMBERED_TOPIC_BYTES);
/** Hosts are an IPv4 (4) or IPv6 (16) address and a 4-byte port. */
const LAST_BORN_HOST = new LastDecoded(20);
const LAST_STORE_HOST = new LastDecoded(20);

function decodeUtf8(buffer: Buffer, start: number, end: number): string {
  return buffer.toString('utf8', start, end);
}

/** `ip:port` of the host field `buffer[position, end)` (4- or 16-byte address, then an int32 port). */
function formatHost(buffer: Buffer, position: number, end: number): string {
  const length = end - position;
  const ipLength = length - 4;
  const port = buffer.readInt32BE(position + ipLength);
  if (ipLength === 4) {
    return `${buffer[position]}.${buffer[position + 1]}.${buffer[position + 2]}.${buffer[position + 3]}:${port}`;
  }
  return formatHostPort(formatIpAddress(buffer.subarray(position, position + ipLength)), port);
}

function splitKeys(keys: string | undefined): string[] {
  if (keys === undefined || keys.length === 0) return [];
  const parts = keys.split(' ');
  return parts.includes('') ? parts.filter((key) => key.length > 0) : parts;
}
