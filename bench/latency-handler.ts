/**
 * The Lambda handler of the latency scenario's `ours-function` line, run by the LocalInvoker inside
 * latency-child.ts: for every measured record it notes how long ago the producer handed it over (its
 * {@link SENT_AT_PROPERTY}) and how long ago the broker stored it (`storeTimestamp`), both against one
 * clock reading taken as the handler is entered (the whole batch arrived at that moment), in ms with µs
 * precision ({@link epochMicros}; `storeTimestamp` itself is whole ms). The child
 * imports this same module (same file URL, so the same module instance) to read what was noted.
 */
import { epochMicros, MEASURED_PHASE, PHASE_PROPERTY, SENT_AT_PROPERTY } from './steady-producer.js';

/** What a latency record carries that the handler reads. */
interface LatencyRecord {
  readonly properties?: Readonly<Record<string, string>>;
  readonly storeTimestamp?: number;
}

const sentToHandlerMs: number[] = [];
const storeToHandlerMs: number[] = [];
let onRecorded: (count: number) => void = () => undefined;

/**
 * Notes the latencies of the batch's measured records and returns an empty partial-batch response.
 *
 * @example
 * ```ts
 * await handler({ Records: [] }); // => { batchItemFailures: [] }
 * ```
 */
export async function handler(event: { Records?: LatencyRecord[] }): Promise<{ batchItemFailures: [] }> {
  const nowUs = epochMicros();
  if (!Array.isArray(event.Records)) throw new Error('the event has no Records array');
  let measured = 0;
  for (const record of event.Records) {
    const properties = record.properties ?? {};
    if (properties[PHASE_PROPERTY] !== MEASURED_PHASE) continue;
    sentToHandlerMs.push((nowUs - Number(properties[SENT_AT_PROPERTY])) / 1000);
    storeToHandlerMs.push(nowUs / 1000 - (record.storeTimestamp ?? Number.NaN));
    measured++;
  }
  if (measured > 0) onRecorded(sentToHandlerMs.length);
  return { batchItemFailures: [] };
}

/**
 * The latencies noted so far (ms), in arrival order.
 *
 * @example
 * ```ts
 * const { sentToHandlerMs } = recordedLatencies();
 * ```
 */
export function recordedLatencies(): {
  sentToHandlerMs: readonly number[];
  storeToHandlerMs: readonly number[];
} {
  return { sentToHandlerMs, storeToHandlerMs };
}

/**
 * Calls `listener` with the count of measured records after every batch that had some.
 *
 * @example
 * ```ts
 * onLatencyRecorded((count) => { if (count >= expected) done(); });
 * ```
 */
export function onLatencyRecorded(listener: (count: number) => void): void {
  onRecorded = listener;
}
