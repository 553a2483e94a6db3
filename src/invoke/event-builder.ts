/**
 * Builds the event a function receives (design.md, "What a function receives (event v1)") from a batch of
 * consumed messages. {@link serializeEvent} is the hot path: it writes the JSON straight into one buffer of
 * exactly the right size, each body base64-encoded once, with no intermediate event object.
 */
import type { ConsumedMessage } from '../consumer/message-listener.js';
import type { RocketMQEvent, RocketMQRecord } from '../handler/types.js';
import { isSystemProperty, userProperties } from '../protocol/message.js';

/** Strings made only of these characters are their own JSON (between quotes), byte for byte. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

const COMMA = 0x2c;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
/** What closes a record after its body (`"}`) and the event after its records (`]}`). */
const RECORD_TAIL_BYTES = 2;
const EVENT_TAIL_BYTES = 2;

function jsonString(value: string): string {
  return PLAIN_JSON_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
}

function jsonUserProperties(properties: Readonly<Record<string, string>>): string {
  let json = '{';
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value === undefined || isSystemProperty(key)) continue;
    if (json.length > 1) json += ',';
    json += `${jsonString(key)}:${jsonString(value)}`;
  }
  return `${json}}`;
}

function jsonStringArray(values: readonly string[]): string {
  let json = '[';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) json += ',';
    json += jsonString(values[i] as string);
  }
  return `${json}]`;
}

/** A record's JSON up to and including the opening quote of its body (the body is the last field). */
function recordHead(consumed: ConsumedMessage): string {
  const m = consumed.message;
  return (
    `{"messageId":${jsonString(m.msgId)},"offsetMsgId":${jsonString(m.offsetMsgId)}` +
    `,"topic":${jsonString(consumed.topic)},"brokerName":${jsonString(consumed.queue.brokerName)}` +
    `,"queueId":${m.queueId},"queueOffset":${m.queueOffset}` +
    `,"tags":${m.tags === undefined ? 'null' : jsonString(m.tags)},"keys":${jsonStringArray(m.keys)}` +
    `,"properties":${jsonUserProperties(m.properties)}` +
    `,"bornTimestamp":${m.bornTimestamp},"storeTimestamp":${m.storeTimestamp}` +
    `,"bornHost":${jsonString(m.bornHost)},"storeHost":${jsonString(m.storeHost)}` +
    `,"reconsumeTimes":${m.reconsumeTimes},"body":"`
  );
}

function eventHead(consumerGroup: string): string {
  return `{"eventSource":"rocketmq","consumerGroup":${jsonString(consumerGroup)},"Records":[`;
}

/**
 * The length of the base64 encoding (with padding) of `byteLength` bytes.
 *
 * @example
 * ```ts
 * base64Length(5); // => 8
 * ```
 */
export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

/**
 * The record of one consumed message, as the function receives it. The topic is the message's real topic
 * (for a redelivery, not the retry topic it was read from); broker and queue are where it was read.
 *
 * @example
 * ```ts
 * const record = buildRecord(consumed);
 * record.body === consumed.message.body.toString('base64'); // => true
 * ```
 */
export function buildRecord(consumed: ConsumedMessage): RocketMQRecord {
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
    body: m.body.toString('base64'),
  };
}

/**
 * The event of one batch, as an object (for tests, logs and tools; invokes use {@link serializeEvent}).
 *
 * @example
 * ```ts
 * const event = buildEvent('orders-consumer', batch);
 * console.log(event.Records.map((r) => r.messageId));
 * ```
 */
export function buildEvent(consumerGroup: string, messages: readonly ConsumedMessage[]): RocketMQEvent {
  return { eventSource: 'rocketmq', consumerGroup, Records: messages.map(buildRecord) };
}

/**
 * The event of one batch as JSON in UTF-8: exactly `JSON.stringify(buildEvent(consumerGroup, messages))`
 * in meaning, built without the intermediate objects. Its length is
 * `estimateEventOverheadBytes(consumerGroup) + Σ estimateRecordBytes(m) - 1` for a non-empty batch.
 *
 * @example
 * ```ts
 * const payload = serializeEvent('orders-consumer', batch);
 * const outcome = await invoker.invoke({ functionRef, payload });
 * ```
 */
export function serializeEvent(consumerGroup: string, messages: readonly ConsumedMessage[]): Buffer {
  const head = eventHead(consumerGroup);
  const recordHeads = new Array<string>(messages.length);
  let totalBytes = Buffer.byteLength(head, 'utf8') + EVENT_TAIL_BYTES + Math.max(messages.length - 1, 0);
  for (let i = 0; i < messages.length; i++) {
    const consumed = messages[i] as ConsumedMessage;
    const recordJsonHead = recordHead(consumed);
    recordHeads[i] = recordJsonHead;
    totalBytes +=
      Buffer.byteLength(recordJsonHead, 'utf8') +
      base64Length(consumed.message.body.length) +
      RECORD_TAIL_BYTES;
  }
  const out = Buffer.allocUnsafe(totalBytes);
  let pos = out.write(head, 0, 'utf8');
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) out[pos++] = COMMA;
    pos += out.write(recordHeads[i] as string, pos, 'utf8');
    // base64 is ASCII: latin1 copies it byte for byte without UTF-8 encoding work.
    pos += out.write((messages[i] as ConsumedMessage).message.body.toString('base64'), pos, 'latin1');
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
 * The bytes one message adds to a serialized event: its record's JSON (base64 body included) plus the
 * separating comma. Exact, so a batch builder can respect a byte cap such as Lambda's 6 MB payload limit.
 *
 * @example
 * ```ts
 * let bytes = estimateEventOverheadBytes(group);
 * for (const m of candidates) {
 *   const recordBytes = estimateRecordBytes(m);
 *   if (bytes + recordBytes > maxPayloadBytes) break;
 *   bytes += recordBytes;
 *   batch.push(m);
 * }
 * ```
 */
export function estimateRecordBytes(message: ConsumedMessage): number {
  return (
    Buffer.byteLength(recordHead(message), 'utf8') +
    base64Length(message.message.body.length) +
    RECORD_TAIL_BYTES +
    1
  );
}

/**
 * The bytes of an event besides its records (the envelope with the consumer group).
 *
 * @example
 * ```ts
 * estimateEventOverheadBytes('g'); // => 59 (the length of serializeEvent('g', []))
 * ```
 */
export function estimateEventOverheadBytes(consumerGroup: string): number {
  return Buffer.byteLength(eventHead(consumerGroup), 'utf8') + EVENT_TAIL_BYTES;
}
