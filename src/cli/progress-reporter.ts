/**
 * Progress of long operations (redriving thousands of messages, resetting many queues), on stderr so that
 * stdout stays parseable: a live bar (cli-progress) on a terminal, a plain line every few seconds
 * elsewhere (CI logs, pipes), and a final line either way. The terminal is given back as it was (cursor
 * shown, line wrap on) on every exit: finish(), an error that ends the process, a signal (see
 * terminal-restore.ts); every command that shows progress gets that from here.
 */
import { SingleBar } from 'cli-progress';
import { guardTerminal } from './terminal-restore.js';

/** Plain-text progress lines are at least this far apart when stderr is not a terminal. */
export const PLAIN_PROGRESS_INTERVAL_MS = 5_000;

/**
 * A progress display for `total` units of work.
 */
export interface ProgressReporter {
  /** `count` more units done. */
  advance(count: number): void;
  /**
   * Ends the display with a final line (`done/total label`) and gives the terminal back; call it on every
   * way out (a `finally`). Later calls do nothing.
   */
  finish(): void;
}

/**
 * Options of {@link startProgress}.
 */
export interface ProgressOptions {
  /** Where progress goes (stderr); a live bar only when it is a terminal. */
  readonly stream: { write(text: string): unknown; readonly isTTY?: boolean | undefined };
  /** What is counted, e.g. `messages redriven`. */
  readonly label: string;
  readonly total: number;
  readonly now?: (() => number) | undefined;
}

/**
 * Starts a progress display.
 */
export function startProgress(options: ProgressOptions): ProgressReporter {
  let done = 0;
  const finalLine = (): string => `${done}/${options.total} ${options.label}\n`;
  if (options.stream.isTTY === true && options.stream === process.stderr) {
    const bar = new SingleBar({
      format: `{bar} {value}/{total} ${options.label} ({percentage}%, eta {eta_formatted})`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    });
    const guard = guardTerminal(options.stream);
    bar.start(options.total, 0);
    let finished = false;
    return {
      advance(count) {
        done += count;
        if (!finished) bar.update(done);
      },
      finish() {
        if (finished) return;
        finished = true;
        try {
          bar.stop();
        } finally {
          guard.release();
        }
        options.stream.write(finalLine());
      },
    };
  }
  const now = options.now ?? Date.now;
  let lastLineAt = now();
  let finished = false;
  return {
    advance(count) {
      done += count;
      if (now() - lastLineAt >= PLAIN_PROGRESS_INTERVAL_MS && done < options.total) {
        lastLineAt = now();
        options.stream.write(`${done}/${options.total} ${options.label}...\n`);
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      options.stream.write(finalLine());
    },
  };
}
