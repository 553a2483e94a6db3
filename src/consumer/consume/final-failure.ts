/**
 * Telling the listener about messages that failed for good (the broker took them for `%DLQ%<group>`),
 * the one way both consume services do it.
 */
import type { Logger } from '../../util/logger.js';
import type { ConsumedMessage, FinalFailureCause, MessageListener } from '../message-listener.js';

/** How many message ids a log line about a failed notification quotes. */
const MAX_LOGGED_IDS = 10;

/**
 * Calls the listener's optional `notifyFinalFailure` with `messages`; a rejection is logged, never
 * thrown (the messages are in the DLQ whatever the listener does with the news).
 */
export async function notifyFinalFailure(
  listener: MessageListener,
  messages: readonly ConsumedMessage[],
  reason: string,
  log: Logger,
  cause: FinalFailureCause = 'retries-exhausted',
): Promise<void> {
  if (messages.length === 0 || listener.notifyFinalFailure === undefined) return;
  try {
    await listener.notifyFinalFailure(messages, reason, cause);
  } catch (error) {
    log.error(
      {
        err: error,
        reason,
        messageIds: messages.slice(0, MAX_LOGGED_IDS).map((m) => m.message.msgId),
      },
      'final-failure notification failed',
    );
  }
}
