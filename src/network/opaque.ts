/**
 * Request ids (`opaque`). Java uses one process-wide `int` counter that starts at 0 and wraps; we do the
 * same, and skip values still in flight on the connection asking, so opaques stay unique per connection.
 */

/**
 * An incrementing int32 counter that wraps from 2147483647 to -2147483648.
 */
export class OpaqueCounter {
  private value: number;

  /** @param start the first value handed out (default 0, as in Java). */
  constructor(start = 0) {
    this.value = start | 0;
  }

  /**
   * The next value for which `inUse` is false. `inUse` must be false for at least one value (a
   * connection caps its in-flight requests far below 2^32).
   */
  next(inUse: (opaque: number) => boolean = () => false): number {
    for (;;) {
      const candidate = this.value;
      this.value = (this.value + 1) | 0;
      if (!inUse(candidate)) return candidate;
    }
  }
}

/**
 * The process-wide counter every {@link Connection} draws from.
 */
export const processOpaqueCounter = new OpaqueCounter();
