/**
 * The values of an event record's fields before its body, as a record layout (event-builder.ts) gives
 * them from its consumed message: the event builder writes its JSON head from them, and parsedEvent
 * (parsed-event.ts) builds the handler's record object from the same values.
 */

import type { TraceCarrier } from '../handler/trace-context.js';

/**
 * A record's fields before its body, as the event carries them (docs/writing-a-handler.md, "The event"),
 * with the user properties already as their JSON object text.
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
  /** The message's valid W3C trace context (message-trace-context.ts); undefined: the record has none. */
  readonly traceContext: TraceCarrier | undefined;
}
