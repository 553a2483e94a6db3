/**
 * The resident memory of a child process over time, read from `/proc/<pid>/status` (VmRSS): what a
 * peer sending absurd sizes would make grow first.
 */
import { readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';

const DEFAULT_INTERVAL_MS = 500;
const KiB = 1024;

/**
 * The VmRSS of `pid` in bytes, or undefined once the process is gone.
 *
 * @example
 * ```ts
 * const bytes = residentBytes(poller.child.pid ?? 0);
 * ```
 */
export function residentBytes(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) * KiB;
}

/**
 * Samples the VmRSS of the processes given to {@link RssSampler.watch} every `intervalMs`, keeping the
 * peak; stopped at the latest when the test ends.
 *
 * @example
 * ```ts
 * const rss = new RssSampler();
 * rss.watch(poller.child.pid ?? 0);
 * // ... the fault
 * rss.stop();
 * expect(rss.peakBytes).toBeLessThan(300 * 1024 * 1024);
 * ```
 */
export class RssSampler {
  /** The highest VmRSS seen, in bytes. */
  peakBytes = 0;
  /** How many readings were taken. */
  samples = 0;
  readonly #pids = new Set<number>();
  readonly #timer: NodeJS.Timeout;

  constructor(options: { intervalMs?: number } = {}) {
    this.#timer = setInterval(() => this.sample(), options.intervalMs ?? DEFAULT_INTERVAL_MS);
    onTestFinished(() => this.stop());
  }

  /** Samples `pid` from now on (until it is gone). */
  watch(pid: number | undefined): void {
    if (pid === undefined) throw new Error('the process has no pid (it did not start)');
    this.#pids.add(pid);
    this.sample();
  }

  /** Takes one reading of every watched process now. */
  sample(): void {
    for (const pid of this.#pids) {
      const bytes = residentBytes(pid);
      if (bytes === undefined) {
        this.#pids.delete(pid);
        continue;
      }
      this.samples++;
      if (bytes > this.peakBytes) this.peakBytes = bytes;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
