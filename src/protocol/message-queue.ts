/**
 * MessageQueue: one queue of a topic on one broker, the unit of rebalancing, pulling and offsets.
 */
import { ProtocolError } from './errors.js';

/**
 * One queue of a topic on one broker group (Java `MessageQueue`).
 *
 * @example
 * ```ts
 * const mq: MessageQueue = { topic: 'TopicTest', brokerName: 'broker-a', queueId: 0 };
 * ```
 */
export interface MessageQueue {
  topic: string;
  brokerName: string;
  queueId: number;
}

/**
 * Compares two strings the way Java's `String.compareTo` does: by UTF-16 code units, not by locale.
 * Returns a negative number, zero or a positive number.
 */
export function compareJavaStrings(a: string, b: string): number {
  // JS relational operators on strings compare UTF-16 code units, exactly like Java.
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/**
 * Orders queues like Java `MessageQueue.compareTo`: by topic, then broker name (both in Java string
 * order), then numerically by queue id. Rebalance strategies rely on every client sorting the same way.
 */
export function compareMessageQueues(a: MessageQueue, b: MessageQueue): number {
  return (
    compareJavaStrings(a.topic, b.topic) ||
    compareJavaStrings(a.brokerName, b.brokerName) ||
    Math.sign(a.queueId - b.queueId)
  );
}

/**
 * A stable string key for a queue, `topic@brokerName@queueId`, for maps and stored offsets.
 * Topic names cannot contain `@` (the broker allows only `[%|a-zA-Z0-9_-]`).
 */
export function messageQueueKey(mq: MessageQueue): string {
  return `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
}

/**
 * Parses a key made by {@link messageQueueKey}. The topic ends at the first `@` and the queue id starts
 * after the last one, so a broker name containing `@` still round-trips. Throws {@link ProtocolError}
 * on a malformed key.
 */
export function parseMessageQueueKey(key: string): MessageQueue {
  const first = key.indexOf('@');
  const last = key.lastIndexOf('@');
  if (first <= 0 || last === first) {
    throw new ProtocolError(`message queue key ${JSON.stringify(key)} is not topic@brokerName@queueId`);
  }
  const queueIdText = key.slice(last + 1);
  if (!/^(0|[1-9]\d{0,9})$/.test(queueIdText) || Number(queueIdText) > 0x7fffffff) {
    throw new ProtocolError(`message queue key ${JSON.stringify(key)} has an invalid queue id`);
  }
  return { topic: key.slice(0, first), brokerName: key.slice(first + 1, last), queueId: Number(queueIdText) };
}
