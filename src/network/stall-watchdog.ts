/**
 * Notices a peer that stopped half-way through a frame. Frames are read in order, so a peer that sent a
 * length prefix and then nothing holds every later response behind that frame forever: no request on
 * the connection can complete, and TCP keep-alive still sees a healthy peer.
 */
import { performance } from 'node:perf_hooks';

/**
 * A timer that fires once no byte has arrived for `timeoutMs` while armed. Arrivals only record a
 * timestamp; the one timer re-arms itself for the remainder when it finds that bytes kept coming, so a
 * steady stream costs no timer churn.
 */
export class StallWatchdog {
  private readonly timeoutMs: number;
  private readonly onStall: () => void;
  private lastByteAtMs = performance.now();
  private timer: NodeJS.Timeout | undefined;

  /** `onStall` runs at most once per arming, after `timeoutMs` without {@link StallWatchdog.touch}. */
  constructor(timeoutMs: number, onStall: () => void) {
    this.timeoutMs = timeoutMs;
    this.onStall = onStall;
  }

  /** Bytes arrived (or the wait starts over, e.g. after we resumed reading): the clock restarts. */
  touch(): void {
    this.lastByteAtMs = performance.now();
  }

  /** Watches while `partial` (a frame is incomplete), stops watching otherwise. */
  arm(partial: boolean): void {
    if (!partial) {
      this.stop();
      return;
    }
    this.timer ??= setTimeout(() => this.onTimer(), this.timeoutMs);
  }

  /** Stops watching until the next {@link StallWatchdog.arm}. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private onTimer(): void {
    const idleMs = performance.now() - this.lastByteAtMs;
    if (idleMs < this.timeoutMs) {
      this.timer = setTimeout(() => this.onTimer(), this.timeoutMs - idleMs);
      return;
    }
    this.timer = undefined;
    this.onStall();
  }
}
