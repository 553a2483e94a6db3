/**
 * An optional observer of a function listener's invokes: how each ended and how long it took, and every
 * throttle an invoker waited out. Metrics (src/metrics) implement it; the invoke layer knows nothing of
 * them.
 */
import type { InvokeFailureKind } from './invoker.js';

/**
 * How one invoke ended: `success` (the function answered; per-message failures it reported are not an
 * invoke failure), an {@link InvokeFailureKind}, or `invoker-error` (the invoker threw, e.g. the function
 * does not exist: the mapping stops).
 */
export type InvokeResultKind = 'success' | InvokeFailureKind | 'invoker-error';

/**
 * One invoke, as the observer sees it.
 */
export interface InvokeObservation {
  readonly kind: InvokeResultKind;
  /** From the request to its outcome, throttle waits included. */
  readonly durationMs: number;
  /** Messages in the event. */
  readonly messages: number;
}

/**
 * Receives the invokes of a `FunctionMessageListener`. Every member is optional; a throwing observer is
 * logged and ignored.
 */
export interface InvokeObserver {
  invoked?(invoke: InvokeObservation): void;
  /** An invoke attempt was throttled (the invoker waits and tries again: not an invoke outcome). */
  throttled?(): void;
}
