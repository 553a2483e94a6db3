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
 * const values: RecordHeadValues = new MessageHeadValues(consumed, '{}');
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
 * The head values of `consumed`'s record, read once at construction; `propertiesJson` is the JSON of
 * its user properties (the event builder's userPropertiesJson). A class rather than a function that
 * returns an object, so that a measured record (event-builder.ts) extends it: one object per message
 * holds both its values and its measurements.
 *
 * @example
 * ```ts
 * const values = new MessageHeadValues(consumed, '{"color":"red"}');
 * ```
 */
export class MessageHeadValues implements RecordHeadValues {
  readonly messageId: string;
  readonly offsetMsgId: string;
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly tags: string | null;
  readonly keys: readonly string[];
  readonly propertiesJson: string;
  readonly bornTimestamp: number;
  readonly storeTimestamp: number;
  readonly bornHost: string;
  readonly storeHost: string;
  readonly reconsumeTimes: number;

  constructor(consumed: ConsumedMessage, propertiesJson: string) {
    const m = consumed.message;
    this.messageId = m.msgId;
    this.offsetMsgId = m.offsetMsgId;
    this.topic = consumed.topic;
    this.brokerName = consumed.queue.brokerName;
    this.queueId = m.queueId;
    this.queueOffset = m.queueOffset;
    this.tags = m.tags ?? null;
    this.keys = m.keys;
    this.propertiesJson = propertiesJson;
    this.bornTimestamp = m.bornTimestamp;
    this.storeTimestamp = m.storeTimestamp;
    this.bornHost = m.bornHost;
    this.storeHost = m.storeHost;
    this.reconsumeTimes = m.reconsumeTimes;
  }
}
