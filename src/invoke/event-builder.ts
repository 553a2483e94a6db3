/**
 * Builds the event a function receives (docs/writing-a-handler.md, "The event") from a batch of
 * consumed messages. {@link serializeEvent} is the hot path: it writes the JSON straight into one buffer of
 * exactly the right size, each body encoded once, with no intermediate event object.
 *
 * Bodies travel as base64. Only a record whose base64 form cannot fit a single invoke, and whose body is
 * valid UTF-8 whose JSON string does fit, carries its body as that text with `bodyEncoding: "utf8"`
 * ({@link chooseBodyEncoding}): a 5 MB text message is delivered although its base64 (6.7 MB) is not.
 */

import { isUtf8 } from 'node:buffer';
import type { ConsumedMessage } from '../consumer/message-listener.js';
import { RocketMQError } from '../errors.js';
import type { TraceCarrier } from '../handler/trace-context.js';
import type { RocketMQEvent, RocketMQRecord } from '../handler/types.js';
import { propertiesHeadOf } from '../protocol/decoded-message.js';
import { userProperties } from '../protocol/message.js';
import { escapedUtf8Length, jsonString, writeEscapedUtf8 } from './json-string.js';
import { messageTraceContext } from './message-trace-context.js';
import { recordHead, recordHeadBytes, recordHeadBytesBound } from './record-head.js';
import type { RecordHeadValues } from './record-head-values.js';
import { userPropertiesJson } from './user-properties-json.js';

const COMMA = 0x2c;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
/** What opens the body of a record (its last field), after `"reconsumeTimes":n,`; both are ASCII. */
const BASE64_BODY_OPEN = '"body":"';
const UTF8_BODY_OPEN = '"bodyEncoding":"utf8","body":"';
/** What closes a record after its body (`"}`) and the event after its records (`]}`). */
const RECORD_TAIL_BYTES = 2;
const EVENT_TAIL_BYTES = 2;

/**
 * How a record carries its body: `base64` (no `bodyEncoding` field) or `utf8` (the body's UTF-8 text,
 * with `bodyEncoding: "utf8"`).
 */
export type BodyEncoding = 'base64' | 'utf8';

/**
 * The outcome of {@link chooseBodyEncoding}. `recordBytes` is what the record adds to an event in
 * `encoding` (as {@link estimateRecordBytes}, the separating comma included).
 */
export type BodyEncodingChoice =
  | { readonly fits: true; readonly encoding: BodyEncoding; readonly recordBytes: number }
  | {
      /** No single-record event fits, in either encoding; `encoding` is then base64, the default. */
      readonly fits: false;
      readonly encoding: 'base64';
      readonly recordBytes: number;
      /** The record's bytes with its body as UTF-8 text; `undefined` when the body is not valid UTF-8. */
      readonly utf8RecordBytes: number | undefined;
    };

/**
 * Options of {@link serializeEvent} and {@link buildEvent}.
 */
export interface EventEncodingOptions {
  /**
   * The payload limit that decides each record's body encoding ({@link chooseBodyEncoding}); the same
   * value as the one the batch was planned with. Without it every body is base64.
   */
  readonly maxPayloadBytes?: number | undefined;
}

function headValues(consumed: ConsumedMessage): RecordHeadValues {
  return new MessageRecord(consumed);
}

function eventHead(consumerGroup: string): string {
  return `{"eventSource":"rocketmq","consumerGroup":${jsonString(consumerGroup)},"Records":[`;
}

function base64RecordBytes(headBytes: number, body: Uint8Array): number {
  return headBytes + BASE64_BODY_OPEN.length + base64Length(body.length) + RECORD_TAIL_BYTES + 1;
}

function utf8RecordBytes(headBytes: number, body: Uint8Array): number {
  return headBytes + UTF8_BODY_OPEN.length + escapedUtf8Length(body) + RECORD_TAIL_BYTES + 1;
}

/** Whether an event of one record of `recordBytes` fits: the envelope and the record, without its comma. */
function fitsAlone(recordBytes: number, maxPayloadBytes: number, envelopeBytes: number): boolean {
  return envelopeBytes + recordBytes - 1 <= maxPayloadBytes;
}

function choose(
  headBytes: number,
  body: Buffer,
  maxPayloadBytes: number,
  envelopeBytes: number,
): BodyEncodingChoice {
  const base64Bytes = base64RecordBytes(headBytes, body);
  if (fitsAlone(base64Bytes, maxPayloadBytes, envelopeBytes)) {
    return { fits: true, encoding: 'base64', recordBytes: base64Bytes };
  }
  const textBytes = isUtf8(body) ? utf8RecordBytes(headBytes, body) : undefined;
  if (textBytes !== undefined && fitsAlone(textBytes, maxPayloadBytes, envelopeBytes)) {
    return { fits: true, encoding: 'utf8', recordBytes: textBytes };
  }
  return { fits: false, encoding: 'base64', recordBytes: base64Bytes, utf8RecordBytes: textBytes };
}

/**
 * The length of the base64 encoding (with padding) of `byteLength` bytes.
 */
export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

/**
 * How `message`'s record carries its body in an event whose envelope is `envelopeBytes` long
 * ({@link estimateEventOverheadBytes} of the consumer group): base64 when an event of this record alone
 * fits `maxPayloadBytes` that way; else its UTF-8 text (`bodyEncoding: "utf8"`) when the body is valid
 * UTF-8 and that event fits; else it fits no invoke (`fits: false`). Pure, and exact: the sizes are those
 * {@link serializeEvent} writes.
 */
export function chooseBodyEncoding(
  message: ConsumedMessage,
  maxPayloadBytes: number,
  envelopeBytes: number,
): BodyEncodingChoice {
  const headBytes = recordHeadBytes(headValues(message));
  return choose(headBytes, message.message.body, maxPayloadBytes, envelopeBytes);
}

/**
 * The fields of `consumed`'s record as the function receives it, without the body: what the mapping's
 * filter criteria (`filters`, src/filter) match against, so a pattern is written against the record the
 * function gets (`{"tags": ["paid"]}`, `{"properties": {"region": ["eu"]}}`). The topic is the message's
 * real topic (for a redelivery, not the retry topic it was read from); broker and queue are where it was
 * read. Keys in the order serializeEvent writes them.
 */
export function recordFields(consumed: ConsumedMessage): Omit<RocketMQRecord, 'body' | 'bodyEncoding'> {
  const m = consumed.message;
  return {
    messageId: m.msgId,
    offsetMsgId: m.offsetMsgId,
    topic: consumed.topic,
    brokerName: consumed.queue.brokerName,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    tags: m.tags ?? null,
    keys: [...m.keys],
    properties: userProperties(m.properties),
    bornTimestamp: m.bornTimestamp,
    storeTimestamp: m.storeTimestamp,
    bornHost: m.bornHost,
    storeHost: m.storeHost,
    reconsumeTimes: m.reconsumeTimes,
    ...traceContextField(messageTraceContext(m)),
  };
}

/** The `traceContext` field of a record whose message carries a valid one: a fresh object each time. */
function traceContextField(carrier: TraceCarrier | undefined): { traceContext?: TraceCarrier } {
  return carrier === undefined ? {} : { traceContext: { ...carrier } };
}

/**
 * The record of one consumed message, as the function receives it ({@link recordFields}), with its body
 * in `encoding` (which must be `'base64'` for a body that is not valid UTF-8).
 */
export function buildRecord(consumed: ConsumedMessage, encoding: BodyEncoding = 'base64'): RocketMQRecord {
  const m = consumed.message;
  if (encoding === 'utf8' && !isUtf8(m.body)) {
    throw new RocketMQError(`the body of message ${m.msgId} is not valid UTF-8, so it cannot travel as text`);
  }
  // The body after the other fields, as serializeEvent writes it, so that JSON.stringify gives the same bytes.
  const record = recordFields(consumed);
  return encoding === 'utf8'
    ? { ...record, bodyEncoding: 'utf8', body: m.body.toString('utf8') }
    : { ...record, body: m.body.toString('base64') };
}

/**
 * The event of one batch, as an object (for tests, logs and tools; invokes use {@link serializeEvent}),
 * with the same body encodings as `serializeEvent(consumerGroup, messages, options)`.
 */
export function buildEvent(
  consumerGroup: string,
  messages: readonly ConsumedMessage[],
  options: EventEncodingOptions = {},
): RocketMQEvent {
  const { maxPayloadBytes } = options;
  const envelopeBytes = estimateEventOverheadBytes(consumerGroup);
  return {
    eventSource: 'rocketmq',
    consumerGroup,
    Records: messages.map((m) =>
      buildRecord(
        m,
        maxPayloadBytes === undefined
          ? 'base64'
          : chooseBodyEncoding(m, maxPayloadBytes, envelopeBytes).encoding,
      ),
    ),
  };
}

/**
 * The event of one batch as JSON in UTF-8: exactly `JSON.stringify(buildEvent(consumerGroup, messages,
 * options))` in meaning, built without the intermediate objects. Each body is base64 unless
 * `options.maxPayloadBytes` is given and {@link chooseBodyEncoding} picks its UTF-8 text. Its length is
 * `estimateEventOverheadBytes(consumerGroup) + Σ recordBytes - 1` for a non-empty batch, with each
 * record's `recordBytes` from `chooseBodyEncoding` (or `estimateRecordBytes(m)` without the option).
 */
export function serializeEvent(
  consumerGroup: string,
  messages: readonly ConsumedMessage[],
  options: EventEncodingOptions = {},
): Buffer {
  const { maxPayloadBytes } = options;
  const envelopeBytes = estimateEventOverheadBytes(consumerGroup);
  const layouts = new Array<RecordLayout>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    layouts[i] = layoutRecord(messages[i] as ConsumedMessage, envelopeBytes, maxPayloadBytes);
  }
  return serializeLayouts(consumerGroup, layouts);
}

/**
 * A record measured for an event ({@link layoutRecord}): the values of its JSON up to the body, its body
 * and how the body travels. A batch is measured once, planned (`planLayouts`) and serialized
 * ({@link serializeLayouts}) from the same layouts, sub-batches and bisected halves included; the
 * in-process event (parsed-event.ts) is built from them too.
 */
export interface RecordLayout extends RecordHeadValues {
  /** The record's JSON up to the field that opens its body (written from the values on first read). */
  readonly head: string;
  /** `head`'s length in UTF-8 (counted without writing it). */
  readonly headBytes: number;
  readonly body: Buffer;
  /** As {@link chooseBodyEncoding} picks it (base64 when no payload limit was given). */
  readonly encoding: BodyEncoding;
  /** What the record adds to an event, its separating comma included (as {@link estimateRecordBytes}). */
  readonly recordBytes: number;
  /** Whether an event of this record alone fits the payload limit (`true` without a limit). */
  readonly fits: boolean;
}

/**
 * Measures `message`'s record once for an event whose envelope is `envelopeBytes` long
 * ({@link estimateEventOverheadBytes}): the encoding and size {@link chooseBodyEncoding} gives for
 * `maxPayloadBytes` (without it: base64, as {@link estimateRecordBytes}), with the JSON head that
 * {@link serializeLayouts} writes.
 */
export function layoutRecord(
  message: ConsumedMessage,
  envelopeBytes: number,
  maxPayloadBytes?: number | undefined,
): RecordLayout {
  return new MessageRecord(message).measure(envelopeBytes, maxPayloadBytes);
}

/**
 * A record of `message` for an event that is known to fit as base64 without measuring it (its batch's
 * {@link recordBytesBound}s fit the payload): its sizes are counted only when read (when a payload is
 * serialized), and the in-process event (parsed-event.ts) is built without them.
 */
export function unmeasuredRecord(message: ConsumedMessage): UnmeasuredRecord {
  return new MessageRecord(message);
}

/**
 * A record as {@link unmeasuredRecord} makes it: base64 and fitting until `measure`d.
 */
export interface UnmeasuredRecord extends RecordLayout {
  /** At least `recordBytes` as base64, from the values' lengths ({@link recordBytesBound}). */
  readonly boundBytes: number;
  /** Decides its encoding and size for `maxPayloadBytes` as {@link chooseBodyEncoding} does. */
  measure(envelopeBytes: number, maxPayloadBytes: number | undefined): RecordLayout;
}

/**
 * A {@link RecordLayout} of one consumed message: one small object per message (a batch of 100 is laid
 * out on every consume), whose head values are read from the message when used (a decoded message
 * computes each once and keeps it; nothing changes a message while it is consumed), its user properties'
 * JSON made at once (user-properties-json.ts: the same pass reads a decoded message's id, tags and keys),
 * its head text and sizes on first read. Measured (`measure`) it has its encoding and size for a
 * payload limit; unmeasured it travels as base64, which the caller knows fits.
 */
class MessageRecord implements UnmeasuredRecord {
  readonly #consumed: ConsumedMessage;
  readonly #propertiesJson: string;
  readonly #traceContext: TraceCarrier | undefined;
  #head: string | undefined = undefined;
  #headBytes = -1;
  #recordBytes = -1;
  #encoding: BodyEncoding = 'base64';
  #fits = true;

  constructor(consumed: ConsumedMessage) {
    this.#consumed = consumed;
    // First: for a decoded message this one pass also reads the id, tags and keys the getters return.
    const head = propertiesHeadOf(consumed.message);
    this.#propertiesJson = userPropertiesJson(consumed.message, head);
    this.#traceContext = messageTraceContext(consumed.message, head);
  }

  get messageId(): string {
    return this.#consumed.message.msgId;
  }
  get offsetMsgId(): string {
    return this.#consumed.message.offsetMsgId;
  }
  get topic(): string {
    return this.#consumed.topic;
  }
  get brokerName(): string {
    return this.#consumed.queue.brokerName;
  }
  get queueId(): number {
    return this.#consumed.message.queueId;
  }
  get queueOffset(): number {
    return this.#consumed.message.queueOffset;
  }
  get tags(): string | null {
    return this.#consumed.message.tags ?? null;
  }
  get keys(): readonly string[] {
    return this.#consumed.message.keys;
  }
  get propertiesJson(): string {
    return this.#propertiesJson;
  }
  get bornTimestamp(): number {
    return this.#consumed.message.bornTimestamp;
  }
  get storeTimestamp(): number {
    return this.#consumed.message.storeTimestamp;
  }
  get bornHost(): string {
    return this.#consumed.message.bornHost;
  }
  get storeHost(): string {
    return this.#consumed.message.storeHost;
  }
  get reconsumeTimes(): number {
    return this.#consumed.message.reconsumeTimes;
  }
  get traceContext(): TraceCarrier | undefined {
    return this.#traceContext;
  }
  get body(): Buffer {
    return this.#consumed.message.body;
  }

  get head(): string {
    this.#head ??= recordHead(this);
    return this.#head;
  }

  get headBytes(): number {
    if (this.#headBytes < 0) this.#headBytes = recordHeadBytes(this);
    return this.#headBytes;
  }

  get encoding(): BodyEncoding {
    return this.#encoding;
  }

  get recordBytes(): number {
    if (this.#recordBytes < 0) this.#recordBytes = base64RecordBytes(this.headBytes, this.body);
    return this.#recordBytes;
  }

  get fits(): boolean {
    return this.#fits;
  }

  /** At least `recordBytes` as base64, from the values' lengths ({@link recordBytesBound}). */
  get boundBytes(): number {
    return recordHeadBytesBound(this) + base64RecordBytes(0, this.body);
  }

  /** Decides encoding and size for `maxPayloadBytes` as {@link chooseBodyEncoding} does. */
  measure(envelopeBytes: number, maxPayloadBytes: number | undefined): this {
    const headBytes = this.headBytes;
    const body = this.body;
    const base64Bytes = base64RecordBytes(headBytes, body);
    // The usual record fits as base64: decided here without the choice object of chooseBodyEncoding.
    if (maxPayloadBytes === undefined || fitsAlone(base64Bytes, maxPayloadBytes, envelopeBytes)) {
      this.#encoding = 'base64';
      this.#recordBytes = base64Bytes;
      this.#fits = true;
    } else {
      const choice = choose(headBytes, body, maxPayloadBytes, envelopeBytes);
      this.#encoding = choice.encoding;
      this.#recordBytes = choice.recordBytes;
      this.#fits = choice.fits;
    }
    return this;
  }
}

/**
 * An upper bound of the bytes `message`'s record adds to an event as base64 (`estimateRecordBytes(m)`),
 * from its values' lengths: no escaping looked for, no number formatted.
 */
export function recordBytesBound(message: ConsumedMessage): number {
  return new MessageRecord(message).boundBytes;
}

/**
 * The event of the records `layouts` describe, as JSON in UTF-8: the bytes {@link serializeEvent} writes
 * for their messages (with the payload limit the layouts were measured with). Its length is
 * `estimateEventOverheadBytes(consumerGroup) + Σ recordBytes - 1` for a non-empty batch.
 */
export function serializeLayouts(consumerGroup: string, layouts: readonly RecordLayout[]): Buffer {
  const head = eventHead(consumerGroup);
  let totalBytes = Buffer.byteLength(head, 'utf8') + EVENT_TAIL_BYTES - 1;
  for (let i = 0; i < layouts.length; i++) totalBytes += (layouts[i] as RecordLayout).recordBytes;
  // Every record counted its separating comma; an empty batch has none to give back.
  if (layouts.length === 0) totalBytes += 1;
  const out = Buffer.allocUnsafe(totalBytes);
  let pos = out.write(head, 0, 'utf8');
  for (let i = 0; i < layouts.length; i++) {
    const layout = layouts[i] as RecordLayout;
    if (i > 0) out[pos++] = COMMA;
    // An ASCII head (its UTF-8 length is its length) is copied byte for byte, without UTF-8 encoding work.
    pos += out.write(layout.head, pos, layout.headBytes === layout.head.length ? 'latin1' : 'utf8');
    const body = layout.body;
    if (layout.encoding === 'utf8') {
      pos += out.write(UTF8_BODY_OPEN, pos, 'latin1');
      pos = writeEscapedUtf8(body, out, pos);
    } else {
      pos += out.write(BASE64_BODY_OPEN, pos, 'latin1');
      // base64 is ASCII: latin1 copies it byte for byte without UTF-8 encoding work.
      pos += out.write(body.toString('base64'), pos, 'latin1');
    }
    out[pos++] = QUOTE;
    out[pos++] = CLOSE_BRACE;
  }
  out[pos++] = CLOSE_BRACKET;
  out[pos++] = CLOSE_BRACE;
  if (pos !== totalBytes) {
    throw new RangeError(`serializeEvent wrote ${pos} bytes into a buffer of ${totalBytes}`);
  }
  return out;
}

/**
 * The bytes one message adds to a serialized event: its record's JSON with the body in `encoding`, plus
 * the separating comma. Exact, so a batch builder can respect a byte cap such as Lambda's 6 MB payload
 * limit. `'utf8'` needs a body of valid UTF-8 (else a RocketMQError); it counts JSON's escapes exactly.
 */
export function estimateRecordBytes(message: ConsumedMessage, encoding: BodyEncoding = 'base64'): number {
  const headBytes = recordHeadBytes(headValues(message));
  const body = message.message.body;
  if (encoding === 'base64') return base64RecordBytes(headBytes, body);
  if (!isUtf8(body)) {
    throw new RocketMQError(`the body of message ${message.message.msgId} is not valid UTF-8`);
  }
  return utf8RecordBytes(headBytes, body);
}

/**
 * The bytes of an event besides its records (the envelope with the consumer group).
 */
export function estimateEventOverheadBytes(consumerGroup: string): number {
  return Buffer.byteLength(eventHead(consumerGroup), 'utf8') + EVENT_TAIL_BYTES;
}
