/**
 * How a command ends early: it throws a {@link CliExit} (the exit code, and the lines for stderr when
 * they are not written yet), and {@link exitCodeOf} turns it into the code at the command's boundary.
 * So no helper has to return "a value, or the exit code to return at once", and no caller has to check.
 */
import type { CliIo } from './cli-io.js';

/**
 * The end of a command with `code`; `stderr`, when given, is written (as is: whole lines) before exiting.
 */
export class CliExit extends Error {
  readonly code: number;
  readonly stderr: string | undefined;

  constructor(code: number, stderr?: string | undefined) {
    super(stderr?.trimEnd() || `exit ${code}`);
    this.name = 'CliExit';
    this.code = code;
    this.stderr = stderr;
  }
}

/**
 * Runs `run` and resolves with its exit code, or with the code of the {@link CliExit} it threw (after
 * writing its stderr lines). Any other error propagates (main reports it, exit 1).
 */
export async function exitCodeOf(io: Pick<CliIo, 'stderr'>, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof CliExit)) throw error;
    if (error.stderr !== undefined) io.stderr.write(error.stderr);
    return error.code;
  }
}

/**
 * A command's public entry: `handler`, which may end with a {@link CliExit}, as a function that resolves
 * with the exit code (what the dispatcher and in-process callers such as tests call).
 */
export function cliCommand<Rest extends unknown[]>(
  handler: (args: readonly string[], io: CliIo, ...rest: Rest) => Promise<number>,
): (args: readonly string[], io: CliIo, ...rest: Rest) => Promise<number> {
  return (args, io, ...rest) => exitCodeOf(io, () => handler(args, io, ...rest));
}
