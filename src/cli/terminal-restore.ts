/**
 * Undoing what a live display changes on a terminal (cli-progress hides the cursor and turns line wrap
 * off) on every way out of the process: the display's own end, an error that ends the process
 * (`process.exit` runs the 'exit' hooks), a second Ctrl-C that exits at once, and a SIGINT/SIGTERM that
 * nobody else handles (restored, then the signal is raised again so the process still dies of it, with
 * the shell's 128 + n). Only SIGKILL cannot be caught; `reset` (or `tput cnorm`) fixes that terminal.
 */

/** Cursor shown (DECTCEM) and line wrap on (DECAWM): the terminal's defaults. */
export const TERMINAL_RESTORE = '\x1B[?25h\x1B[?7h';

/** The signals after which the terminal is restored. */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** What {@link guardTerminal} uses of the process (tests pass a fake). */
export interface GuardedProcess {
  readonly pid: number;
  on(event: 'exit' | 'SIGINT' | 'SIGTERM', listener: (...args: unknown[]) => void): unknown;
  off(event: 'exit' | 'SIGINT' | 'SIGTERM', listener: (...args: unknown[]) => void): unknown;
  listenerCount(event: 'SIGINT' | 'SIGTERM'): number;
  kill(pid: number, signal: 'SIGINT' | 'SIGTERM'): unknown;
}

/** A guard over a terminal's state; `release` ends it (restoring once more, which is harmless). */
export interface TerminalGuard {
  release(): void;
}

/**
 * Restores `stream` (a terminal) whenever the process ends before {@link TerminalGuard.release} is called
 * (see the file header).
 */
export function guardTerminal(
  stream: { write(text: string): unknown },
  proc: GuardedProcess = process as unknown as GuardedProcess,
): TerminalGuard {
  let released = false;
  const restore = (): void => {
    stream.write(TERMINAL_RESTORE);
  };
  const onSignal = (signal: unknown): void => {
    const name = signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
    // Someone else stops gracefully on it (a redrive finishes its send): their end restores the terminal.
    if (proc.listenerCount(name) > 1) return;
    restore();
    release();
    proc.kill(proc.pid, name);
  };
  const release = (): void => {
    if (released) return;
    released = true;
    proc.off('exit', restore);
    for (const signal of SIGNALS) proc.off(signal, onSignal);
  };
  proc.on('exit', restore);
  for (const signal of SIGNALS) proc.on(signal, onSignal);
  return {
    release() {
      if (released) return;
      release();
      restore();
    },
  };
}
