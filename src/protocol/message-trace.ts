/**
 * RocketMQ's message trace records, as Apache's clients write them to the trace topic and as
 * `mqadmin queryMsgTraceById` and RocketMQ Dashboard read them: consume records (`SubBefore`, `SubAfter`)
 * encoded as UTF-8 text, and their packing into trace messages.
 *
 * ```
 * record   = field (U+0001 field)* U+0002
 * SubBefore: SubBefore, beginMs, regionId, group, requestId, msgId, reconsumeTimes, keys
 * SubAfter : SubAfter, requestId, msgId, costMs, success, keys, returnType, endMs, group
 * ```
 * A trace message's body is records back to back; its KEYS property lists the traced messages' ids and
 * their keys (the broker indexes KEYS, and the query looks the trace up by the message id). Readers
 * parse `SubAfter` by field count: 4.x readers take the end time from the 8th field, 5.x readers also
 * the group from the 9th (which `queryMsgTraceById` groups and prints by). See docs/message-trace.md.
 */

/** The trace topic when none is configured (the broker creates it with `traceTopicEnable=true`). */
export const DEFAULT_TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';
/** Between the fields of one record. */
export const TRACE_FIELD_SEPARATOR = '\u0001';
/** After each record. */
export const TRACE_RECORD_END = '\u0002';
/** The region when a message carries no `MSG_REGION` (the Java producer's default region). */
export const DEFAULT_TRACE_REGION = 'DefaultRegion';
/** Most bytes of one trace message's body (Apache's trace dispatcher's message size). */
export const MAX_TRACE_BODY_BYTES = 128_000;
/** Most records in one trace message (Apache's trace dispatcher batches at most 20). */
export const MAX_TRACE_RECORDS = 20;
/**
 * Most bytes of one trace message's KEYS property. A message's properties travel in a header field the
 * broker caps at 32,767 bytes; half of it leaves room for the other properties.
 */
export const MAX_TRACE_KEYS_BYTES = 16_000;

/** Java's `ConsumeReturnType`, by ordinal: the 7th field of a `SubAfter` record. */
export const ConsumeReturnType = {
  SUCCESS: 0,
  TIME_OUT: 1,
  EXCEPTION: 2,
  RETURNNULL: 3,
  FAILED: 4,
} as const;
/** One of {@link ConsumeReturnType}'s values. */
export type ConsumeReturnTypeCode = (typeof ConsumeReturnType)[keyof typeof ConsumeReturnType];

/** The consumption of one message began. */
export interface SubBeforeRecord {
  readonly beginMs: number;
  readonly regionId: string;
  readonly group: string;
  /** One id per consumed batch, shared by the batch's `SubBefore` and `SubAfter` records. */
  readonly requestId: string;
  readonly msgId: string;
  readonly reconsumeTimes: number;
  /** The message's KEYS property as stored (space-separated), `undefined` when it has none. */
  readonly keys: string | undefined;
}

/** The consumption of one message ended. */
export interface SubAfterRecord {
  readonly requestId: string;
  readonly msgId: string;
  /** The batch's time divided by its size, as Apache's clients count it. */
  readonly costMs: number;
  readonly success: boolean;
  readonly keys: string | undefined;
  readonly returnType: ConsumeReturnTypeCode;
  readonly endMs: number;
  readonly group: string;
}

/** One encoded record and the keys the trace message must carry for it. */
export interface EncodedTraceRecord {
  /** The record's text, U+0002 included. */
  readonly text: string;
  /** Its UTF-8 length. */
  readonly bytes: number;
  /** The traced message's id and each of its keys. */
  readonly keys: readonly string[];
  /** What `keys` add to a KEYS property at most: their UTF-8 bytes, a separator each. */
  readonly keysBytes: number;
}

/** One trace message: its body and its KEYS property (space-separated, no duplicates). */
export interface TraceMessage {
  readonly body: Buffer;
  readonly keys: string;
  readonly records: number;
}

/** A record of `text` (U+0002 included) for the message `msgId` with KEYS `keys`. */
function encoded(text: string, msgId: string, keys: string | undefined): EncodedTraceRecord {
  const list = traceKeys(msgId, keys);
  let keysBytes = 0;
  for (const key of list) keysBytes += Buffer.byteLength(key, 'utf8') + 1;
  return { text, bytes: Buffer.byteLength(text, 'utf8'), keys: list, keysBytes };
}

/** The message id and its keys (KEYS split on spaces), as a trace message lists them. */
function traceKeys(msgId: string, keys: string | undefined): string[] {
  if (keys === undefined || keys === '') return [msgId];
  if (!keys.includes(' ')) return [msgId, keys];
  const out = [msgId];
  for (const key of keys.split(' ')) if (key !== '') out.push(key);
  return out;
}

const F = TRACE_FIELD_SEPARATOR;
const E = TRACE_RECORD_END;

/**
 * Encodes a `SubBefore` record (8 fields; keys `null` when absent, as Java prints a null).
 */
export function encodeSubBefore(record: SubBeforeRecord): EncodedTraceRecord {
  const r = record;
  const text = `SubBefore${F}${r.beginMs}${F}${r.regionId}${F}${r.group}${F}${r.requestId}${F}${r.msgId}${F}${r.reconsumeTimes}${F}${r.keys ?? 'null'}${E}`;
  return encoded(text, r.msgId, r.keys);
}

/**
 * Encodes a `SubAfter` record (9 fields: the 5.x layout, which 4.x readers also read).
 */
export function encodeSubAfter(record: SubAfterRecord): EncodedTraceRecord {
  const r = record;
  const cost = Math.max(0, Math.round(r.costMs));
  const text = `SubAfter${F}${r.requestId}${F}${r.msgId}${F}${cost}${F}${r.success}${F}${r.keys ?? 'null'}${F}${r.returnType}${F}${r.endMs}${F}${r.group}${E}`;
  return encoded(text, r.msgId, r.keys);
}

/** Limits of {@link packTraceMessages}. */
export interface TracePackLimits {
  readonly maxRecords: number;
  readonly maxBodyBytes: number;
  readonly maxKeysBytes: number;
}

/** Apache's limits: 20 records, 128,000 body bytes, and our 16,000 bytes of KEYS. */
export const TRACE_PACK_LIMITS: TracePackLimits = {
  maxRecords: MAX_TRACE_RECORDS,
  maxBodyBytes: MAX_TRACE_BODY_BYTES,
  maxKeysBytes: MAX_TRACE_KEYS_BYTES,
};

/** What {@link packTraceMessages} made: the messages, and the records too large for any message. */
export interface PackedTrace {
  readonly messages: TraceMessage[];
  /** Records whose own text or keys pass a limit: never sent. */
  readonly oversized: number;
}

/**
 * Packs records, in order, into as few trace messages as the limits allow: each message holds at most
 * `maxRecords` records, `maxBodyBytes` of body and `maxKeysBytes` of KEYS.
 */
export function packTraceMessages(
  records: readonly EncodedTraceRecord[],
  limits: TracePackLimits = TRACE_PACK_LIMITS,
): PackedTrace {
  const messages: TraceMessage[] = [];
  let oversized = 0;
  let texts: string[] = [];
  let bodyBytes = 0;
  let keys = new Set<string>();
  let keysBytes = 0;
  const close = () => {
    if (texts.length === 0) return;
    messages.push({
      body: Buffer.from(texts.join(''), 'utf8'),
      keys: [...keys].join(' '),
      records: texts.length,
    });
    texts = [];
    bodyBytes = 0;
    keys = new Set();
    keysBytes = 0;
  };
  for (const record of records) {
    if (record.bytes > limits.maxBodyBytes || record.keysBytes > limits.maxKeysBytes) {
      oversized++;
      continue;
    }
    if (
      texts.length >= limits.maxRecords ||
      bodyBytes + record.bytes > limits.maxBodyBytes ||
      (keysBytes + record.keysBytes > limits.maxKeysBytes &&
        keysBytes + keysLength(record.keys, keys) > limits.maxKeysBytes)
    ) {
      close();
    }
    texts.push(record.text);
    bodyBytes += record.bytes;
    for (const key of record.keys) {
      if (keys.has(key)) continue;
      keys.add(key);
      keysBytes += Buffer.byteLength(key, 'utf8') + 1;
    }
  }
  close();
  return { messages, oversized };
}

/** UTF-8 bytes the keys not yet in `present` add to a space-separated list. */
function keysLength(keys: readonly string[], present: ReadonlySet<string>): number {
  let bytes = 0;
  const seen = new Set<string>();
  for (const key of keys) {
    if (present.has(key) || seen.has(key)) continue;
    seen.add(key);
    bytes += Buffer.byteLength(key, 'utf8') + 1;
  }
  return bytes;
}
