/**
 * The `rocketmq-lambda` CLI as a child process (`node --import tsx src/cli/main.ts ...`), with its
 * output collected and its JSON log lines parsed, plus a ledger file written by the handler fixture.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
/** The handler fixture that appends `messageId queueId queueOffset` per record to $LEDGER_FILE. */
export const LEDGER_HANDLER = fileURLToPath(
  new URL('../../fixtures/config/handlers/ledger.mjs', import.meta.url),
);

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running CLI child. */
export interface PollerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<ChildExit>;
  stdout(): string;
  stderr(): string;
  /** Parsed JSON log lines (stdout lines that are JSON objects). */
  logs(): Record<string, unknown>[];
  /** Resolves when a log line matches; rejects when the process exits first or after `timeoutMs`. */
  waitForLog(
    what: string,
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
}

/**
 * Spawns `rocketmq-lambda <args>`; killed (SIGKILL) at the end of the test if still running.
 *
 * @example
 * ```ts
 * const poller = spawnCli(['run', '--config', file], { LEDGER_FILE: ledger });
 * await poller.waitForLog('started', (l) => l.msg === 'poller started');
 * ```
 */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}): PollerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: REPO,
    env: {
      ...process.env,
      VITEST: '',
      LOG_LEVEL: 'info',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  /** Parsed JSON lines, and the start of the line not yet ended. */
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  /** Called after every chunk of stdout and once the child's output has ended. */
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      const parsed = logLine(line);
      if (parsed !== undefined) lines.push(parsed);
    }
    for (const listener of listeners) listener();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let done = false;
  exited.then(
    () => {
      done = true;
    },
    () => undefined,
  );
  // 'close' comes after 'exit' once stdout has ended: no log line can follow it.
  let outputEnded = false;
  child.once('close', () => {
    outputEnded = true;
    for (const listener of listeners) listener();
  });
  onTestFinished(async () => {
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    logs: () => [...lines],
    waitForLog(what, match, timeoutMs = 30_000) {
      if (lines.some(match)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        let seen = lines.length;
        const settle = (error?: Error) => {
          listeners.delete(check);
          clearTimeout(timer);
          if (error === undefined) resolve();
          else reject(error);
        };
        const check = () => {
          const found = lines.slice(seen).some(match);
          seen = lines.length;
          if (found) settle();
          else if (outputEnded) {
            settle(
              new Error(`the poller exited before ${what}; stderr:\n${err}\nstdout:\n${out.slice(-4000)}`),
            );
          }
        };
        const timer = setTimeout(() => {
          settle(
            new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stdout:\n${out.slice(-4000)}`),
          );
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/** A JSON log line parsed, or undefined for any other line (plain text, a stack trace's object). */
function logLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** One ledger line: a record the handler received. */
export interface LedgerEntry {
  messageId: string;
  queueId: number;
  queueOffset: number;
}

/**
 * The ledger written by the handler fixture (empty when the file does not exist yet).
 *
 * @example
 * ```ts
 * const seen = new Set(readLedger(file).map((e) => e.messageId));
 * ```
 */
export function readLedger(file: string): LedgerEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [messageId = '', queueId = '', queueOffset = ''] = line.split(' ');
      return { messageId, queueId: Number(queueId), queueOffset: Number(queueOffset) };
    });
}
