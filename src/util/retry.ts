/**
 * The one retry helper: capped attempts, exponential backoff with full jitter, and an abort signal.
 * Callers decide what is retriable; by default only errors whose `retriable` flag is set.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Backoff settings. Every duration is in milliseconds. */
export interface RetryOptions {
  /** Attempts in total, the first included. @default 5 */
  maxAttempts?: number;
  /** Delay before the second attempt. @default 100 */
  initialDelayMs?: number;
  /** Upper bound of any single delay. @default 5000 */
  maxDelayMs?: number;
  /** Growth of the delay per attempt. @default 2 */
  multiplier?: number;
  /** Whether an error may be retried. @default error has `retriable === true` */
  isRetriable?: (error: unknown) => boolean;
  /** Called before each wait, e.g. to log or count. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  /** Stops waiting and rethrows the last error when aborted. */
  signal?: AbortSignal;
  /** Source of randomness for jitter (tests pass a fixed one). @default Math.random */
  random?: () => number;
}

/** True when `error` carries `retriable: true` (RocketMQError and its subclasses). */
export function hasRetriableFlag(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
}

/**
 * The delay before attempt `attempt + 1` (attempt counts from 1): full jitter over an exponential cap.
 */
export function backoffDelayMs(attempt: number, options: RetryOptions = {}): number {
  const initial = options.initialDelayMs ?? 100;
  const max = options.maxDelayMs ?? 5000;
  const multiplier = options.multiplier ?? 2;
  const cap = Math.min(max, initial * multiplier ** Math.max(0, attempt - 1));
  return Math.round(cap * (options.random ?? Math.random)());
}

/**
 * Runs `operation` until it succeeds, fails with a non-retriable error, or runs out of attempts;
 * then rethrows the last error.
 */
export async function retry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const isRetriable = options.isRetriable ?? hasRetriableFlag;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= maxAttempts || !isRetriable(error) || options.signal?.aborted) throw error;
      const delayMs = backoffDelayMs(attempt, options);
      options.onRetry?.(error, attempt, delayMs);
      try {
        await sleep(delayMs, undefined, options.signal ? { signal: options.signal } : undefined);
      } catch {
        throw error;
      }
    }
  }
}
