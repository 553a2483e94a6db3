/**
 * Rate-limited log lines for conditions that repeat while they last (a broker refusing every pull, a
 * table that cannot be written) and for lines a remote peer can trigger at will (a flood of broker
 * requests): the first occurrence is logged at once, then at most one line per key and interval. Every
 * line stands for one occurrence plus its `suppressed` field: how many like it were held back since the
 * previous line. Nothing is lost from the count: when an interval ends with occurrences held back, the
 * latest of them is written then with the count of the others (so a flood that stops still reports its
 * size), and {@link ThrottledLog.clear} does the same before forgetting the key. An operator sees what is
 * wrong, and how often, without a line per queue per second.
 */
import type { Logger } from './logger.js';

/** One line per key at most this often, unless told otherwise. */
export const DEFAULT_LOG_INTERVAL_MS = 30_000;

/**
 * Keys remembered at most; past it the oldest is forgotten (its pending count written first). Callers
 * key by what they control (a queue, a request code they know), never by a value a peer chooses, so this
 * only guards against a caller's mistake.
 */
export const MAX_THROTTLED_KEYS = 10_000;

/** The levels a throttled line can have. */
export type ThrottledLevel = 'debug' | 'info' | 'warn' | 'error';

interface KeyState {
  lastLoggedMs: number;
  suppressed: number;
  /** The latest occurrence held back: what the line written at the end of the interval says. */
  level: ThrottledLevel;
  fields: Record<string, unknown>;
  message: string;
  /** Writes what was held back when the interval ends; set while something is. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * Throttles log lines by key.
 */
export class ThrottledLog {
  private readonly states = new Map<string, KeyState>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number = DEFAULT_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  debug(key: string, fields: Record<string, unknown>, message: string): void {
    this.emit('debug', key, fields, message);
  }

  info(key: string, fields: Record<string, unknown>, message: string): void {
    this.emit('info', key, fields, message);
  }

  warn(key: string, fields: Record<string, unknown>, message: string): void {
    this.emit('warn', key, fields, message);
  }

  error(key: string, fields: Record<string, unknown>, message: string): void {
    this.emit('error', key, fields, message);
  }

  /**
   * Forgets `key` (call it when the condition cleared): its next occurrence is logged at once. What was
   * held back for it, if anything, is written now.
   */
  clear(key: string): void {
    const state = this.states.get(key);
    if (state === undefined) return;
    this.states.delete(key);
    this.writeHeldBack(state);
  }

  /** Writes everything held back now and forgets every key (at shutdown, or in tests). */
  flush(): void {
    for (const key of [...this.states.keys()]) this.clear(key);
  }

  private emit(level: ThrottledLevel, key: string, fields: Record<string, unknown>, message: string): void {
    const nowMs = this.now();
    const state = this.states.get(key);
    if (state !== undefined && nowMs - state.lastLoggedMs < this.intervalMs) {
      state.suppressed++;
      state.level = level;
      state.fields = fields;
      state.message = message;
      state.timer ??= this.countTimer(key, state, state.lastLoggedMs + this.intervalMs - nowMs);
      return;
    }
    // A held-back count whose timer has not fired yet (a clock that jumped, or a timer late behind a
    // busy loop) rides on this line.
    const suppressed = state?.suppressed ?? 0;
    if (state?.timer !== undefined) clearTimeout(state.timer);
    this.states.delete(key);
    this.states.set(key, { lastLoggedMs: nowMs, suppressed: 0, level, fields, message, timer: undefined });
    if (this.states.size > MAX_THROTTLED_KEYS) {
      const oldest = this.states.keys().next().value as string;
      this.clear(oldest);
    }
    this.log[level](suppressed > 0 ? { ...fields, suppressed } : fields, message);
  }

  /**
   * At the end of the interval, writes what was held back for `key` and starts a new interval, so a
   * condition that goes on logs one line per interval and one that stopped reports its last count.
   */
  private countTimer(key: string, state: KeyState, delayMs: number): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        if (this.states.get(key) !== state) return;
        state.timer = undefined;
        if (state.suppressed === 0) return;
        state.lastLoggedMs = this.now();
        this.writeHeldBack(state);
      },
      Math.max(0, delayMs),
    );
    // A pending count never keeps the process alive.
    timer.unref();
    return timer;
  }

  /**
   * Writes the latest occurrence held back for `state`, if any, with the count of the others, and resets
   * the count. Like every line, it stands for itself plus its `suppressed`.
   */
  private writeHeldBack(state: KeyState): void {
    if (state.timer !== undefined) clearTimeout(state.timer);
    state.timer = undefined;
    const others = state.suppressed - 1;
    if (others < 0) return;
    state.suppressed = 0;
    this.log[state.level](others > 0 ? { ...state.fields, suppressed: others } : state.fields, state.message);
  }
}
