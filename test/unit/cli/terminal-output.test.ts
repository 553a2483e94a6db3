import { describe, expect, it } from 'vitest';
import { PLAIN_PROGRESS_INTERVAL_MS, startProgress } from '../../../src/cli/progress-reporter.js';
import { colourEnabled, terminalStyle } from '../../../src/cli/terminal-style.js';

describe('terminalStyle', () => {
  it('colours a terminal, never a pipe, and honours NO_COLOR and FORCE_COLOR', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({}, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colourEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(terminalStyle({ isTTY: false }, {}).red('x')).toBe('x');
    expect(terminalStyle({ isTTY: true }, {}).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});

describe('startProgress off a terminal', () => {
  it('prints a line at most every interval and a final count', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = startProgress({
      stream: { write: (text: string) => lines.push(text) },
      label: 'messages redriven',
      total: 10,
      now: () => clock,
    });
    progress.advance(3);
    clock += PLAIN_PROGRESS_INTERVAL_MS;
    progress.advance(2);
    progress.advance(1);
    progress.advance(4);
    progress.finish();
    expect(lines).toEqual(['5/10 messages redriven...\n', '10/10 messages redriven\n']);
  });
});
