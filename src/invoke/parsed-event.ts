/**
 * The event of a batch as the object a handler gets from `JSON.parse` of its serialized bytes, built
 * without those bytes: for an invoker that runs the handler in-process (the LocalInvoker), which would
 * otherwise decode and parse the whole payload of every invoke only to rebuild what the layouts already
 * hold (a payload of 100 records of 1 KiB is over V8's 128 KiB limit for ordinary strings, and decoding
 * and parsing it took a third of the function path's time).
 *
 * Why the objects equal the parse: every record is built from the values its JSON head was written
 * from (`RecordLayout.values`), in the key order of the JSON, and
 * - a string written by jsonString (JSON.stringify's escapes, lone surrogates escaped too) in UTF-8, or
 *   a base64 body, or a valid UTF-8 body written with JSON escapes, parses back to the very same string;
 * - a number is written by `String(n)`, which parses back to the same number for every finite number
 *   but -0 (written `0`, normalised here);
 * - the user properties are parsed from their own JSON text when there are any (JSON.parse makes
 *   `__proto__` an own property, as the handler's parse would);
 * - arrays and objects are made afresh on every call, so a handler that changes its event changes
 *   nothing another invoke (a bisected half, a retry) receives.
 * test/unit/invoke/parsed-event.test.ts compares the two forms on random batches.
 */

import type { RocketMQEvent, RocketMQRecord } from '../handler/types.js';
import type { RecordLayout } from './event-builder.js';
import type { RecordHeadValues } from './record-head-values.js';

/**
 * A fresh event object deep-equal to `JSON.parse(serializeLayouts(consumerGroup, layouts).toString())`:
 * the same keys in the same order, plain objects and arrays with their ordinary prototypes, nothing
 * shared with an earlier call or with the messages but immutable strings.
 *
 * @example
 * ```ts
 * const chunk = indexes.map((i) => plan.layouts[i] as RecordLayout);
 * await invoker.invoke({ functionRef, payload: serializeLayouts(group, chunk), event: () => parsedEvent(group, chunk) });
 * ```
 */
export function parsedEvent(consumerGroup: string, layouts: readonly RecordLayout[]): RocketMQEvent {
  const records: RocketMQRecord[] = [];
  for (let i = 0; i < layouts.length; i++) {
    const layout = layouts[i] as RecordLayout;
    const record = recordWithoutBody(layout.values);
    if (layout.encoding === 'utf8') {
      record.bodyEncoding = 'utf8';
      record.body = layout.body.toString('utf8');
    } else {
      record.body = layout.body.toString('base64');
    }
    records.push(record);
  }
  return { eventSource: 'rocketmq', consumerGroup, Records: records };
}

/** The record's fields before the body, in the JSON's order; the body fields are added after them. */
function recordWithoutBody(v: RecordHeadValues): RocketMQRecord {
  const record: Omit<RocketMQRecord, 'body'> = {
    messageId: v.messageId,
    offsetMsgId: v.offsetMsgId,
    topic: v.topic,
    brokerName: v.brokerName,
    queueId: jsonNumber(v.queueId),
    queueOffset: jsonNumber(v.queueOffset),
    tags: v.tags,
    keys: v.keys.slice(),
    properties: v.propertiesJson === '{}' ? {} : (JSON.parse(v.propertiesJson) as Record<string, string>),
    bornTimestamp: jsonNumber(v.bornTimestamp),
    storeTimestamp: jsonNumber(v.storeTimestamp),
    bornHost: v.bornHost,
    storeHost: v.storeHost,
    reconsumeTimes: jsonNumber(v.reconsumeTimes),
  };
  return record as RocketMQRecord;
}

/** The number JSON.parse gives for `String(n)`: `n` itself, but 0 for -0. */
function jsonNumber(n: number): number {
  return n === 0 ? 0 : n;
}
