/**
 * The producer of the latency scenario: one message per `send` (as applications send), at a steady
 * rate, each carrying the moment it was handed to the producer (µs since the epoch, {@link epochMicros},
 * property {@link SENT_AT_PROPERTY}) and its phase (warm-up or measured, property {@link PHASE_PROPERTY}), so
 * that a consumer's handler can compute the delivery latency of every measured message.
 */
import type { Producer } from '../src/client/producer.js';
import { describeError } from '../src/util/describe-error.js';
import { benchMessageBody } from './message-body.js';

/**
 * The user property with the send time of a latency message, in µs since the epoch ({@link epochMicros}):
 * a delivery takes about a millisecond, so whole milliseconds (`Date.now()`) would round a p50 of 1.4 ms
 * to 1 or 2 depending on where the two clock ticks fell.
 *
 * @example
 * ```ts
 * const latencyMs = (epochMicros() - Number(record.properties[SENT_AT_PROPERTY])) / 1000;
 * ```
 */
export const SENT_AT_PROPERTY = 'benchSentAtUs';

/**
 * Microseconds since the epoch, from the process's high-resolution clock (`performance.timeOrigin` +
 * `performance.now()`, the wall clock taken at start plus a monotonic count). The Java latency peer reads
 * the same wall clock with `Instant.now()`.
 *
 * @example
 * ```ts
 * const sentAtUs = epochMicros();
 * ```
 */
export function epochMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
/**
 * The user property with the phase of a latency message: {@link MEASURED_PHASE} or `warmup`.
 *
 * @example
 * ```ts
 * if (record.properties[PHASE_PROPERTY] === MEASURED_PHASE) record(latencyMs);
 * ```
 */
export const PHASE_PROPERTY = 'benchPhase';
/**
 * The phase value of messages whose latency counts.
 *
 * @example
 * ```ts
 * const counts = record.properties[PHASE_PROPERTY] === MEASURED_PHASE;
 * ```
 */
export const MEASURED_PHASE = 'measured';
/** How often the schedule is caught up with: every tick sends what the rate owes since the last one. */
const TICK_MS = 2;
/**
 * Sends in flight at most (100 ms of the highest rate): a broker that stalls slows the producer down
 * instead of piling up sends that all fail and retry at once when the client closes the stuck connection.
 */
const MAX_IN_FLIGHT = 500;

/**
 * What {@link produceSteadily} sent.
 *
 * @example
 * ```ts
 * const { measuredSent, measuredRatePerSec } = await produceSteadily(producer, plan);
 * ```
 */
export interface SteadyProduceResult {
  readonly warmupSent: number;
  /** Exactly `ratePerSec * measureMs / 1000` (rounded down) unless a send failed (then it throws). */
  readonly measuredSent: number;
  /** Measured messages over the wall time of the measured phase: below the rate when sending lagged. */
  readonly measuredRatePerSec: number;
}

/**
 * Sends `ratePerSec` messages a second to `topic` (queues round-robin) for `warmupMs`, then for
 * `measureMs` with the measured phase, and resolves once every send was answered. Throws on the first
 * failed send (after the producer's own retries).
 *
 * @example
 * ```ts
 * await produceSteadily(producer, { topic, ratePerSec: 1000, warmupMs: 3000, measureMs: 20_000, messageBytes: 1024 });
 * ```
 */
export async function produceSteadily(
  producer: Producer,
  plan: { topic: string; ratePerSec: number; warmupMs: number; measureMs: number; messageBytes: number },
): Promise<SteadyProduceResult> {
  const warmup = await sendPhase(producer, plan, 'warmup', plan.warmupMs);
  const measured = await sendPhase(producer, plan, MEASURED_PHASE, plan.measureMs);
  return {
    warmupSent: warmup.sent,
    measuredSent: measured.sent,
    measuredRatePerSec: measured.sent / (measured.wallMs / 1000),
  };
}

async function sendPhase(
  producer: Producer,
  plan: { topic: string; ratePerSec: number; messageBytes: number },
  phase: string,
  durationMs: number,
): Promise<{ sent: number; wallMs: number }> {
  const total = Math.floor((plan.ratePerSec * durationMs) / 1000);
  const inFlight = new Set<Promise<unknown>>();
  let failure: unknown;
  let sent = 0;
  const startedAt = performance.now();
  while (sent < total && failure === undefined) {
    const due = Math.min(total, Math.floor(((performance.now() - startedAt) * plan.ratePerSec) / 1000));
    while (sent < due && inFlight.size < MAX_IN_FLIGHT) {
      const send = producer.send({
        topic: plan.topic,
        body: benchMessageBody(0, sent, plan.messageBytes),
        properties: { [SENT_AT_PROPERTY]: String(epochMicros()), [PHASE_PROPERTY]: phase },
      });
      sent++;
      inFlight.add(send);
      send.then(
        () => inFlight.delete(send),
        (error: unknown) => {
          inFlight.delete(send);
          failure ??= error;
        },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.allSettled(inFlight);
  if (failure !== undefined)
    throw new Error(`a ${phase} send failed: ${describeError(failure)}`, { cause: failure });
  return { sent, wallMs: performance.now() - startedAt };
}
