/**
 * A `CliIo` for running CLI commands in-process: it captures stdout and stderr, takes its environment
 * from the test, keeps the stop-signal handlers a command registers so that the test can deliver a
 * signal, and turns `exitNow` into a thrown error (a command that exits the process mid-test is a bug).
 */
import type { CliIo, StopSignal } from '../../src/cli/cli-io.js';

/** A captured `CliIo` and what the command did with it. */
export interface FakeCliIo extends CliIo {
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
  /** stdout and stderr interleaved in the order they were written. */
  output(): string;
  /** The stop-signal handlers registered and not yet removed. */
  readonly stopHandlers: readonly ((signal: StopSignal) => void)[];
  /** Delivers `signal` to every registered stop-signal handler, as the process would. */
  sendStopSignal(signal: StopSignal): void;
}

/**
 * A fake `CliIo` with `env` as its environment.
 *
 * @example
 * ```ts
 * const io = fakeCliIo({ NAMESRV_ADDR: '127.0.0.1:9876' });
 * expect(await sendCommand(['--topic', 'Orders', '--body', 'hi'], io, stdin)).toBe(0);
 * expect(io.out()).toContain('msgId');
 * ```
 */
export function fakeCliIo(env: Readonly<Record<string, string | undefined>> = {}): FakeCliIo {
  let out = '';
  let err = '';
  let output = '';
  const stopHandlers: ((signal: StopSignal) => void)[] = [];
  return {
    stdout: {
      write: (text: string) => {
        out += text;
        output += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        output += text;
        return true;
      },
    },
    env,
    onStopSignal(handler) {
      stopHandlers.push(handler);
      return () => {
        const at = stopHandlers.indexOf(handler);
        if (at >= 0) stopHandlers.splice(at, 1);
      };
    },
    exitNow(code) {
      throw new Error(`exitNow(${code}) in a test`);
    },
    out: () => out,
    err: () => err,
    output: () => output,
    stopHandlers,
    sendStopSignal(signal) {
      // A copy: a handler may remove itself while it runs.
      for (const handler of [...stopHandlers]) handler(signal);
    },
  };
}

/** What one in-process command run returned and wrote. */
export interface CapturedRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs a command against a fresh {@link fakeCliIo} and returns its exit code and output.
 *
 * @example
 * ```ts
 * const { code, out, err } = await runCaptured((io) => validateCommand(['--config', file], io));
 * expect(code, err).toBe(0);
 * ```
 */
export async function runCaptured(
  command: (io: FakeCliIo) => Promise<number>,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<CapturedRun> {
  const io = fakeCliIo(env);
  const code = await command(io);
  return { code, out: io.out(), err: io.err() };
}
