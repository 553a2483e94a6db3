/**
 * Waiting for a poller that is expected to end by itself (a refusal, a fatal error) rather than by a
 * signal from the test.
 */
import type { ChildExit } from '../cli/poller-process.js';
import type { PollerSeries } from './fault-scenario.js';

/**
 * Waits up to `timeoutMs` for the running poller of `series` to exit by itself: its exit (kept in
 * `series.outcomes`, as {@link PollerSeries.end} keeps it), or undefined when it still runs.
 *
 * @example
 * ```ts
 * poller.start();
 * const exit = await exitWithin(poller, 30_000); // => { code: 1, signal: null }
 * ```
 */
export async function exitWithin(series: PollerSeries, timeoutMs: number): Promise<ChildExit | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const exited = await Promise.race([
    series.current.exited,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (exited === undefined) return undefined;
  // The process is gone: end() signals nothing and records the exit it already had.
  return series.end('SIGTERM');
}
