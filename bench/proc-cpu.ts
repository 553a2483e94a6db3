/**
 * CPU time as the kernel counts it, for the drain race's run windows: a process's user + system time
 * (`/proc/<pid>/stat`, all its threads: the broker JVM's JIT and GC threads included) and the machine's
 * steal time (`/proc/stat`, the time the hypervisor gave our virtual CPUs to someone else). Both are
 * in clock ticks (USER_HZ, `getconf CLK_TCK`, 100 on Linux), so a figure is good to 10 ms: fine over
 * runs of seconds.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** `utime` and `stime` in `/proc/<pid>/stat`, counted from its third field (the state, after the name). */
const UTIME_AFTER_NAME = 11;
const STIME_AFTER_NAME = 12;
/** `steal` on `/proc/stat`'s `cpu` line: user nice system idle iowait irq softirq steal. */
const STEAL_FIELD = 7;

/**
 * The counters read at one moment of a run.
 *
 * @example
 * ```ts
 * const before = cpuSnapshot(broker.brokerPid);
 * ```
 */
export interface CpuSnapshot {
  /** `performance.now()` of the reading. */
  readonly atMs: number;
  /** The broker JVM's user + system time since it started; undefined without a broker of ours. */
  readonly brokerCpuMs: number | undefined;
  /** The machine's steal time so far, all CPUs. */
  readonly stealMs: number;
}

/**
 * What happened between two snapshots.
 *
 * @example
 * ```ts
 * const { brokerCpuMs, stealPercent } = cpuBetween(before, cpuSnapshot(pid), cpus().length);
 * ```
 */
export interface CpuWindow {
  readonly wallMs: number;
  /** The broker's user + system time in the window; undefined when either snapshot lacks it. */
  readonly brokerCpuMs: number | undefined;
  /** Steal time in the window as a percentage of its wall time × the machine's CPUs. */
  readonly stealPercent: number;
}

/**
 * Reads the counters now. `brokerPid` undefined (an external broker) leaves the broker's CPU out.
 *
 * @example
 * ```ts
 * const snapshot = cpuSnapshot(undefined); // steal only
 * ```
 */
export function cpuSnapshot(brokerPid: number | undefined): CpuSnapshot {
  const atMs = performance.now();
  const tickMs = 1000 / clockTicksPerSecond();
  const stealMs = parseStealTicks(readFileSync('/proc/stat', 'utf8')) * tickMs;
  const brokerCpuMs =
    brokerPid === undefined
      ? undefined
      : parseProcessCpuTicks(readFileSync(`/proc/${brokerPid}/stat`, 'utf8')) * tickMs;
  return { atMs, brokerCpuMs, stealMs };
}

/**
 * The window from `start` to `end` on a machine of `cpus` CPUs.
 *
 * @example
 * ```ts
 * cpuBetween({ atMs: 0, brokerCpuMs: 100, stealMs: 0 }, { atMs: 1000, brokerCpuMs: 600, stealMs: 500 }, 2);
 * // => { wallMs: 1000, brokerCpuMs: 500, stealPercent: 25 }
 * ```
 */
export function cpuBetween(start: CpuSnapshot, end: CpuSnapshot, cpus: number): CpuWindow {
  const wallMs = end.atMs - start.atMs;
  const brokerCpuMs =
    start.brokerCpuMs === undefined || end.brokerCpuMs === undefined
      ? undefined
      : end.brokerCpuMs - start.brokerCpuMs;
  const stealPercent = wallMs > 0 ? ((end.stealMs - start.stealMs) / (wallMs * cpus)) * 100 : 0;
  return { wallMs, brokerCpuMs, stealPercent };
}

/**
 * `utime + stime` of a `/proc/<pid>/stat` text, in clock ticks. The name in parentheses may hold
 * spaces, so the fields are counted from its closing parenthesis.
 *
 * @example
 * ```ts
 * parseProcessCpuTicks('42 (java) S 1 42 42 0 -1 0 10 0 0 0 700 50 0 0 20 0 90 0'); // => 750
 * ```
 */
export function parseProcessCpuTicks(statText: string): number {
  const fields = statText
    .slice(statText.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  return tickField(fields, UTIME_AFTER_NAME, statText) + tickField(fields, STIME_AFTER_NAME, statText);
}

/**
 * The steal ticks of the `cpu` line (all CPUs) of a `/proc/stat` text.
 *
 * @example
 * ```ts
 * parseStealTicks('cpu  100 0 50 900 1 0 2 30 0 0\ncpu0 ...'); // => 30
 * ```
 */
export function parseStealTicks(procStatText: string): number {
  const line = /^cpu\s+(.*)$/m.exec(procStatText)?.[1];
  if (line === undefined) throw new Error('no cpu line in /proc/stat');
  return tickField(line.trim().split(/\s+/), STEAL_FIELD, line);
}

function tickField(fields: readonly string[], index: number, text: string): number {
  const value = Number(fields[index]);
  if (fields[index] === undefined || !Number.isInteger(value)) {
    throw new Error(`no tick count at field ${index} of ${JSON.stringify(text.slice(0, 200))}`);
  }
  return value;
}

let ticksPerSecond: number | undefined;

/** USER_HZ, the unit of /proc's CPU times (asked once). */
function clockTicksPerSecond(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  if (!Number.isInteger(ticksPerSecond) || ticksPerSecond <= 0) {
    throw new Error(`getconf CLK_TCK answered ${String(ticksPerSecond)}`);
  }
  return ticksPerSecond;
}
