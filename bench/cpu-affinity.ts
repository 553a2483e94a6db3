/**
 * CPU pinning with util-linux's `taskset`, for the per-vCPU scenario: a command prefix that runs a child
 * on given cores, and pinning running processes (every thread: `taskset -a`) with a way back to the
 * affinity they had. Linux only; every step fails with a message naming taskset and the process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { CommandNotFoundError, runCommand } from '../src/local-broker/run-command.js';

const TASKSET = 'taskset';
const TIMEOUT_MS = 10_000;

/**
 * Throws unless `taskset` runs here and the machine has at least `cores` CPUs.
 *
 * @example
 * ```ts
 * await requireTaskset(2); // throws 'the per-vcpu scenario needs taskset (util-linux) on PATH ...' without it
 * ```
 */
export async function requireTaskset(cores: number, what = 'the per-vcpu scenario'): Promise<void> {
  try {
    const result = await runCommand(TASKSET, ['--version'], { timeoutMs: TIMEOUT_MS });
    if (result.exitCode !== 0) throw new Error(`taskset --version exited ${String(result.exitCode)}`);
  } catch (error) {
    const reason =
      error instanceof CommandNotFoundError
        ? 'it is not on PATH'
        : error instanceof Error
          ? error.message
          : String(error);
    throw new Error(
      `${what} needs taskset (util-linux; Debian/Ubuntu: apt-get install util-linux) to pin processes to cores: ${reason}`,
      { cause: error },
    );
  }
  if (availableParallelism() < cores)
    throw new Error(`${what} needs ${cores} CPUs to pin to, this machine has ${availableParallelism()}`);
}

/**
 * The arguments that run a command on `cores` (`taskset -c 1 node ...`).
 *
 * @example
 * ```ts
 * const [command, ...args] = [...pinnedPrefix('1'), process.execPath, script];
 * ```
 */
export function pinnedPrefix(cores: string): string[] {
  return [TASKSET, '-c', cores];
}

/**
 * Pins every thread of each process to `cores` and returns a function that gives each one back the
 * affinity mask it had (processes gone meanwhile are skipped). Throws with taskset's output when a pin
 * fails (the processes pinned before it are restored first).
 *
 * @example
 * ```ts
 * const restore = await pinProcesses([process.pid, brokerPid], '0');
 * try { ... } finally { await restore(); }
 * ```
 */
export async function pinProcesses(pids: readonly number[], cores: string): Promise<() => Promise<void>> {
  const pinned: Array<{ pid: number; mask: string }> = [];
  const restore = async (): Promise<void> => {
    for (const { pid, mask } of pinned.splice(0)) {
      await taskset(['-a', '-p', mask, String(pid)]).catch((error: unknown) => {
        if (processExists(pid)) throw error;
      });
    }
  };
  try {
    for (const pid of pids) {
      const current = await taskset(['-p', String(pid)]);
      const mask = /affinity mask:\s*([0-9a-f]+)/i.exec(current)?.[1];
      if (mask === undefined) throw new Error(`taskset -p ${pid} printed no affinity mask: ${current}`);
      await taskset(['-a', '-c', '-p', cores, String(pid)]);
      pinned.push({ pid, mask });
    }
  } catch (error) {
    await restore();
    throw error;
  }
  return restore;
}

/**
 * The processes whose parent is `parentPid` (from /proc/<pid>/stat), e.g. the broker and namesrv JVMs
 * the harness started.
 *
 * @example
 * ```ts
 * childPids(process.pid); // => [12345, 12399]
 * ```
 */
export function childPids(parentPid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command name (in parentheses, which may hold spaces): state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parentPid) children.push(Number(entry));
    } catch {
      // The process exited while we listed /proc.
    }
  }
  return children;
}

async function taskset(args: readonly string[]): Promise<string> {
  const result = await runCommand(TASKSET, args, { timeoutMs: TIMEOUT_MS });
  if (result.exitCode !== 0)
    throw new Error(
      `taskset ${args.join(' ')} failed (exit ${String(result.exitCode)}): ${result.stderr.trim()}`,
    );
  return result.stdout;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
