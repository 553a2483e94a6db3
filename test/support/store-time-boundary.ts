/**
 * A time between two sends, for tests of positions by time (AT_TIMESTAMP, `offsets reset --to <time>`,
 * SEARCH_OFFSET_BY_TIMESTAMP). The broker stamps each message with its store time in milliseconds,
 * taken from this host's clock before it acknowledges the send (the test broker is a local JVM), so
 * the clock moving past the moment of the last acknowledgement is the condition to wait for, not a
 * fixed sleep.
 */
import { waitFor } from './wait-for.js';

/**
 * Resolves with a time after the store time of every message acknowledged before the call, once this
 * host's clock has reached it: a message sent afterwards is stored at that time or later.
 *
 * @example
 * ```ts
 * await produce(producer, topic, 5); // stored before `at`
 * const at = await storeTimeBoundary();
 * await produce(producer, topic, 5); // stored at `at` or later
 * ```
 */
export async function storeTimeBoundary(): Promise<number> {
  // An acknowledged message was stored at Date.now() or earlier: the next millisecond is after it.
  const boundary = Date.now() + 1;
  return waitFor(
    'the clock to pass the store time of the messages sent so far',
    1_000,
    () => (Date.now() >= boundary ? boundary : undefined),
    { intervalMs: 1 },
  );
}
