/**
 * The no-op Lambda handler of the `ours-function` bench line: it receives the RocketMQ event the poller
 * builds (after the LocalInvoker's JSON round trip, as in Lambda) and reports every record as a success.
 */

/**
 * Touches the batch (so that the event is really read) and returns an empty partial-batch response.
 *
 * @example
 * ```ts
 * await handler({ Records: [] }); // => { batchItemFailures: [] }
 * ```
 */
export async function handler(event: { Records?: unknown[] }): Promise<{ batchItemFailures: [] }> {
  if (!Array.isArray(event.Records)) throw new Error('the event has no Records array');
  return { batchItemFailures: [] };
}
