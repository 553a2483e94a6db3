import { describe, expect, it } from 'vitest';
import { cpuBetween, cpuSnapshot, parseProcessCpuTicks, parseStealTicks } from '../../../bench/proc-cpu.js';

describe('parseProcessCpuTicks', () => {
  it('adds utime and stime, counting the fields after the name even when it holds spaces and parentheses', () => {
    const stat = '4242 (java (main) x) S 1 42 42 0 -1 4194560 10 0 0 0 700 55 3 4 20 0 90 0 100 0';
    expect(parseProcessCpuTicks(stat)).toBe(755);
  });

  it('throws on a text without the fields', () => {
    expect(() => parseProcessCpuTicks('4242 (java) S 1')).toThrow(/no tick count/);
  });
});

describe('parseStealTicks', () => {
  it("reads the steal field of the all-CPU line, not a single CPU's", () => {
    const stat = 'cpu  8738343 163489 869121 3632634 12925 0 65715 394977 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n';
    expect(parseStealTicks(stat)).toBe(394_977);
  });

  it('throws without a cpu line', () => {
    expect(() => parseStealTicks('intr 1 2 3\n')).toThrow(/no cpu line/);
  });
});

describe('cpuBetween', () => {
  it("gives the broker's CPU and the steal as a share of wall time × CPUs", () => {
    const window = cpuBetween(
      { atMs: 1000, brokerCpuMs: 200, stealMs: 5000 },
      { atMs: 3000, brokerCpuMs: 900, stealMs: 6200 },
      2,
    );
    expect(window).toEqual({ wallMs: 2000, brokerCpuMs: 700, stealPercent: 30 });
  });

  it('has no broker CPU when a snapshot lacks it (an external broker)', () => {
    const window = cpuBetween(
      { atMs: 0, brokerCpuMs: undefined, stealMs: 0 },
      { atMs: 1000, brokerCpuMs: undefined, stealMs: 0 },
      2,
    );
    expect(window.brokerCpuMs).toBeUndefined();
    expect(window.stealPercent).toBe(0);
  });
});

describe('cpuSnapshot', () => {
  it('reads this process and the machine from /proc', () => {
    const snapshot = cpuSnapshot(process.pid);
    expect(Number.isFinite(snapshot.brokerCpuMs)).toBe(true);
    expect(snapshot.brokerCpuMs).toBeGreaterThan(0);
    expect(snapshot.stealMs).toBeGreaterThanOrEqual(0);
    expect(cpuSnapshot(undefined).brokerCpuMs).toBeUndefined();
  });
});
