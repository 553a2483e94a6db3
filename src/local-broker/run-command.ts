/**
 * Runs a short-lived tool (java -version, mvn) and collects its output, with a hard timeout.
 * Long-running JVMs use jvm-process.ts instead.
 */
import { spawn } from 'node:child_process';
import { RocketMQError } from '../errors.js';

/** Output and exit of a finished command. */
export interface CommandResult {
  /** Exit code, or null when a signal ended the process. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The executable does not exist on PATH (spawn failed with ENOENT).
 */
export class CommandNotFoundError extends RocketMQError {
  readonly command: string;

  constructor(command: string, options: { cause?: unknown } = {}) {
    super(`${command}: command not found`, { ...options, retriable: false });
    this.command = command;
  }
}

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the command after this long. @default 600_000 */
  timeoutMs?: number;
}

/**
 * Runs `command args...` to completion. Resolves with the exit code and the full output whatever the
 * exit code; rejects with {@link CommandNotFoundError} when the executable is missing.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(err.code === 'ENOENT' ? new CommandNotFoundError(command, { cause: err }) : err);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({
        exitCode,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

/**
 * The last `maxLines` lines of a text, for error messages.
 */
export function tailLines(text: string, maxLines: number): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(Math.max(0, lines.length - maxLines)).join('\n');
}
