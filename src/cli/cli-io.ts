/**
 * What the CLI commands touch of their process, passed in so that tests can run them in-process: output
 * streams, environment, signals and exit.
 */
import type { Logger } from '../util/logger.js';

/** The signals that stop a poller. */
export type StopSignal = 'SIGTERM' | 'SIGINT';

/**
 * The process as the CLI uses it.
 */
export interface CliIo {
  /** Plain text for people (usage, version). Logs go to the logger. */
  readonly stdout: { write(text: string): unknown };
  /** Plain text errors (usage errors, config problems). */
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The logger for the poller (pino JSON lines). */
  readonly logger?: Logger | undefined;
  /** Registers a handler for SIGTERM and SIGINT; returns the function that removes it. */
  onStopSignal(handler: (signal: StopSignal) => void): () => void;
  /** Ends the process now with `code` (used on a second stop signal). */
  exitNow(code: number): void;
}

/** POSIX signal numbers, for the conventional exit code 128 + n. */
const SIGNAL_NUMBERS: Readonly<Record<StopSignal, number>> = { SIGINT: 2, SIGTERM: 15 };

/**
 * The exit code of a process ended by `signal` (128 + its number).
 */
export function signalExitCode(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBERS[signal];
}

/**
 * Turns the first SIGTERM/SIGINT into an abort of the returned signal (a graceful stop, logged with
 * `stopping`) and a second one into an immediate exit with 128 + the signal's number.
 */
export function abortOnStopSignals(
  io: CliIo,
  log: Logger,
  stopping: string,
): { signal: AbortSignal; remove: () => void; stoppedBy: () => StopSignal | undefined } {
  const controller = new AbortController();
  let signalled: StopSignal | undefined;
  const remove = io.onStopSignal((signal) => {
    if (signalled !== undefined) {
      log.warn({ signal }, 'second stop signal: exiting at once');
      io.exitNow(signalExitCode(signal));
      return;
    }
    signalled = signal;
    log.info({ signal }, `stop signal: ${stopping}`);
    controller.abort(new Error(`received ${signal}`));
  });
  return { signal: controller.signal, remove, stoppedBy: () => signalled };
}

/**
 * The real process.
 */
export function processIo(): CliIo {
  ignoreClosedReader(process.stdout);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    onStopSignal(handler) {
      const listener = (signal: NodeJS.Signals): void => handler(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
      process.on('SIGTERM', listener);
      process.on('SIGINT', listener);
      return () => {
        process.off('SIGTERM', listener);
        process.off('SIGINT', listener);
      };
    },
    exitNow(code) {
      process.exit(code);
    },
  };
}

/** Errors of writing to an output whose reader went away (`rocketmq-lambda dlq show | head -1`). */
const CLOSED_READER_CODES: ReadonlySet<string> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * Lets a command go on when the reader of `stream` goes away: what it writes after that is dropped,
 * and the command ends as it would have (a redrive or a `send --count` still does all it was asked, and
 * records it). Without it the first write after the reader closed crashed the process with a stack.
 * Any other error of the stream is thrown as before.
 */
export function ignoreClosedReader(stream: NodeJS.EventEmitter): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && CLOSED_READER_CODES.has(error.code)) return;
    throw error;
  });
}
