/**
 * What a mapping's filter criteria (`filters`, src/filter) see of a message: the record the function would
 * receive (docs/writing-a-handler.md, "The event"), same field names and values, without its `body` (the
 * filter reads the message body itself, as JSON, when a pattern looks inside it). So a pattern is written
 * against the record the function gets: `{"tags": ["paid"]}`, `{"properties": {"region": ["eu"]}}`.
 */
import type { ConsumedMessage } from '../consumer/message-listener.js';
import { userProperties } from '../protocol/message.js';

/**
 * The record fields of `consumed` as plain JSON values (the filter's metadata): `messageId`,
 * `offsetMsgId`, `topic` (the real topic, also for a redelivery), `brokerName`, `queueId`, `queueOffset`,
 * `tags` (null when none), `keys`, `properties` (user properties only), `bornTimestamp`,
 * `storeTimestamp`, `bornHost`, `storeHost`, `reconsumeTimes`.
 */
export function filterRecord(consumed: ConsumedMessage): Record<string, unknown> {
  const m = consumed.message;
  return {
    messageId: m.msgId,
    offsetMsgId: m.offsetMsgId,
    topic: consumed.topic,
    brokerName: consumed.queue.brokerName,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    tags: m.tags ?? null,
    keys: m.keys,
    properties: userProperties(m.properties),
    bornTimestamp: m.bornTimestamp,
    storeTimestamp: m.storeTimestamp,
    bornHost: m.bornHost,
    storeHost: m.storeHost,
    reconsumeTimes: m.reconsumeTimes,
  };
}
