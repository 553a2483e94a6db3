import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../../src/util/logger.js';
import { MAX_THROTTLED_KEYS, ThrottledLog } from '../../../src/util/throttled-log.js';

function recorder() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const line = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push({ level, fields, message });
  const log = {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
  } as unknown as Logger;
  return { log, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ThrottledLog', () => {
  it('logs the first occurrence, then one line per key and interval with the count held back', () => {
    const { log, lines } = recorder();
    let now = 0;
    const throttled = new ThrottledLog(log, 30_000, () => now);
    throttled.warn('pull:q0', { queue: 0 }, 'pull failed');
    for (let i = 0; i < 100; i++) throttled.warn('pull:q0', { queue: 0 }, 'pull failed');
    throttled.warn('pull:q1', { queue: 1 }, 'pull failed');
    now = 30_000;
    throttled.error('pull:q0', { queue: 0 }, 'pull failed');
    expect(lines).toEqual([
      { level: 'warn', fields: { queue: 0 }, message: 'pull failed' },
      { level: 'warn', fields: { queue: 1 }, message: 'pull failed' },
      { level: 'error', fields: { queue: 0, suppressed: 100 }, message: 'pull failed' },
    ]);
  });

  it('logs at once again after clear() (the condition went away and came back)', () => {
    const { log, lines } = recorder();
    const throttled = new ThrottledLog(log, 30_000, () => 0);
    throttled.warn('k', {}, 'x');
    throttled.clear('k');
    throttled.warn('k', {}, 'x');
    expect(lines).toHaveLength(2);
  });

  it('writes what was held back when the interval ends, even when no occurrence follows', () => {
    vi.useFakeTimers();
    const { log, lines } = recorder();
    const throttled = new ThrottledLog(log, 1000);
    throttled.info('ids', { consumerGroup: 'G', n: 0 }, 'consumer ids changed');
    for (let n = 1; n <= 500; n++) throttled.info('ids', { consumerGroup: 'G', n }, 'consumer ids changed');
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(999);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual([
      { level: 'info', fields: { consumerGroup: 'G', n: 0 }, message: 'consumer ids changed' },
      // The latest occurrence held back, written late, with the count of the others.
      {
        level: 'info',
        fields: { consumerGroup: 'G', n: 500, suppressed: 499 },
        message: 'consumer ids changed',
      },
    ]);
    // The count line opened a new interval: a flood that goes on keeps one line per interval.
    for (let n = 501; n <= 700; n++) throttled.info('ids', { consumerGroup: 'G', n }, 'consumer ids changed');
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(1000);
    expect(lines).toHaveLength(3);
    expect(lines[2]?.fields).toEqual({ consumerGroup: 'G', n: 700, suppressed: 199 });
    // Every line stands for itself and its count: nothing lost.
    expect(lines.reduce((sum, line) => sum + 1 + Number(line.fields.suppressed ?? 0), 0)).toBe(701);
    // Quiet: no more lines, and the next occurrence after a quiet interval is logged at once.
    vi.advanceTimersByTime(5000);
    expect(lines).toHaveLength(3);
    throttled.debug('ids', { consumerGroup: 'G' }, 'consumer ids changed');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toEqual({
      level: 'debug',
      fields: { consumerGroup: 'G' },
      message: 'consumer ids changed',
    });
  });

  it('clear() and flush() write what was held back before forgetting', () => {
    vi.useFakeTimers();
    const { log, lines } = recorder();
    const throttled = new ThrottledLog(log, 30_000);
    throttled.warn('a', { n: 1 }, 'x');
    throttled.warn('a', { n: 2 }, 'x');
    throttled.warn('a', { n: 3 }, 'x');
    throttled.error('b', { n: 1 }, 'y');
    throttled.error('b', { n: 2 }, 'y');
    throttled.clear('a');
    expect(lines.at(-1)).toEqual({ level: 'warn', fields: { n: 3, suppressed: 1 }, message: 'x' });
    throttled.flush();
    expect(lines.at(-1)).toEqual({ level: 'error', fields: { n: 2 }, message: 'y' });
    expect(lines).toHaveLength(4);
    // Nothing pending: the timers were cancelled.
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(4);
  });

  it('forgets the oldest key past the cap, writing its count first', () => {
    const { log, lines } = recorder();
    const throttled = new ThrottledLog(log, 30_000, () => 0);
    for (let i = 0; i < 3; i++) throttled.warn('first', { first: true }, 'x');
    for (let i = 0; i < MAX_THROTTLED_KEYS; i++) throttled.warn(`k${i}`, {}, 'x');
    expect(lines).toContainEqual({ level: 'warn', fields: { first: true, suppressed: 1 }, message: 'x' });
    throttled.flush();
  });
});
