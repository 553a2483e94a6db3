/**
 * How an orderly consume service reads a listener result's suspend time: Java's clamp.
 * (Which records a result fails: `failed-indexes.ts`, `dead-letter-indexes.ts`.)
 */

/**
 * `suspendCurrentQueueTimeMs` clamped to Java's 10..30,000 ms.
 */
export function clampSuspendTimeMs(ms: number): number {
  return Math.min(30_000, Math.max(10, ms));
}
