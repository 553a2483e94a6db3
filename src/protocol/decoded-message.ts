/**
 * A message as the decoder (message-decoder.ts) returns it: the fixed fields of the record read at once,
 * the rest computed on first read. A consumer that only needs a message's id, tags and body (the bare
 * consume loop, a tag filter, a retry-topic check) never parses its properties: one PULL body carries up
 * to 32 messages of often 20+ properties each, and building those objects was most of the decoder's time.
 *
 * What is lazy, and how it is found:
 * - `properties`: parsed by decodeProperties (message-properties.ts) from the record's properties bytes
 *   on first read, then kept;
 * - `msgId`, `tags`, `keys`, and any single property through {@link propertyOf}: looked up in the
 *   properties text without building the object, by the same rules (first well-formed piece wins); a
 *   long text's first pieces are searched in the record's bytes before the text is decoded;
 * - `offsetMsgId`: the hex of the store host and PHYSICALOFFSET, and `bornHost` / `storeHost`, built on
 *   first read;
 * - `body`: a view of the pull buffer, made on first read (a message that is counted and acknowledged
 *   but never read makes none; a buffered message holds one object less: less for the young-generation
 *   collector to copy); its length is known at once ({@link bodyLengthOf}).
 * The message keeps the record's bytes (the pull buffer) either way; a decompressed body is a copy, so
 * such a message (and an inner-batch entry) reads its properties text, hosts and ids at once and keeps
 * no reference to the pull buffer.
 *
 * Lazy fields live on the prototype: `{ ...message }` copies only the eager ones. Use
 * {@link toPlainMessage} (or `JSON.stringify`, which calls `toJSON`) for a plain copy.
 */

import { formatHostField, LastDecoded } from './last-decoded.js';
import type { MessageExt } from './message.js';
import { MessageConst } from './message.js';
import { decodeProperties, NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR } from './message-properties.js';
import { hasSysFlag, MessageSysFlag } from './message-sys-flag.js';
import { type PropertiesHead, readPropertiesHead } from './properties-head.js';

const UPPER_HEX_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1');
/** Scratch for the offset message id: 2 hex digits for each of at most 20 + 8 bytes. */
const OFFSET_MSG_ID_SCRATCH = Buffer.allocUnsafe(56);
const NAME_VALUE_CODE = NAME_VALUE_SEPARATOR.charCodeAt(0);
const PROPERTY_CODE = PROPERTY_SEPARATOR.charCodeAt(0);

/**
 * Properties texts up to this many bytes are decoded whole for a lookup: one native call, then
 * String#indexOf, costs less than walking the bytes in JavaScript to decode only the value (measured per
 * msgId, UNIQ_KEY the second piece: ~170 ns less on a 125-byte text, ~190 ns more on an 850-byte one).
 */
const SHORT_PROPERTIES_BYTES = 384;
/**
 * In a longer text, the pieces starting in its first this many bytes are searched in the bytes before
 * the text is decoded: enough for the broker's first few pieces (UNIQ_KEY among them), and a bound on the
 * walk when the key is further on or absent.
 */
const BYTE_SEARCH_BYTES = 128;
/** Hosts are an IPv4 (4) or IPv6 (16) address and a 4-byte port. */
const LAST_BORN_HOST = new LastDecoded(20);
const LAST_STORE_HOST = new LastDecoded(20);
/** Where SYSFLAG and BORNHOST sit in a record (every field before them has a fixed size). */
const SYSFLAG_POSITION = 36;
const BORNHOST_POSITION = 48;
const PHYSICALOFFSET_POSITION = 28;

/**
 * A decoded stored message (see the file header): a {@link MessageExt} whose properties, ids and hosts
 * are read on first use. Made by the decoder, which sets the eager fields after construction.
 */
export class DecodedMessage implements MessageExt {
  topic = '';
  queueId = 0;
  queueOffset = 0;
  physicalOffset = 0;
  sysFlag = 0;
  flag = 0;
  bornTimestamp = 0;
  storeTimestamp = 0;
  reconsumeTimes = 0;
  preparedTransactionOffset = 0;
  bodyCrc = 0;
  storeSize = 0;
  #body: Buffer | undefined;
  /** Where the body is in `#record` while `#body` is not made yet. */
  readonly #bodyStart: number;
  readonly #bodyLength: number;
  /** The buffer holding the record; undefined for a message that keeps no reference to it. */
  readonly #record: Buffer | undefined;
  readonly #start: number;
  readonly #propertiesStart: number;
  readonly #propertiesEnd: number;
  #text: string | undefined;
  #properties: Record<string, string> | undefined = undefined;
  #offsetMsgId: string | undefined = undefined;
  #msgId: string | undefined = undefined;
  #tags: string | undefined = undefined;
  #tagsRead = false;
  #keys: string[] | undefined = undefined;
  #bornHost: string | undefined = undefined;
  #storeHost: string | undefined = undefined;

  /**
   * `record[start, ...)` is the stored record, its properties at `[propertiesStart, propertiesEnd)`. A
   * message that must not keep the record (a decompressed body, an inner-batch entry) passes `record`
   * undefined and its properties `text`; the decoder then sets its hosts and offsetMsgId. `body` is
   * either the body itself or, when the record holds it as stored, the number of its first byte in
   * `record` (its length `bodyLength`): the view is then made on first read.
   */
  constructor(
    body: Buffer | number,
    record: Buffer | undefined,
    start: number,
    propertiesStart: number,
    propertiesEnd: number,
    text?: string,
    bodyLength = 0,
  ) {
    if (typeof body === 'number') {
      if (record === undefined) throw new RangeError('a body given by its position needs the record');
      this.#body = undefined;
      this.#bodyStart = body;
      this.#bodyLength = bodyLength;
    } else {
      this.#body = body;
      this.#bodyStart = 0;
      this.#bodyLength = body.length;
    }
    this.#record = record;
    this.#start = start;
    this.#propertiesStart = propertiesStart;
    this.#propertiesEnd = propertiesEnd;
    this.#text = text;
  }

  get body(): Buffer {
    if (this.#body === undefined) {
      const start = this.#bodyStart;
      this.#body = (this.#record as Buffer).subarray(start, start + this.#bodyLength);
    }
    return this.#body;
  }

  set body(body: Buffer) {
    this.#body = body;
  }

  /**
   * The stored record this message was decoded from, as the broker sent it (a view, not a copy), or
   * undefined when the message keeps no record (a decompressed body, an inner-batch entry).
   */
  storedRecord(): Buffer | undefined {
    const record = this.#record;
    if (record === undefined) return undefined;
    const start = this.#start;
    return record.subarray(start, start + record.readInt32BE(start));
  }

  /** `body.length`, without making the body's view. */
  get bodyLength(): number {
    return this.#body === undefined ? this.#bodyLength : this.#body.length;
  }

  get bornHost(): string {
    if (this.#bornHost === undefined) this.#bornHost = this.#host(true);
    return this.#bornHost;
  }

  set bornHost(bornHost: string) {
    this.#bornHost = bornHost;
  }

  get storeHost(): string {
    if (this.#storeHost === undefined) this.#storeHost = this.#host(false);
    return this.#storeHost;
  }

  set storeHost(storeHost: string) {
    this.#storeHost = storeHost;
  }

  get properties(): Record<string, string> {
    if (this.#properties === undefined) this.#properties = decodeProperties(this.#propertiesText());
    return this.#properties;
  }

  set properties(properties: Record<string, string>) {
    this.#properties = properties;
  }

  get offsetMsgId(): string {
    if (this.#offsetMsgId === undefined) {
      const record = this.#record;
      this.#offsetMsgId =
        record === undefined
          ? ''
          : offsetMessageId(
              record,
              this.#hostPosition(false),
              this.#hostBytes(false),
              this.#start + PHYSICALOFFSET_POSITION,
            );
    }
    return this.#offsetMsgId;
  }

  set offsetMsgId(offsetMsgId: string) {
    this.#offsetMsgId = offsetMsgId;
  }

  /** `UNIQ_KEY` when present, else {@link offsetMsgId} (Java `MessageClientExt.getMsgId`). */
  get msgId(): string {
    if (this.#msgId === undefined) this.#msgId = this.property(MessageConst.UNIQ_KEY) ?? this.offsetMsgId;
    return this.#msgId;
  }

  set msgId(msgId: string) {
    this.#msgId = msgId;
  }

  get tags(): string | undefined {
    if (!this.#tagsRead) {
      this.#tags = this.property(MessageConst.TAGS);
      this.#tagsRead = true;
    }
    return this.#tags;
  }

  set tags(tags: string | undefined) {
    this.#tags = tags;
    this.#tagsRead = true;
  }

  get keys(): string[] {
    if (this.#keys === undefined) this.#keys = splitKeys(this.property(MessageConst.KEYS));
    return this.#keys;
  }

  set keys(keys: string[]) {
    this.#keys = keys;
  }

  /**
   * One property, as `properties[key]` would give it, without building the properties object when it
   * was not built yet.
   */
  property(key: string): string | undefined {
    if (this.#properties !== undefined) return this.#properties[key];
    const record = this.#record;
    const start = this.#propertiesStart;
    const end = this.#propertiesEnd;
    // A long text that was not decoded yet: its first pieces are searched in the bytes (the broker writes
    // UNIQ_KEY among the first), and only the value decoded; past them, the text is decoded after all.
    if (this.#text === undefined && record !== undefined && end - start > SHORT_PROPERTIES_BYTES) {
      const searchEnd = start + BYTE_SEARCH_BYTES;
      const value = findPropertyInBytes(record, start, end, key, searchEnd);
      if (value !== undefined) return value;
    }
    return findProperty(this.#propertiesText(), key);
  }

  /**
   * Reads `msgId`, `tags` and `keys` (each that was not read or set yet) and the user properties in one
   * pass over the properties text (properties-head.ts), for a reader that needs all of them (the Lambda
   * event): three lookups and a walk would go over the text four times. `undefined` once the properties
   * object exists (it may have been changed since: read the object then).
   */
  readHead(): PropertiesHead | undefined {
    if (this.#properties !== undefined) return undefined;
    const head = readPropertiesHead(this.#propertiesText());
    if (this.#msgId === undefined) this.#msgId = head.uniqKey ?? this.offsetMsgId;
    if (!this.#tagsRead) {
      this.#tags = head.tags;
      this.#tagsRead = true;
    }
    if (this.#keys === undefined) this.#keys = splitKeys(head.keys);
    return head;
  }

  /** The same message as plain data (every field computed). */
  toJSON(): MessageExt {
    return toPlainMessage(this);
  }

  #propertiesText(): string {
    if (this.#text === undefined) {
      this.#text = this.#record?.toString('utf8', this.#propertiesStart, this.#propertiesEnd) ?? '';
    }
    return this.#text;
  }

  /** Bytes of the born (or store) host field: 8 for IPv4, 20 for IPv6 (SYSFLAG bits 4 and 5). */
  #hostBytes(born: boolean): number {
    // Both bits are in SYSFLAG's low byte, its last one (big-endian): one byte read, no bounds checks.
    const lowByte = (this.#record as Buffer)[this.#start + SYSFLAG_POSITION + 3] as number;
    return hasSysFlag(lowByte, born ? MessageSysFlag.BORNHOST_V6 : MessageSysFlag.STOREHOST_V6) ? 20 : 8;
  }

  /** Where the born (or store) host field starts: STORETIMESTAMP (8 bytes) sits between them. */
  #hostPosition(born: boolean): number {
    const bornHostPosition = this.#start + BORNHOST_POSITION;
    return born ? bornHostPosition : bornHostPosition + this.#hostBytes(true) + 8;
  }

  #host(born: boolean): string {
    const record = this.#record;
    if (record === undefined) return '';
    const position = this.#hostPosition(born);
    const end = position + this.#hostBytes(born);
    return (born ? LAST_BORN_HOST : LAST_STORE_HOST).get(record, position, end, formatHostField);
  }
}

/**
 * `message.properties[key]`, without building the properties of a {@link DecodedMessage} that has not
 * built them yet (one lookup in its properties text instead).
 */
export function propertyOf(message: MessageExt, key: string): string | undefined {
  return message instanceof DecodedMessage ? message.property(key) : message.properties[key];
}

/**
 * {@link DecodedMessage.readHead} of a decoded message; `undefined` for any other message or once its
 * properties object exists (read `msgId`, `tags`, `keys` and `properties` then).
 */
export function propertiesHeadOf(message: MessageExt): PropertiesHead | undefined {
  return message instanceof DecodedMessage ? message.readHead() : undefined;
}

/**
 * `message.body.length`, without making a decoded message's body view (flow control counts the bytes of
 * every buffered message; most are read only later, or never).
 */
export function bodyLengthOf(message: MessageExt): number {
  return message instanceof DecodedMessage ? message.bodyLength : message.body.length;
}

/**
 * The stored record `message` was decoded from, byte for byte as the broker sent it (a view into the
 * pull body: valid as long as the message is), or undefined for a message that keeps no record (not
 * decoded here, a decompressed body, an inner-batch entry). Decoding it again gives the same message,
 * except any field set after decoding (e.g. `reconsumeTimes`, which a local retry raises).
 */
export function storedRecordOf(message: MessageExt): Buffer | undefined {
  return message instanceof DecodedMessage ? message.storedRecord() : undefined;
}

/**
 * A plain-data copy of `message` with every field read: safe to spread, clone or serialize.
 */
export function toPlainMessage(message: MessageExt): MessageExt {
  // The ids, tags and keys first: read before the properties object exists, they come from the lookup.
  const { msgId, tags, keys, offsetMsgId } = message;
  return {
    topic: message.topic,
    queueId: message.queueId,
    queueOffset: message.queueOffset,
    physicalOffset: message.physicalOffset,
    sysFlag: message.sysFlag,
    flag: message.flag,
    bornTimestamp: message.bornTimestamp,
    bornHost: message.bornHost,
    storeTimestamp: message.storeTimestamp,
    storeHost: message.storeHost,
    reconsumeTimes: message.reconsumeTimes,
    preparedTransactionOffset: message.preparedTransactionOffset,
    bodyCrc: message.bodyCrc,
    storeSize: message.storeSize,
    body: message.body,
    properties: message.properties,
    offsetMsgId,
    msgId,
    tags,
    keys,
  };
}

/**
 * The value decodeProperties(text)[key] would have, found without parsing the rest: the first piece that
 * starts with `key` followed by U+0001 and has a non-empty value (a piece starts the text or follows
 * U+0002; a piece with an empty value is skipped; the first stored occurrence of a key wins). `key` must
 * not be empty nor contain a separator.
 */
export function findProperty(text: string, key: string): string | undefined {
  let from = 0;
  for (;;) {
    const at = text.indexOf(key, from);
    if (at < 0) return undefined;
    const separator = at + key.length;
    if (
      (at === 0 || text.charCodeAt(at - 1) === PROPERTY_CODE) &&
      text.charCodeAt(separator) === NAME_VALUE_CODE
    ) {
      let end = text.indexOf(PROPERTY_SEPARATOR, separator);
      if (end < 0) end = text.length;
      if (end > separator + 1) return text.slice(separator + 1, end);
    }
    from = at + 1;
  }
}

/**
 * {@link findProperty} over the UTF-8 bytes `buffer[start, end)` of a properties text: the same value,
 * without decoding the rest. The separators are ASCII bytes, which never occur inside a multi-byte UTF-8
 * sequence, so pieces split the same way in bytes as in text. `key` must be ASCII, not empty, without
 * separators. With `searchEnd`, only the pieces starting before it are searched: `undefined` then says
 * the key is not among them.
 */
export function findPropertyInBytes(
  buffer: Buffer,
  start: number,
  end: number,
  key: string,
  /** Only the pieces starting before this offset are searched (a value may run on past it). */
  searchEnd = end,
): string | undefined {
  const keyLength = key.length;
  let piece = start;
  while (piece < searchEnd && piece < end) {
    const separator = piece + keyLength;
    if (separator < end && buffer[separator] === NAME_VALUE_CODE) {
      let i = 0;
      while (i < keyLength && buffer[piece + i] === key.charCodeAt(i)) i++;
      if (i === keyLength) {
        let valueEnd = separator + 1;
        while (valueEnd < end && buffer[valueEnd] !== PROPERTY_CODE) valueEnd++;
        if (valueEnd > separator + 1) return buffer.toString('utf8', separator + 1, valueEnd);
        piece = valueEnd + 1;
        continue;
      }
    }
    while (piece < end && buffer[piece] !== PROPERTY_CODE) piece++;
    piece++;
  }
  return undefined;
}

/**
 * Upper-case hex of the store host bytes then PHYSICALOFFSET (Java `MessageDecoder.createMessageId`).
 */
export function offsetMessageId(
  buffer: Buffer,
  storeHostPosition: number,
  storeHostBytes: number,
  physicalOffsetPosition: number,
): string {
  if (storeHostBytes === 8) {
    return ipv4OffsetMessageId(buffer, storeHostPosition, physicalOffsetPosition);
  }
  const out = OFFSET_MSG_ID_SCRATCH;
  let pos = 0;
  for (let i = storeHostPosition; i < storeHostPosition + storeHostBytes; i++) {
    const byte = buffer[i] as number;
    out[pos++] = hexCode(byte >> 4);
    out[pos++] = hexCode(byte);
  }
  for (let i = physicalOffsetPosition; i < physicalOffsetPosition + 8; i++) {
    const byte = buffer[i] as number;
    out[pos++] = hexCode(byte >> 4);
    out[pos++] = hexCode(byte);
  }
  return out.toString('latin1', 0, pos);
}

/** The character code of the upper-case hex digit of `value`'s low 4 bits. */
function hexCode(value: number): number {
  return UPPER_HEX_DIGITS[value & 0x0f] as number;
}

/**
 * {@link offsetMessageId} of an IPv4 store host (the usual case): its 32 digits made by one
 * `String.fromCharCode` call, where writing them to a scratch buffer and decoding it costs a native call
 * (measured: about half the time per id).
 */
function ipv4OffsetMessageId(buffer: Buffer, host: number, offset: number): string {
  const h0 = buffer[host] as number;
  const h1 = buffer[host + 1] as number;
  const h2 = buffer[host + 2] as number;
  const h3 = buffer[host + 3] as number;
  const h4 = buffer[host + 4] as number;
  const h5 = buffer[host + 5] as number;
  const h6 = buffer[host + 6] as number;
  const h7 = buffer[host + 7] as number;
  const o0 = buffer[offset] as number;
  const o1 = buffer[offset + 1] as number;
  const o2 = buffer[offset + 2] as number;
  const o3 = buffer[offset + 3] as number;
  const o4 = buffer[offset + 4] as number;
  const o5 = buffer[offset + 5] as number;
  const o6 = buffer[offset + 6] as number;
  const o7 = buffer[offset + 7] as number;
  return String.fromCharCode(
    hexCode(h0 >> 4),
    hexCode(h0),
    hexCode(h1 >> 4),
    hexCode(h1),
    hexCode(h2 >> 4),
    hexCode(h2),
    hexCode(h3 >> 4),
    hexCode(h3),
    hexCode(h4 >> 4),
    hexCode(h4),
    hexCode(h5 >> 4),
    hexCode(h5),
    hexCode(h6 >> 4),
    hexCode(h6),
    hexCode(h7 >> 4),
    hexCode(h7),
    hexCode(o0 >> 4),
    hexCode(o0),
    hexCode(o1 >> 4),
    hexCode(o1),
    hexCode(o2 >> 4),
    hexCode(o2),
    hexCode(o3 >> 4),
    hexCode(o3),
    hexCode(o4 >> 4),
    hexCode(o4),
    hexCode(o5 >> 4),
    hexCode(o5),
    hexCode(o6 >> 4),
    hexCode(o6),
    hexCode(o7 >> 4),
    hexCode(o7),
  );
}

/**
 * The `KEYS` property split on spaces, empty pieces dropped.
 */
export function splitKeys(keys: string | undefined): string[] {
  if (keys === undefined || keys.length === 0) return [];
  const parts = keys.split(' ');
  return parts.includes('') ? parts.filter((key) => key.length > 0) : parts;
}
