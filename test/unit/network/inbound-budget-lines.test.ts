/**
 * A flooding peer pauses and resumes a link thousands of times: the budget warns on the first pause
 * and throttles its debug lines about the others, each line standing for itself and its `suppressed`.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InboundBudget } from '../../../src/network/inbound-budget.js';

describe('InboundBudget lines under a flood', () => {
  it('warns once, then logs a bounded number of debug lines with counts', () => {
    const lines: Array<{ level: number; msg: string; suppressed?: number }> = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const budget = new InboundBudget(
      { pause: () => undefined, resume: () => undefined },
      { address: '127.0.0.1:10911', logger, maxRequests: 2 },
    );
    const cycles = 1000;
    for (let i = 0; i < cycles; i++) {
      const tickets = [budget.admit(), budget.admit()]; // pauses
      expect(budget.paused).toBe(true);
      for (const ticket of tickets) ticket.release(); // resumes
      expect(budget.paused).toBe(false);
    }
    const pauses = lines.filter((line) => line.msg.includes('pausing reads'));
    const resumes = lines.filter((line) => line.msg.includes('resuming reads'));
    expect(pauses.filter((line) => line.level === 40)).toHaveLength(1);
    expect(pauses.length).toBeLessThanOrEqual(2);
    expect(resumes.length).toBeLessThanOrEqual(1);
  });
});
