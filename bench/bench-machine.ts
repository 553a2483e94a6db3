/**
 * What a results file says about where it was measured: the machine (CPUs, memory, the 1-minute load
 * average at the start and the end) and the versions of everything that ran.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { runCommand } from '../src/local-broker/run-command.js';
import type { BenchResults } from './bench-results.js';

/**
 * The `machine` of latest.json without the end load (known only at the end).
 *
 * @example
 * ```ts
 * const machine = { ...machineAtStart(), loadAverage: { start, end: currentLoad() } };
 * ```
 */
export function machineAtStart(): Omit<BenchResults['machine'], 'loadAverage'> & {
  loadAverageStart: number;
} {
  const cpuInfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    cpus: cpus().length,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuInfo)?.[1]?.trim() ?? 'unknown CPU',
    memoryMiB: Math.round(totalmem() / 1024 / 1024),
    loadAverageStart: currentLoad(),
  };
}

/**
 * The 1-minute load average, rounded to two decimals.
 *
 * @example
 * ```ts
 * if (currentLoad() > 8) log('busy machine: figures will be noisy');
 * ```
 */
export function currentLoad(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}

/**
 * Versions of node, java, this tree (`git describe`) and `extra` (RocketMQ, the peers' packages).
 *
 * @example
 * ```ts
 * const versions = await benchVersions({ rocketmq: '5.3.3', 'ali-ons': '3.12.0' });
 * ```
 */
export async function benchVersions(
  extra: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const [java, git] = await Promise.all([
    runCommand('java', ['-version'], { timeoutMs: 30_000 }).catch(() => undefined),
    runCommand('git', ['describe', '--always', '--dirty'], { timeoutMs: 30_000 }).catch(() => undefined),
  ]);
  const javaLine = java === undefined ? 'not found' : `${java.stderr}${java.stdout}`.split('\n')[0]?.trim();
  return {
    // The harness's node: the peers' node children run on it too; ours run on the image's (image-node-env.ts).
    node: process.version,
    java: javaLine ?? 'unknown',
    'rocketmq-lambda': git?.exitCode === 0 ? git.stdout.trim() : 'unknown',
    ...extra,
  };
}
