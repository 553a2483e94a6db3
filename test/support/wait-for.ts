/**
 * Waiting on a condition in tests: vitest's `vi.waitFor` polls a callback until it stops throwing;
 * {@link waitFor} adds what the repository's tests need on top, a check that answers `undefined` for
 * "not yet" and a timeout error that names what was awaited.
 */
import { vi } from 'vitest';

/** How often the check runs while it answers "not yet", unless the caller says otherwise. */
const DEFAULT_POLL_INTERVAL_MS = 100;

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /**
   * Between two runs of the check: longer for a check that costs (reading a large file), shorter for
   * one that is cheap and awaited often.
   * @default 100
   */
  intervalMs?: number;
}

/**
 * Resolves with the first value of `check` other than `undefined`; a check that throws counts as
 * "not yet". Rejects after `timeoutMs` with an error naming `what`, the check's last error as `cause`.
 *
 * @example
 * ```ts
 * const route = await waitFor(`route of ${topic}`, 15_000, async () => {
 *   const route = await client.nameServer.getRoute(topic, { refresh: true });
 *   return route.queueDatas.length > 0 ? route : undefined;
 * });
 * ```
 */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined> | T | undefined,
  options: WaitForOptions = {},
): Promise<T> {
  try {
    return await vi.waitFor(
      async () => {
        const value = await check();
        if (value === undefined) throw new Error(`not yet: ${what}`);
        return value;
      },
      { timeout: timeoutMs, interval: options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS },
    );
  } catch (error) {
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: error });
  }
}
