import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/util/logger.js';
import { ThrottledLog } from '../../../src/util/throttled-log.js';

function recorder() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const log = {
    warn: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: 'warn', fields, message }),
    error: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: 'error', fields, message }),
  } as unknown as Logger;
  return { log, lines };
}

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
});
