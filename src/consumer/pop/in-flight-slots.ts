/**
 * The POP consumer's flow control: a pop takes a slot before it asks the broker and the batch gives it
 * back once settled, so no more than `limit` batches are ever popped-and-unsettled. Waiting here rather
 * than holding messages matters with POP: a popped message's invisible time runs from the pop.
 */

/**
 * A counting semaphore whose waits end when a signal aborts.
 */
export class InFlightSlots {
  private used = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Slots taken now. */
  get inUse(): number {
    return this.used;
  }

  /** Resolves true once a slot is taken, or false when `signal` aborts first (no slot is then taken). */
  async acquire(signal: AbortSignal): Promise<boolean> {
    while (this.used >= this.limit) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal.removeEventListener('abort', wake);
          const index = this.waiters.indexOf(wake);
          if (index >= 0) this.waiters.splice(index, 1);
          resolve();
        };
        this.waiters.push(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
    if (signal.aborted) return false;
    this.used++;
    return true;
  }

  /** Gives a slot back and wakes one waiter. */
  release(): void {
    this.used = Math.max(0, this.used - 1);
    this.waiters[0]?.();
  }
}
