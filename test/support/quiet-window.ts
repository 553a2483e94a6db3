/**
 * Absence in tests: "nothing more happens" cannot be awaited, only watched for a while. Where no later
 * event proves that the system moved past the point (a marker sent after, a pull that returned, a
 * counter that advanced), a test watches a reading through a named window instead of sleeping, so that
 * the window's length and what it watches are explicit and a change fails at once. Real timers only.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect, isDeepStrictEqual } from 'node:util';

/** How often a window reads its value. */
const SAMPLE_MS = 10;

/**
 * Resolves after `windowMs` in which `read()` kept the value it had at the call (compared deeply);
 * rejects at the first change, naming `what` and both values.
 *
 * @example
 * ```ts
 * await stopped; // the command returned: no snapshot may follow
 * await expectQuietFor('the --watch snapshots', 1_500, () => snapshots());
 * ```
 */
export async function expectQuietFor<T>(what: string, windowMs: number, read: () => T): Promise<void> {
  const before = read();
  const endsAt = Date.now() + windowMs;
  for (;;) {
    const now = read();
    if (!isDeepStrictEqual(now, before)) {
      throw new Error(
        `${what} changed within a ${windowMs} ms quiet window: ${inspect(before)} -> ${inspect(now)}`,
      );
    }
    const leftMs = endsAt - Date.now();
    if (leftMs <= 0) return;
    await sleep(Math.min(SAMPLE_MS, leftMs));
  }
}

/**
 * Resolves with the value of `read()` once it has not changed for `windowMs` (compared deeply): for
 * activity that winds down by itself, with no event telling when it ended. Rejects after `timeoutMs`.
 *
 * @example
 * ```ts
 * const handledWhilePaused = await waitForQuiet('handled requests', { windowMs: 300, timeoutMs: 10_000 }, () => handled);
 * ```
 */
export async function waitForQuiet<T>(
  what: string,
  options: { windowMs: number; timeoutMs: number },
  read: () => T,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let value = read();
  let since = Date.now();
  for (;;) {
    await sleep(SAMPLE_MS);
    const now = read();
    if (!isDeepStrictEqual(now, value)) {
      value = now;
      since = Date.now();
    } else if (Date.now() - since >= options.windowMs) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what} did not stay unchanged for ${options.windowMs} ms within ${options.timeoutMs} ms (last ${inspect(value)})`,
      );
    }
  }
}
