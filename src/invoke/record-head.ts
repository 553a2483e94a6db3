/**
 * A record's JSON head (its fields before the body, see record-head-values.ts) and its size in UTF-8.
 * The size is counted from the values without writing the head: a batch is measured for every invoke
 * (payload planning), while the head text is needed only when the payload bytes are written (an invoker
 * that runs the handler in-process takes the event as objects, see parsed-event.ts).
 */

import type { TraceCarrier } from '../handler/trace-context.js';
import { jsonString, jsonStringArray, jsonStringBytes } from './json-string.js';
import type { RecordHeadValues } from './record-head-values.js';

/**
 * The JSON string of the last value seen for a field that repeats from record to record (the topic, the
 * broker, the hosts of a batch), and its UTF-8 length: one comparison instead of a scan when it did not
 * change.
 */
class RepeatedJsonString {
  #value = '';
  #json = '""';
  #bytes = 2;

  json(value: string): string {
    if (value !== this.#value) this.#remember(value);
    return this.#json;
  }

  bytes(value: string): number {
    if (value !== this.#value) this.#remember(value);
    return this.#bytes;
  }

  #remember(value: string): void {
    this.#json = jsonString(value);
    this.#bytes = Buffer.byteLength(this.#json, 'utf8');
    this.#value = value;
  }
}

const topicJson = new RepeatedJsonString();
const brokerNameJson = new RepeatedJsonString();
const bornHostJson = new RepeatedJsonString();
const storeHostJson = new RepeatedJsonString();
const tagsJson = new RepeatedJsonString();

/**
 * A record's JSON up to the field that opens its body (the body fields are last), ending with the comma
 * after `reconsumeTimes`.
 */
export function recordHead(v: RecordHeadValues): string {
  return (
    `{"messageId":${jsonString(v.messageId)},"offsetMsgId":${jsonString(v.offsetMsgId)}` +
    `,"topic":${topicJson.json(v.topic)},"brokerName":${brokerNameJson.json(v.brokerName)}` +
    `,"queueId":${v.queueId},"queueOffset":${v.queueOffset}` +
    `,"tags":${v.tags === null ? 'null' : tagsJson.json(v.tags)},"keys":${v.keys.length === 0 ? '[]' : jsonStringArray(v.keys)}` +
    `,"properties":${v.propertiesJson}` +
    `,"bornTimestamp":${v.bornTimestamp},"storeTimestamp":${v.storeTimestamp}` +
    `,"bornHost":${bornHostJson.json(v.bornHost)},"storeHost":${storeHostJson.json(v.storeHost)}` +
    `,"reconsumeTimes":${v.reconsumeTimes},` +
    (v.traceContext === undefined ? '' : traceContextJson(v.traceContext))
  );
}

/** The `traceContext` field of a record that has one, with its comma (it comes right before the body). */
function traceContextJson(c: TraceCarrier): string {
  const state = c.tracestate === undefined ? '' : `,"tracestate":${jsonString(c.tracestate)}`;
  return `"traceContext":{"traceparent":${jsonString(c.traceparent)}${state}},`;
}

/** The bytes of a `traceContext` field besides its two values (`,"tracestate":` counted apart). */
const TRACE_LITERAL_BYTES = traceContextJson({ traceparent: '' }).length - 2;
const TRACESTATE_LITERAL_BYTES = ',"tracestate":'.length;

/** `Buffer.byteLength(traceContextJson(c))`: both values are ASCII (W3C), escapes counted. */
function traceContextBytes(c: TraceCarrier | undefined): number {
  if (c === undefined) return 0;
  const state = c.tracestate === undefined ? 0 : TRACESTATE_LITERAL_BYTES + jsonStringBytes(c.tracestate);
  return TRACE_LITERAL_BYTES + jsonStringBytes(c.traceparent) + state;
}

/** An upper bound of {@link traceContextBytes}, from the values' lengths. */
function traceContextBytesBound(c: TraceCarrier | undefined): number {
  if (c === undefined) return 0;
  const state =
    c.tracestate === undefined ? 0 : TRACESTATE_LITERAL_BYTES + jsonStringBytesBound(c.tracestate);
  return TRACE_LITERAL_BYTES + jsonStringBytesBound(c.traceparent) + state;
}

/** Values whose every field is written in its shortest form: 2 bytes per string, 1 per number. */
const SHORTEST: RecordHeadValues = {
  messageId: '',
  offsetMsgId: '',
  topic: '',
  brokerName: '',
  queueId: 0,
  queueOffset: 0,
  tags: null,
  keys: [],
  propertiesJson: '{}',
  bornTimestamp: 0,
  storeTimestamp: 0,
  bornHost: '',
  storeHost: '',
  reconsumeTimes: 0,
  traceContext: undefined,
};
/** The head's bytes besides its values: the shortest head less its values (6 strings, 5 numbers, null, [], {}). */
const LITERAL_BYTES = Buffer.byteLength(recordHead(SHORTEST), 'utf8') - (6 * 2 + 5 * 1 + 4 + 2 + 2);

/**
 * `Buffer.byteLength(recordHead(v), 'utf8')`, counted without writing the head.
 */
export function recordHeadBytes(v: RecordHeadValues): number {
  return (
    LITERAL_BYTES +
    jsonStringBytes(v.messageId) +
    jsonStringBytes(v.offsetMsgId) +
    topicJson.bytes(v.topic) +
    brokerNameJson.bytes(v.brokerName) +
    numberBytes(v.queueId) +
    numberBytes(v.queueOffset) +
    (v.tags === null ? 4 : tagsJson.bytes(v.tags)) +
    (v.keys.length === 0 ? 2 : Buffer.byteLength(jsonStringArray(v.keys), 'utf8')) +
    (v.propertiesJson.length === 2 ? 2 : Buffer.byteLength(v.propertiesJson, 'utf8')) +
    numberBytes(v.bornTimestamp) +
    numberBytes(v.storeTimestamp) +
    bornHostJson.bytes(v.bornHost) +
    storeHostJson.bytes(v.storeHost) +
    numberBytes(v.reconsumeTimes) +
    traceContextBytes(v.traceContext)
  );
}

/** 10, 100, ... 10^15: a safe integer has at most 16 digits. */
const POWERS_OF_TEN = Array.from({ length: 15 }, (_, i) => 10 ** (i + 1));

/**
 * The length of `String(n)` (ASCII), without making the string for the usual non-negative integer:
 * compared with powers of ten (a 13-digit timestamp took 12 divisions counted digit by digit).
 */
function numberBytes(n: number): number {
  if (!(Number.isSafeInteger(n) && n >= 0)) return String(n).length;
  let digits = 1;
  while (digits < 16 && n >= (POWERS_OF_TEN[digits - 1] as number)) digits++;
  return digits;
}

/**
 * The most UTF-8 bytes a JSON string of `value` takes: its quotes and, per UTF-16 unit, at most 6
 * (a `\uXXXX` escape is the longest form of one unit; a non-ASCII unit is at most 3 bytes, a
 * surrogate pair 4 for two).
 */
function jsonStringBytesBound(value: string): number {
  return 2 + 6 * value.length;
}

/**
 * The longest `String(n)` of any number: 25 characters (`-0.0000012345678901234567`: a sign, `0.`,
 * five zeros and 17 significant digits; the exponent forms, such as `-1.7976931348623157e+308`, are 24).
 */
export const NUMBER_CHARS_BOUND = 25;

/**
 * An upper bound of {@link recordHeadBytes}, from the values' lengths alone: no escaping is looked for
 * and no number is formatted. A batch whose bounds fit a payload fits it for certain, and is planned
 * without measuring each record (payload-splitter.ts).
 */
export function recordHeadBytesBound(v: RecordHeadValues): number {
  const keys = v.keys;
  let keysBound = 2;
  for (let i = 0; i < keys.length; i++) keysBound += jsonStringBytesBound(keys[i] as string) + 1;
  const tags = v.tags;
  return (
    LITERAL_BYTES +
    jsonStringBytesBound(v.messageId) +
    jsonStringBytesBound(v.offsetMsgId) +
    jsonStringBytesBound(v.topic) +
    jsonStringBytesBound(v.brokerName) +
    (tags === null ? 4 : jsonStringBytesBound(tags)) +
    keysBound +
    // JSON text already: each UTF-16 unit is at most 3 bytes of UTF-8.
    3 * v.propertiesJson.length +
    jsonStringBytesBound(v.bornHost) +
    jsonStringBytesBound(v.storeHost) +
    6 * NUMBER_CHARS_BOUND +
    traceContextBytesBound(v.traceContext)
  );
}
