/**
 * A measured child process that first says when it is ready (`BENCH_READY` on a line of its stdout),
 * so that the harness can start a workload against it (the latency scenario's steady producer), and
 * then ends with one `BENCH_RESULT {json}` line like every bench child (child-run.ts).
 */
import { spawn } from 'node:child_process';
import { type ChildOutcome, RESULT_PREFIX } from './child-run.js';

/**
 * The line a child prints once it can take the workload.
 *
 * @example
 * ```ts
 * process.stdout.write(`${READY_LINE}\n`);
 * ```
 */
export const READY_LINE = 'BENCH_READY';
const STDERR_TAIL_CHARS = 4000;

/** A running child: `ready` settles first, `result` once it exited. */
export interface ReadyChild {
  /** Resolves at the ready line; rejects as `result` does when the child ends or fails before it. */
  readonly ready: Promise<void>;
  readonly result: Promise<ChildOutcome>;
  /** Kills it (SIGKILL), e.g. when the workload failed. */
  kill(): void;
}

/**
 * Spawns `command args`; the child is killed once it outlives `timeoutMs`, and `result` then rejects
 * with the tail of its stderr, as it does when the child exits non-zero or prints no result line.
 *
 * @example
 * ```ts
 * const child = startReadyChild(process.execPath, [script, JSON.stringify(spec)], { timeoutMs: 120_000 });
 * await child.ready;
 * await produceSteadily(...);
 * const { result } = await child.result;
 * ```
 */
export function startReadyChild(
  command: string,
  args: readonly string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv },
): ReadyChild {
  const startedAt = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  let markReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line === READY_LINE) markReady();
      else lines.push(line);
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const what = `${command} ${args[0] ?? ''}`;
  const result = new Promise<ChildOutcome>((resolve, reject) => {
    child.on('error', (cause) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${command}`, { cause }));
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - startedAt;
      lines.push(partial);
      const line = lines.find((candidate) => candidate.startsWith(RESULT_PREFIX));
      if (timedOut) {
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
          reject(new Error(`${what} printed an unreadable result: ${line.slice(0, 200)}`, { cause }));
        }
      }
    });
  });
  // A child that ends before its ready line fails `ready` with the same reason.
  result.then(
    () => failReady(new Error(`${what} exited before it was ready`)),
    (error: unknown) => failReady(error instanceof Error ? error : new Error(String(error))),
  );
  // Whoever awaits `ready` sees its failure; a caller that only awaits `result` must not crash on it.
  ready.catch(() => undefined);
  return { ready, result, kill: () => child.kill('SIGKILL') };
}
