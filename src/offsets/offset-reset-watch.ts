/**
 * The reset watch of a shared offset store: how a poller learns that an operator reset a queue it holds
 * (`rocketmq-lambda offsets reset`) when the queue is idle. A busy queue learns it at its next write (the
 * write is refused for its older generation, see offset-store.ts), but an idle queue writes nothing, so
 * without the watch it would never restart at the reset offset.
 *
 * Every {@link DEFAULT_RESET_WATCH_INTERVAL_MS} the store runs one scan: one Query of the group's items
 * (skipped while it holds no queue), comparing each held queue's stored generation with its own.
 *
 * Why 5 s: a reset reaches an idle queue within 5 s, about as late as it reaches a busy one (the default
 * persist interval is 5 s too). The cost: an eventually consistent Query of up to 4 KB of items (a group
 * of up to ~40 queues) is 0.5 read request unit, so one poller spends 0.1 RRU/s, about 260,000 RRU a
 * month (a few cents on demand; 0.1 RCU of provisioned capacity). A missed or stale read only delays
 * the discovery to the next scan.
 */
import type { Logger } from '../util/logger.js';

/** How often a poller's store looks for resets of the queues it holds. */
export const DEFAULT_RESET_WATCH_INTERVAL_MS = 5_000;

/**
 * Options of {@link OffsetResetWatch}.
 */
export interface OffsetResetWatchOptions {
  /** Time between the end of one scan and the start of the next. */
  readonly intervalMs: number;
  /** One scan: read the stored generations and adopt the newer ones. Its failures are logged. */
  readonly scan: () => Promise<void>;
  readonly log: Logger;
}

/**
 * Runs a store's reset scan periodically, one scan at a time, until stopped.
 */
export class OffsetResetWatch {
  readonly #options: OffsetResetWatchOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #failing = false;

  constructor(options: OffsetResetWatchOptions) {
    this.#options = options;
  }

  /** Schedules the first scan one interval from now. Idempotent; a stopped watch stays stopped. */
  start(): void {
    if (this.#stopped || this.#timer !== undefined || this.#running !== undefined) return;
    this.#schedule();
  }

  /** Stops scanning; resolves once a scan in progress has ended. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    const timer = setTimeout(() => {
      this.#timer = undefined;
      const running = this.#scan();
      this.#running = running;
      // #scan never rejects: it logs its own failures.
      void running.then(() => {
        if (this.#running === running) this.#running = undefined;
        if (!this.#stopped) this.#schedule();
      });
    }, this.#options.intervalMs);
    timer.unref();
    this.#timer = timer;
  }

  async #scan(): Promise<void> {
    try {
      await this.#options.scan();
      if (this.#failing) this.#options.log.info('offset reset watch works again');
      this.#failing = false;
    } catch (err) {
      // Logged once per failing stretch: the next scan tries again, and the store's writes report their own health.
      if (!this.#failing)
        this.#options.log.warn({ err }, 'offset reset watch: reading the stored offsets failed');
      this.#failing = true;
    }
  }
}
