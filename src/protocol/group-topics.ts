/**
 * The topics the broker keeps per consumer group: its retry topic (messages sent back for another try)
 * and its dead-letter topic (messages past the retry limit), named as the broker names them.
 */

/** The retry topic of a group. */
export function retryTopicOf(consumerGroup: string): string {
  return `%RETRY%${consumerGroup}`;
}

/** The dead-letter topic of a group. */
export function dlqTopicOf(consumerGroup: string): string {
  return `%DLQ%${consumerGroup}`;
}
