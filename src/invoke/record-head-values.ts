/**
 * The values of an event record's fields before its body, read from a consumed message once: the event
 * builder writes its JSON head from them, and parsedEvent (parsed-event.ts) builds the handler's record
 * object from the same values, so that both forms of one event agree even if the message changed between.
 */

import type { ConsumedMessage } from '../consumer/message-listener.js';

/**
 * A record's fields before its body, as the event carries them (docs/writing-a-handler.md, "The event"),
 * with the user properties already as their JSON object text.
 *
 * @example
 * ```ts
 * const values: RecordHeadValues = recordHeadValues(consumed);
 * console.log(values.messageId, values.propertiesJson);
 * ```
 */
export interface RecordHeadValues {
  readonly messageId: string;
  readonly offsetMsgId: string;
  /** The message's real topic (for a redelivery, not the retry topic it was read from). */
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly tags: string | null;
  readonly keys: readonly string[];
  /** The user properties, a JSON object. */
  readonly propertiesJson: string;
  readonly bornTimestamp: number;
  readonly storeTimestamp: number;
  readonly bornHost: string;
  readonly storeHost: string;
  readonly reconsumeTimes: number;
}

/**
 * Reads the head values of `consumed`'s record; `propertiesJson` is the JSON of its user properties
 * (the event builder's userPropertiesJson).
 *
 * @example
 * ```ts
 * const values = recordHeadValues(consumed, '{"color":"red"}');
 * ```
 */
export function recordHeadValues(consumed: ConsumedMessage, propertiesJson: string): RecordHeadValues {
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
    propertiesJson,
    bornTimestamp: m.bornTimestamp,
    storeTimestamp: m.storeTimestamp,
    bornHost: m.bornHost,
    storeHost: m.storeHost,
    reconsumeTimes: m.reconsumeTimes,
  };
}
