/**
 * The event of a batch as the object a handler gets from `JSON.parse` of its serialized bytes, built
 * without those bytes: for an invoker that runs the handler in-process (the LocalInvoker), which would
 * otherwise decode and parse the whole payload of every invoke only to rebuild what the layouts already
 * hold (a payload of 100 records of 1 KiB is over V8's 128 KiB limit for ordinary strings, and decoding
 * and parsing it took a third of the function path's time).
 *
 * Why the objects equal the parse: every record is built from the values its JSON head was written
 * from (a RecordLayout is its RecordHeadValues), in the key order of the JSON, and
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

import type { TraceCarrier } from '../handler/trace-context.js';
import type { RocketMQEvent, RocketMQRecord } from '../handler/types.js';
import type { RecordLayout } from './event-builder.js';

/**
 * A fresh event object deep-equal to `JSON.parse(serializeLayouts(consumerGroup, layouts).toString())`:
 * the same keys in the same order, plain objects and arrays with their ordinary prototypes, nothing
 * shared with an earlier call or with the messages but immutable strings.
 */
export function parsedEvent(consumerGroup: string, layouts: readonly RecordLayout[]): RocketMQEvent {
  return { eventSource: 'rocketmq', consumerGroup, Records: layouts.map(parsedRecord) };
}

/**
 * The record of one layout, made by one object literal with the body fields last, in the JSON's order:
 * a record built without its body and given it afterwards would take a second allocation (V8 keeps the
 * fields added after a literal outside the object) and a change of its shape on every record.
 */
function parsedRecord(v: RecordLayout): RocketMQRecord {
  if (v.traceContext !== undefined) return parsedTracedRecord(v, v.traceContext);
  if (v.encoding === 'utf8') {
    return {
      messageId: v.messageId,
      offsetMsgId: v.offsetMsgId,
      topic: v.topic,
      brokerName: v.brokerName,
      queueId: jsonNumber(v.queueId),
      queueOffset: jsonNumber(v.queueOffset),
      tags: v.tags,
      keys: parsedKeys(v.keys),
      properties: parsedProperties(v.propertiesJson),
      bornTimestamp: jsonNumber(v.bornTimestamp),
      storeTimestamp: jsonNumber(v.storeTimestamp),
      bornHost: v.bornHost,
      storeHost: v.storeHost,
      reconsumeTimes: jsonNumber(v.reconsumeTimes),
      bodyEncoding: 'utf8',
      body: v.body.toString('utf8'),
    };
  }
  return {
    messageId: v.messageId,
    offsetMsgId: v.offsetMsgId,
    topic: v.topic,
    brokerName: v.brokerName,
    queueId: jsonNumber(v.queueId),
    queueOffset: jsonNumber(v.queueOffset),
    tags: v.tags,
    keys: parsedKeys(v.keys),
    properties: parsedProperties(v.propertiesJson),
    bornTimestamp: jsonNumber(v.bornTimestamp),
    storeTimestamp: jsonNumber(v.storeTimestamp),
    bornHost: v.bornHost,
    storeHost: v.storeHost,
    reconsumeTimes: jsonNumber(v.reconsumeTimes),
    body: v.body.toString('base64'),
  };
}

/**
 * {@link parsedRecord} of a record with a trace context, which comes right before the body fields: one
 * literal per encoding again (a spread of the head's fields took a quarter of the traced path's time).
 */
function parsedTracedRecord(v: RecordLayout, carrier: TraceCarrier): RocketMQRecord {
  const traceContext: TraceCarrier =
    carrier.tracestate === undefined
      ? { traceparent: carrier.traceparent }
      : { traceparent: carrier.traceparent, tracestate: carrier.tracestate };
  if (v.encoding === 'utf8') {
    return {
      messageId: v.messageId,
      offsetMsgId: v.offsetMsgId,
      topic: v.topic,
      brokerName: v.brokerName,
      queueId: jsonNumber(v.queueId),
      queueOffset: jsonNumber(v.queueOffset),
      tags: v.tags,
      keys: parsedKeys(v.keys),
      properties: parsedProperties(v.propertiesJson),
      bornTimestamp: jsonNumber(v.bornTimestamp),
      storeTimestamp: jsonNumber(v.storeTimestamp),
      bornHost: v.bornHost,
      storeHost: v.storeHost,
      reconsumeTimes: jsonNumber(v.reconsumeTimes),
      traceContext,
      bodyEncoding: 'utf8',
      body: v.body.toString('utf8'),
    };
  }
  return {
    messageId: v.messageId,
    offsetMsgId: v.offsetMsgId,
    topic: v.topic,
    brokerName: v.brokerName,
    queueId: jsonNumber(v.queueId),
    queueOffset: jsonNumber(v.queueOffset),
    tags: v.tags,
    keys: parsedKeys(v.keys),
    properties: parsedProperties(v.propertiesJson),
    bornTimestamp: jsonNumber(v.bornTimestamp),
    storeTimestamp: jsonNumber(v.storeTimestamp),
    bornHost: v.bornHost,
    storeHost: v.storeHost,
    reconsumeTimes: jsonNumber(v.reconsumeTimes),
    traceContext,
    body: v.body.toString('base64'),
  };
}

/** A fresh array of the keys (the handler may change it). */
function parsedKeys(keys: readonly string[]): string[] {
  return keys.length === 0 ? [] : keys.slice();
}

/** A fresh object of the user properties, parsed from their JSON when there are any. */
function parsedProperties(propertiesJson: string): Record<string, string> {
  return propertiesJson === '{}' ? {} : (JSON.parse(propertiesJson) as Record<string, string>);
}

/** The number JSON.parse gives for `String(n)`: `n` itself, but 0 for -0. */
function jsonNumber(n: number): number {
  return n === 0 ? 0 : n;
}
