/**
 * Rate-limited warnings for conditions that repeat while they last (a broker refusing every pull, a
 * table that cannot be written): the first occurrence is logged at once, then at most one line per key
 * and interval, carrying how many were held back meanwhile. An operator sees what is wrong without a
 * line per queue per second.
 */
import type { Logger } from './logger.js';

/** One line per key at most this often, unless told otherwise. */
export const DEFAULT_LOG_INTERVAL_MS = 30_000;

interface KeyState {
  lastLoggedMs: number;
  suppressed: number;
}

/**
 * Throttles log lines by key.
 *
 * @example
 * ```ts
 * const warnings = new ThrottledLog(log);
 * warnings.warn(`pull:${queueKey}`, { err, queue }, 'pull failed'); // logged
 * warnings.warn(`pull:${queueKey}`, { err, queue }, 'pull failed'); // held back for 30 s, then counted
 * ```
 */
export class ThrottledLog {
  private readonly states = new Map<string, KeyState>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number = DEFAULT_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  warn(key: string, fields: Record<string, unknown>, message: string): void {
    this.emit('warn', key, fields, message);
  }

  error(key: string, fields: Record<string, unknown>, message: string): void {
    this.emit('error', key, fields, message);
  }

  /** Forgets `key`: its next occurrence is logged at once (call it when the condition cleared). */
  clear(key: string): void {
    this.states.delete(key);
  }

  private emit(level: 'warn' | 'error', key: string, fields: Record<string, unknown>, message: string): void {
    const nowMs = this.now();
    const state = this.states.get(key);
    if (state !== undefined && nowMs - state.lastLoggedMs < this.intervalMs) {
      state.suppressed++;
      return;
    }
    const suppressed = state?.suppressed ?? 0;
    this.states.set(key, { lastLoggedMs: nowMs, suppressed: 0 });
    if (this.states.size > 10_000) this.states.delete(this.states.keys().next().value as string);
    this.log[level](suppressed > 0 ? { ...fields, suppressed } : fields, message);
  }
}
