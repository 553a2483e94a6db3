/**
 * Encoders of messages: the SEND_BATCH_MESSAGE body (Java `MessageDecoder.encodeMessages`) and the
 * stored record format a PULL body carries (the layout is in message-decoder.ts), the latter for
 * byte fixtures, round-trip tests and fake brokers.
 *
 * Batch entry grammar (big-endian):
 * ```
 * entry = TOTALSIZE:int32 MAGIC:int32=0 BODYCRC:int32=0 FLAG:int32 BODYLEN:int32 BODY PROPLEN:int16 PROPERTIES:utf8
 * ```
 */
import { CompressionType, compressZlib } from './compression.js';
import { ProtocolError } from './errors.js';
import { compressLz4 } from './lz4-frame.js';
import type { Message } from './message.js';
import { parseHostPort } from './message-id.js';
import { encodeProperties } from './message-properties.js';
import { MessageSysFlag, withCompression } from './message-sys-flag.js';

/** Largest properties section: its length is a signed short. */
const MAX_PROPERTIES_BYTES = 0x7fff;
/** Largest v1 topic: its length is a signed byte. */
const MAX_V1_TOPIC_BYTES = 0x7f;
/** Largest v2 topic: its length is a signed short. */
const MAX_V2_TOPIC_BYTES = 0x7fff;
const MAGIC_V1 = 0xdaa320a7 | 0;
const MAGIC_V2 = 0xdaa320ab | 0;

/**
 * Encodes the body of a SEND_BATCH_MESSAGE request: one entry per message, each with its own flag,
 * body and properties (which should already hold its `UNIQ_KEY`, `TAGS`, `KEYS` and `WAIT`).
 *
 * @throws ProtocolError when a message's properties are invalid or longer than 32767 bytes.
 */
export function encodeBatchBody(messages: readonly Message[]): Buffer {
  const entries: Buffer[] = [];
  for (const message of messages) {
    const properties = propertiesBytes(message.properties);
    const size = 4 + 4 + 4 + 4 + 4 + message.body.length + 2 + properties.length;
    const entry = Buffer.allocUnsafe(size);
    entry.writeInt32BE(size, 0);
    entry.writeInt32BE(0, 4);
    entry.writeInt32BE(0, 8);
    entry.writeInt32BE((message.flag ?? 0) | 0, 12);
    entry.writeInt32BE(message.body.length, 16);
    entry.set(message.body, 20);
    entry.writeInt16BE(properties.length, 20 + message.body.length);
    entry.set(properties, 22 + message.body.length);
    entries.push(entry);
  }
  return Buffer.concat(entries);
}

/**
 * Everything a stored record holds. Host flags (BORNHOST_V6, STOREHOST_V6) follow from the host
 * strings; compression bits from `compression`.
 */
export interface StoredMessageInput {
  topic: string;
  /** The message body, uncompressed (compressed here when `compression` is set). @default empty */
  body?: Uint8Array;
  /** Bytes to store verbatim as BODY instead of `body` (e.g. a zstd frame made elsewhere). */
  storedBody?: Uint8Array;
  /** Compress `body` (ZLIB or LZ4; ZSTD only with `storedBody`) and set COMPRESSED + type bits. */
  compression?: CompressionType;
  properties?: Record<string, string>;
  /** @default 0 */
  queueId?: number;
  /** @default 0 */
  flag?: number;
  /** @default 0 */
  queueOffset?: number;
  /** @default 0 */
  physicalOffset?: number;
  /** Other SYSFLAG bits (MULTI_TAGS, transaction type, INNER_BATCH, NEED_UNWRAP). @default 0 */
  sysFlag?: number;
  /** @default 0 */
  bornTimestamp?: number;
  /** `ip:port` or `[ipv6]:port`. @default '127.0.0.1:0' */
  bornHost?: string;
  /** @default 0 */
  storeTimestamp?: number;
  /** `ip:port` or `[ipv6]:port`. @default '127.0.0.1:10911' */
  storeHost?: string;
  /** @default 0 */
  reconsumeTimes?: number;
  /** @default 0 */
  preparedTransactionOffset?: number;
  /** BODYCRC to write. @default computeBodyCrc of the stored body */
  bodyCrc?: number;
  /** Record version. @default 'v2' when the topic is longer than 127 UTF-8 bytes, else 'v1' */
  magic?: 'v1' | 'v2';
}

/**
 * Encodes one stored record, as the broker writes it into a PULL body.
 *
 * @throws ProtocolError for invalid hosts, properties, a topic too long for the chosen version, a
 *   ZSTD request without `storedBody`, or numbers that are not safe integers.
 */
export function encodeStoredMessage(input: StoredMessageInput): Buffer {
  const born = parseHostPort(input.bornHost ?? '127.0.0.1:0');
  const store = parseHostPort(input.storeHost ?? '127.0.0.1:10911');
  const storedBody = storedBodyOf(input);
  let sysFlag = (input.sysFlag ?? 0) & ~(MessageSysFlag.BORNHOST_V6 | MessageSysFlag.STOREHOST_V6);
  if (born.ip.length === 16) sysFlag |= MessageSysFlag.BORNHOST_V6;
  if (store.ip.length === 16) sysFlag |= MessageSysFlag.STOREHOST_V6;
  if (input.compression !== undefined) sysFlag = withCompression(sysFlag, input.compression);
  const topic = Buffer.from(input.topic, 'utf8');
  const magic = input.magic ?? (topic.length > MAX_V1_TOPIC_BYTES ? 'v2' : 'v1');
  const topicLimit = magic === 'v1' ? MAX_V1_TOPIC_BYTES : MAX_V2_TOPIC_BYTES;
  if (topic.length > topicLimit) {
    throw new ProtocolError(
      `Topic of ${topic.length} bytes is too long for a ${magic} record (max ${topicLimit})`,
    );
  }
  const properties = propertiesBytes(input.properties ?? {});
  const topicLengthBytes = magic === 'v1' ? 1 : 2;
  const size =
    4 +
    4 +
    4 +
    4 +
    4 +
    8 +
    8 +
    4 +
    8 +
    born.ip.length +
    4 +
    8 +
    store.ip.length +
    4 +
    4 +
    8 +
    4 +
    storedBody.length +
    topicLengthBytes +
    topic.length +
    2 +
    properties.length;
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  p = out.writeInt32BE(size, p);
  p = out.writeInt32BE(magic === 'v1' ? MAGIC_V1 : MAGIC_V2, p);
  p = out.writeInt32BE((input.bodyCrc ?? computeBodyCrc(storedBody)) | 0, p);
  p = out.writeInt32BE((input.queueId ?? 0) | 0, p);
  p = out.writeInt32BE((input.flag ?? 0) | 0, p);
  p = writeLong(out, p, input.queueOffset ?? 0, 'queueOffset');
  p = writeLong(out, p, input.physicalOffset ?? 0, 'physicalOffset');
  p = out.writeInt32BE(sysFlag | 0, p);
  p = writeLong(out, p, input.bornTimestamp ?? 0, 'bornTimestamp');
  out.set(born.ip, p);
  p = out.writeInt32BE(born.port, p + born.ip.length);
  p = writeLong(out, p, input.storeTimestamp ?? 0, 'storeTimestamp');
  out.set(store.ip, p);
  p = out.writeInt32BE(store.port, p + store.ip.length);
  p = out.writeInt32BE((input.reconsumeTimes ?? 0) | 0, p);
  p = writeLong(out, p, input.preparedTransactionOffset ?? 0, 'preparedTransactionOffset');
  p = out.writeInt32BE(storedBody.length, p);
  out.set(storedBody, p);
  p += storedBody.length;
  p = magic === 'v1' ? out.writeInt8(topic.length, p) : out.writeInt16BE(topic.length, p);
  out.set(topic, p);
  p += topic.length;
  p = out.writeInt16BE(properties.length, p);
  out.set(properties, p);
  return out;
}

/**
 * Encodes several stored records back to back: a PULL body.
 */
export function encodeStoredMessages(inputs: readonly StoredMessageInput[]): Buffer {
  return Buffer.concat(inputs.map(encodeStoredMessage));
}

const CRC_TABLE = buildCrcTable();

/**
 * BODYCRC of a stored body: CRC32 (IEEE) & 0x7FFFFFFF (Java `UtilAll.crc32`).
 */
export function computeBodyCrc(body: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < body.length; i++) {
    crc = (CRC_TABLE[(crc ^ (body[i] ?? 0)) & 0xff] ?? 0) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) & 0x7fffffff;
}

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

function storedBodyOf(input: StoredMessageInput): Uint8Array {
  if (input.storedBody !== undefined) return input.storedBody;
  const body = input.body ?? new Uint8Array(0);
  switch (input.compression) {
    case undefined:
      return body;
    case CompressionType.ZLIB:
      return compressZlib(body);
    case CompressionType.LZ4:
      return compressLz4(body);
    default:
      throw new ProtocolError(`Cannot compress with type ${input.compression} here: pass storedBody`);
  }
}

function propertiesBytes(properties: Readonly<Record<string, string>>): Buffer {
  const bytes = Buffer.from(encodeProperties(properties), 'utf8');
  if (bytes.length > MAX_PROPERTIES_BYTES) {
    throw new ProtocolError(
      `Properties take ${bytes.length} bytes, above the ${MAX_PROPERTIES_BYTES}-byte limit`,
    );
  }
  return bytes;
}

function writeLong(out: Buffer, position: number, value: number, field: string): number {
  if (!Number.isSafeInteger(value)) throw new ProtocolError(`${field} ${value} is not a safe integer`);
  return out.writeBigInt64BE(BigInt(value), position);
}
