/**
 * An optional observer of a consumer runtime's events that no counter records: the time each pull took.
 * Metrics (src/metrics) implement it; the consumer knows nothing of them.
 */
import type { MessageQueue } from '../protocol/message-queue.js';

/**
 * One pull, as the observer sees it: how long the request took (a long poll waits up to the broker's
 * suspend time when there is nothing new) and whether it was answered.
 */
export interface PullObservation {
  readonly queue: MessageQueue;
  readonly durationMs: number;
  /** False when the pull failed (network, broker error). */
  readonly answered: boolean;
}

/**
 * Receives events of a consumer runtime. Every member is optional; a throwing observer is logged and
 * ignored by the caller.
 */
export interface ConsumerObserver {
  pullCompleted?(pull: PullObservation): void;
}
