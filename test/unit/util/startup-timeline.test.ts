import { describe, expect, it } from 'vitest';
import {
  formatStartupTimeline,
  MAX_PHASES,
  markStartupPhase,
  onStartupPhase,
  startupPhases,
} from '../../../src/util/startup-timeline.js';

describe('the start-up timeline', () => {
  it('keeps the first mark of each phase, in order, and tells listeners of new ones only', () => {
    const told: string[] = [];
    const unsubscribe = onStartupPhase((phase) => told.push(phase.name));
    markStartupPhase('unit: first');
    markStartupPhase('unit: second');
    markStartupPhase('unit: first');
    unsubscribe();
    markStartupPhase('unit: after unsubscribing');
    const names = startupPhases().map((phase) => phase.name);
    expect(names.filter((name) => name.startsWith('unit:'))).toEqual([
      'unit: first',
      'unit: second',
      'unit: after unsubscribing',
    ]);
    expect(told).toEqual(['unit: first', 'unit: second']);
    const [first, second] = startupPhases().filter((phase) => phase.name.startsWith('unit:'));
    expect(second?.atMs).toBeGreaterThanOrEqual(first?.atMs ?? Number.POSITIVE_INFINITY);
  });

  it('keeps at most MAX_PHASES', () => {
    for (let i = 0; i < MAX_PHASES + 10; i++) markStartupPhase(`unit: many ${i}`);
    expect(startupPhases()).toHaveLength(MAX_PHASES);
  });

  it('formats one line per phase: when, since the phase before, name', () => {
    const text = formatStartupTimeline([
      { name: 'node, tsx and imports', atMs: 812 },
      { name: 'service loaded', atMs: 1420 },
    ]);
    expect(text.split('\n')).toEqual([
      'start-up timeline (ms since the process started, + since the phase before):',
      '   812  +812   node, tsx and imports',
      '  1420  +608   service loaded',
    ]);
  });
});
