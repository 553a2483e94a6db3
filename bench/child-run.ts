/**
 * Runs one measured child process (our consumer under node, the Java consumer under java) and reads
 * its result: the children time and measure themselves and print one `BENCH_RESULT {json}` line, so
 * the harness's own memory and event loop never enter the figures.
 */
import { spawn } from 'node:child_process';

/**
 * The line prefix of a child's result.
 *
 * @example
 * ```ts
 * process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ received: 10 })}\n`);
 * ```
 */
export const RESULT_PREFIX = 'BENCH_RESULT ';
const STDERR_TAIL_CHARS = 4000;

/**
 * What a finished child reported, plus the harness's wall time from spawn to exit.
 *
 * @example
 * ```ts
 * const { result, wallMs } = await runChild('java', ['-version'], { timeoutMs: 10_000 });
 * ```
 */
export interface ChildOutcome {
  readonly result: Record<string, unknown>;
  /** From spawn to exit, process start-up and shutdown included. */
  readonly wallMs: number;
}

/**
 * Spawns `command args`, waits for it to exit 0 with a result line, and returns the parsed result.
 * Throws with the tail of the child's stderr when it fails, prints no result, or outlives `timeoutMs`
 * (it is then killed).
 *
 * @example
 * ```ts
 * const { result } = await runChild(process.execPath, ['child.js', '{}'], { timeoutMs: 60_000 });
 * console.log(result.startToLastMs);
 * ```
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: {
    timeoutMs: number;
    env?: NodeJS.ProcessEnv;
    /**
     * Called with every line of the child's stdout as it arrives (the drain race reads CPU counters when
     * the child says it starts and when its result comes). A throw fails the run once the child exits.
     */
    onLine?: (line: string) => void;
  },
): Promise<ChildOutcome> {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    let partialLine = '';
    let lineError: unknown;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      if (options.onLine === undefined) return;
      const lines = (partialLine + chunk.toString('utf8')).split('\n');
      partialLine = lines.pop() ?? '';
      for (const line of lines) {
        try {
          options.onLine(line);
        } catch (error) {
          lineError ??= error;
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (cause) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${command}`, { cause }));
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - startedAt;
      const line = Buffer.concat(stdout)
        .toString('utf8')
        .split('\n')
        .find((candidate) => candidate.startsWith(RESULT_PREFIX));
      const what = `${command} ${args[0] ?? ''}`;
      if (lineError !== undefined) {
        const reason = lineError instanceof Error ? lineError.message : String(lineError);
        reject(new Error(`${what}: reading its output failed: ${reason}`, { cause: lineError }));
      } else if (timedOut) {
        reject(new Error(`${what} did not finish within ${options.timeoutMs} ms; stderr:\n${stderr}`));
      } else if (exitCode !== 0 || line === undefined) {
        reject(
          new Error(
            `${what} failed (exit ${String(exitCode)}, signal ${String(signal)}${line === undefined ? ', no result line' : ''}); stderr:\n${stderr}`,
          ),
        );
      } else {
        try {
          resolve({
            result: JSON.parse(line.slice(RESULT_PREFIX.length)) as Record<string, unknown>,
            wallMs,
          });
        } catch (cause) {
          reject(new Error(`${what} printed an unreadable result: ${line}`, { cause }));
        }
      }
    });
  });
}

/**
 * Reads a numeric field of a child's result; throws naming the field when it is missing.
 *
 * @example
 * ```ts
 * const ms = numberField({ startToLastMs: 812.5 }, 'startToLastMs'); // => 812.5
 * ```
 */
export function numberField(result: Record<string, unknown>, field: string): number {
  const value = result[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`the child's result has no number ${field}: ${JSON.stringify(result)}`);
  }
  return value;
}
