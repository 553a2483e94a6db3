/**
 * The progress display gives the terminal back on every way out: its end, the process exiting (an error,
 * a second Ctrl-C), and a SIGINT/SIGTERM nobody else handles (restored, then raised again).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startProgress } from '../../../src/cli/progress-reporter.js';
import { type GuardedProcess, guardTerminal, TERMINAL_RESTORE } from '../../../src/cli/terminal-restore.js';

/** A process whose events the test emits, recording kills. */
function fakeProcess() {
  const emitter = new EventEmitter();
  const kills: string[] = [];
  const proc: GuardedProcess = {
    pid: 4242,
    on: (event, listener) => emitter.on(event, listener),
    off: (event, listener) => emitter.off(event, listener),
    listenerCount: (event) => emitter.listenerCount(event),
    kill: (_pid, signal) => kills.push(signal),
  };
  return { emitter, proc, kills };
}

function recorder() {
  let text = '';
  return { stream: { write: (t: string) => (text += t) }, text: () => text };
}

describe('guardTerminal', () => {
  it('restores the terminal when the process exits before the display ended', () => {
    const { emitter, proc } = fakeProcess();
    const out = recorder();
    guardTerminal(out.stream, proc);
    emitter.emit('exit', 1);
    expect(out.text()).toBe(TERMINAL_RESTORE);
  });

  it('restores and raises the signal again when nobody else handles it', () => {
    const { emitter, proc, kills } = fakeProcess();
    const out = recorder();
    guardTerminal(out.stream, proc);
    emitter.emit('SIGTERM', 'SIGTERM');
    expect(out.text()).toBe(TERMINAL_RESTORE);
    expect(kills).toEqual(['SIGTERM']);
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
    expect(emitter.listenerCount('exit')).toBe(0);
  });

  it('leaves a handled signal to its handler (the command stops and ends the display itself)', () => {
    const { emitter, proc, kills } = fakeProcess();
    const out = recorder();
    emitter.on('SIGINT', () => undefined);
    const guard = guardTerminal(out.stream, proc);
    emitter.emit('SIGINT', 'SIGINT');
    expect(out.text()).toBe('');
    expect(kills).toEqual([]);
    guard.release();
    expect(out.text()).toBe(TERMINAL_RESTORE);
    emitter.emit('exit', 0);
    expect(out.text()).toBe(TERMINAL_RESTORE);
    expect(emitter.listenerCount('SIGINT')).toBe(1);
  });
});

describe('startProgress', () => {
  it('off a terminal: a final line once, however often finish is called', () => {
    const out = recorder();
    const progress = startProgress({ stream: out.stream, label: 'things', total: 3 });
    progress.advance(2);
    progress.finish();
    progress.finish();
    expect(out.text()).toBe('2/3 things\n');
  });
});
