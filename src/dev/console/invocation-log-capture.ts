/**
 * Attributes what a handler writes while it runs (console.*, process.stdout.write, process.stderr.write)
 * to the invocation that runs it, with AsyncLocalStorage: the recording invoker runs each invoke inside
 * {@link InvocationLogCapture.run}, and every write made in that async context (the handler's own
 * awaits and callbacks included) is appended to the invocation's log sink. Everything is still written
 * to the terminal as before; writes outside an invocation are not recorded.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The level of a captured line: the console method that wrote it, or the stream written directly. */
export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug' | 'trace' | 'stdout' | 'stderr';

/** Where an invocation's lines go (invocation-recorder.ts bounds them). */
export interface LogSink {
  /** False once the invocation finished: later writes of its callbacks are not recorded. */
  readonly open: boolean;
  appendLog(level: LogLevel, text: string): void;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
type ConsoleMethod = (typeof CONSOLE_METHODS)[number];
/** Terminal control sequences (colours, the status block's cursor moves): not part of a log line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

interface WritableLike {
  write: NodeJS.WriteStream['write'];
}

/**
 * Hooks console and the process's streams once ({@link InvocationLogCapture.install}) and attributes
 * their writes to the sink of the async context. `uninstall` puts the originals back.
 */
export class InvocationLogCapture {
  readonly #storage = new AsyncLocalStorage<LogSink>();
  readonly #restore: (() => void)[] = [];
  /** The console method being called on this (synchronous) stack, if any: its level names the line. */
  #consoleLevel: ConsoleMethod | undefined;

  /** Runs `fn` with `sink` receiving the lines written in its async context. */
  run<T>(sink: LogSink, fn: () => Promise<T>): Promise<T> {
    return this.#storage.run(sink, fn);
  }

  /** Hooks console.* and the writes of `streams` (process.stdout and stderr by default). Once. */
  install(
    streams: { readonly stdout: WritableLike; readonly stderr: WritableLike } = process,
    target: Pick<Console, ConsoleMethod> = console,
  ): void {
    if (this.#restore.length > 0) return;
    for (const method of CONSOLE_METHODS) {
      const original = target[method];
      const capture = this;
      target[method] = function (this: unknown, ...args: unknown[]) {
        const previous = capture.#consoleLevel;
        capture.#consoleLevel = method;
        try {
          original.apply(this, args);
        } finally {
          capture.#consoleLevel = previous;
        }
      };
      this.#restore.push(() => {
        target[method] = original;
      });
    }
    this.#hookStream(streams.stdout, 'stdout');
    this.#hookStream(streams.stderr, 'stderr');
  }

  /** Puts back what {@link InvocationLogCapture.install} replaced. */
  uninstall(): void {
    for (const restore of this.#restore.splice(0).reverse()) restore();
  }

  #hookStream(stream: WritableLike, level: 'stdout' | 'stderr'): void {
    const original = stream.write;
    const capture = this;
    stream.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
      capture.#record(level, chunk);
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as NodeJS.WriteStream['write'];
    this.#restore.push(() => {
      stream.write = original;
    });
  }

  #record(streamLevel: 'stdout' | 'stderr', chunk: unknown): void {
    const sink = this.#storage.getStore();
    if (sink === undefined || !sink.open) return;
    const text =
      typeof chunk === 'string'
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : String(chunk);
    const level = this.#consoleLevel ?? streamLevel;
    for (const line of text.replace(ANSI, '').split('\n')) {
      const trimmed = line.replace(/\r$/, '');
      if (trimmed !== '') sink.appendLog(level, trimmed);
    }
  }
}
