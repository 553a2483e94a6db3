/**
 * The drain race: every contender (our consumers, the Java push consumer, the raw PULL limit, the
 * registered peers) consumes the whole bench topic from the first offset in its own child process and
 * a fresh group, round after round, the order rotating every round. A contender whose run fails is
 * left out of the later rounds and reported with its error; the race goes on without it.
 */
import { cpus } from 'node:os';
import type { LocalBroker } from '../src/local-broker/local-broker.js';
import type { BenchOptions } from './bench-options.js';
import { numberField, RESULT_PREFIX, runChild } from './child-run.js';
import type { PeerRunSpec } from './drain-peer.js';
import { type PeakRssSample, STARTED_LINE } from './peers/drain-measurement.js';
import { type CpuSnapshot, cpuBetween, cpuSnapshot } from './proc-cpu.js';

/**
 * How one contender's child is started for one run.
 *
 * @example
 * ```ts
 * const launch: ChildLaunch = { command: process.execPath, args: [childScript, JSON.stringify(spec)] };
 * ```
 */
export interface ChildLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/**
 * A consumer of the race.
 *
 * @example
 * ```ts
 * const contender: DrainContender = { id: 'ours', label: 'ours', builtin: true, launch: (spec) => ({ command, args }) };
 * ```
 */
export interface DrainContender {
  readonly id: string;
  readonly label: string;
  /** Ours, Java or raw-pull: its failure fails the bench; a peer's is only reported. */
  readonly builtin: boolean;
  /** Drains only this many of the backlog's messages (a slow peer, see DrainPeer.maxMessages). */
  readonly maxMessages?: number;
  /**
   * Settles once the contender can run (a peer's prepare() done; its failure is then in the race's
   * `errors`); never rejects. The race awaits it before the contender's first run. Undefined: ready now.
   */
  readonly ready?: Promise<void>;
  launch(spec: PeerRunSpec): ChildLaunch;
  /** Our node children only: the launch with `nodeFlags` (e.g. `--cpu-prof`) before the script. */
  readonly launchWithNodeFlags?: (spec: PeerRunSpec, nodeFlags: readonly string[]) => ChildLaunch;
}

/**
 * One run as the child measured it (wall time by the harness).
 *
 * @example
 * ```ts
 * const perSecond = run.received / (run.firstToLastMs / 1000);
 * ```
 */
export interface DrainRun {
  readonly id: string;
  readonly round: number;
  /** A warm-up run: listed, but not in the figures. */
  readonly warmup: boolean;
  readonly received: number;
  /** From the consumer's start() to the first message at the listener. */
  readonly startToFirstMs: number;
  /** From start() until the listener had seen every message. */
  readonly startToLastMs: number;
  readonly firstToLastMs: number;
  /** The child's user + system CPU time (all its threads) over `startToLastMs`. */
  readonly cpuMsStartToLast: number;
  /** The child's user + system CPU time from its process's start to the last message. */
  readonly cpuMsProcessToLast: number;
  /**
   * The broker JVM's user + system CPU time from the child's start line to its result line (as the
   * harness reads them: start → last message); undefined with an external broker.
   */
  readonly brokerCpuMs: number | undefined;
  /** The machine's steal time over the same window, in % of its wall time × the CPUs. */
  readonly stealPercent: number;
  /** That window (the child's start line to its result line) as the harness saw it. */
  readonly cpuWindowMs: number;
  /**
   * The broker's CPU while no consumer ran, in % of one core: over the pause before this run. Its own
   * background work (the timer wheel's flush, ...) goes on during a run too, in proportion to the
   * run's wall time; undefined with an external broker or without a pause.
   */
  readonly brokerIdleCpuPercentOfCore: number | undefined;
  /** VmHWM of the child at the last message. */
  readonly peakRssBytes: number;
  /** The largest used heap a 50 ms sampler saw (V8 heapUsed / JVM heap used). */
  readonly peakHeapUsedBytes: number;
  /** Node children: the largest `arrayBuffers` (Buffers outside the V8 heap). */
  readonly peakArrayBuffersBytes: number | undefined;
  /** Node children: where the RSS was at the sample with the most of it (DrainResult.peakSample). */
  readonly peakSample: PeakRssSample | undefined;
  /** raw-pull: the PULL bodies' bytes. */
  readonly pulledBytes: number | undefined;
  /**
   * GC pauses from start() to the last message: Node's `gc` entries on the main thread; the JVM's
   * collectors' accumulated collection time (GarbageCollectorMXBean). Undefined when a child sends none.
   */
  readonly gcPauseMs: number | undefined;
  /** Ours: the part of `gcPauseMs` that scavenges (young-generation collections) took. */
  readonly gcScavengePauseMs: number | undefined;
  /** Young-generation collections (scavenges; the JVM's young collector) in that interval. */
  readonly gcMinorCount: number | undefined;
  /** Whole-heap collections (mark-compacts; the JVM's old collector) in that interval. */
  readonly gcMajorCount: number | undefined;
  /** Ours: the client's buffered messages (pulled, not yet done), median and max of 50 ms samples. */
  readonly bufferedMedian: number | undefined;
  readonly bufferedMax: number | undefined;
  /** `[ms since start(), RSS bytes]` about every 200 ms; empty when the child sends none. */
  readonly rssSeries: ReadonlyArray<readonly [number, number]>;
  /** Spawn to exit of the child, start-up and shutdown included. */
  readonly wallMs: number;
}

/**
 * The race's outcome: every run in order, and the first error of each contender that failed.
 *
 * @example
 * ```ts
 * const { runs, errors } = await runDrainRace(contenders, topic, broker, options, new Map(), log);
 * ```
 */
export interface DrainRaceOutcome {
  readonly runs: readonly DrainRun[];
  /** Contender id -> why it stopped (a failed prepare() is put here by the caller). */
  readonly errors: ReadonlyMap<string, string>;
}

/**
 * Runs `options.warmupRounds + options.rounds` rounds of every contender not in `errors` already (a
 * peer whose prepare() failed); a contender's failed run adds it to `errors`, which is returned.
 * `broker.brokerPid` (undefined for an external broker) is whose CPU each run also reports.
 *
 * @example
 * ```ts
 * const outcome = await runDrainRace(contenders, topic, bench.broker, options, new Map(), log);
 * ```
 */
export async function runDrainRace(
  contenders: readonly DrainContender[],
  topic: string,
  broker: Pick<LocalBroker, 'brokerPid'>,
  options: BenchOptions,
  errors: Map<string, string>,
  log: (line: string) => void,
): Promise<DrainRaceOutcome> {
  const runs: DrainRun[] = [];
  for (let index = 0; index < options.warmupRounds + options.rounds; index++) {
    const warmup = index < options.warmupRounds;
    const round = warmup ? index + 1 : index - options.warmupRounds + 1;
    for (const contender of rotate(contenders, index)) {
      await contender.ready;
      if (errors.has(contender.id)) continue;
      const pauseStart = cpuSnapshot(broker.brokerPid);
      await sleep(options.pauseBetweenRunsMs);
      const pause = cpuBetween(pauseStart, cpuSnapshot(broker.brokerPid), cpus().length);
      const spec = drainRunSpec(contender, topic, options, `${warmup ? 'w' : ''}${round}`);
      const what = `${warmup ? 'warm-up' : 'round'} ${round} ${contender.id}`;
      try {
        const run = await runDrainChild(contender, contender.launch(spec), spec, {
          round,
          warmup,
          brokerPid: broker.brokerPid,
          brokerIdleCpuPercentOfCore:
            pause.brokerCpuMs === undefined || pause.wallMs <= 0
              ? undefined
              : (pause.brokerCpuMs / pause.wallMs) * 100,
        });
        runs.push(run);
        const brokerCpu =
          run.brokerCpuMs === undefined
            ? ''
            : `, broker ${perMessageUs(run.brokerCpuMs, run.received)} µs/msg (idle before: ${run.brokerIdleCpuPercentOfCore?.toFixed(0) ?? '?'} % of a core)`;
        log(
          `${what}: ${fmt(run.received / (Math.max(run.firstToLastMs, 1) / 1000))} msgs/s first → all (${fmt(run.startToLastMs)} ms from start, first after ${fmt(run.startToFirstMs)} ms), peak RSS ${mib(run.peakRssBytes)} MiB, CPU ${perMessageUs(run.cpuMsStartToLast, run.received)} µs/msg${brokerCpu}, steal ${run.stealPercent.toFixed(0)} %`,
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        errors.set(contender.id, message);
        log(`${what} failed, left out of the later rounds: ${message}`);
      }
    }
  }
  return { runs, errors };
}

/**
 * The spec of one run of `contender` on `topic`: a fresh group named after `tag` (the round), the
 * contender's share of the backlog, the run timeout and the peers' close wait of `options`.
 *
 * @example
 * ```ts
 * const spec = drainRunSpec(contender, topic, options, 'profile');
 * ```
 */
export function drainRunSpec(
  contender: DrainContender,
  topic: string,
  options: BenchOptions,
  tag: string,
): PeerRunSpec {
  return {
    topic,
    group: `bench-${contender.id}-${tag}-${Date.now()}`,
    expected: Math.min(options.messages, contender.maxMessages ?? options.messages),
    timeoutMs: options.runTimeoutMs,
    closeWaitMs: options.peerCloseWaitMs,
  };
}

/**
 * Runs `launch` (a launch of `contender` for `spec`) and reads the child's result; throws when the child
 * fails or reports fewer messages than `spec.expected`. The broker's CPU (of `brokerPid`, when given)
 * and the machine's steal are read as the child prints its start line ({@link STARTED_LINE}; at the
 * spawn if it prints none) and its result line (right after its last message).
 *
 * @example
 * ```ts
 * const run = await runDrainChild(contender, contender.launch(spec), spec, {
 *   round: 1, warmup: false, brokerPid: broker.brokerPid, brokerIdleCpuPercentOfCore: undefined });
 * ```
 */
export async function runDrainChild(
  contender: DrainContender,
  launch: ChildLaunch,
  spec: PeerRunSpec,
  {
    round,
    warmup,
    brokerPid,
    brokerIdleCpuPercentOfCore,
  }: {
    round: number;
    warmup: boolean;
    brokerPid: number | undefined;
    /** Measured by the caller before the run (see {@link DrainRun.brokerIdleCpuPercentOfCore}). */
    brokerIdleCpuPercentOfCore: number | undefined;
  },
): Promise<DrainRun> {
  let started: CpuSnapshot = cpuSnapshot(brokerPid);
  let last: CpuSnapshot | undefined;
  const { result, wallMs } = await runChild(launch.command, launch.args, {
    // The children give up at spec.timeoutMs themselves (or should): this is the backstop.
    timeoutMs: spec.timeoutMs + 30_000,
    env: launch.env ?? { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    onLine: (line) => {
      if (line === STARTED_LINE) started = cpuSnapshot(brokerPid);
      else if (line.startsWith(RESULT_PREFIX) && last === undefined) last = cpuSnapshot(brokerPid);
    },
  });
  const window = cpuBetween(started, last ?? cpuSnapshot(brokerPid), cpus().length);
  const received = numberField(result, 'received');
  if (received < spec.expected) {
    throw new Error(`${contender.id} reported ${received} of ${spec.expected} messages`);
  }
  const optional = (field: string): number | undefined =>
    result[field] === undefined ? undefined : numberField(result, field);
  return {
    id: contender.id,
    round,
    warmup,
    received,
    startToFirstMs: numberField(result, 'startToFirstMs'),
    startToLastMs: numberField(result, 'startToLastMs'),
    firstToLastMs: numberField(result, 'firstToLastMs'),
    cpuMsStartToLast: numberField(result, 'cpuMsStartToLast'),
    cpuMsProcessToLast: numberField(result, 'cpuMsProcessToLast'),
    brokerCpuMs: window.brokerCpuMs,
    stealPercent: window.stealPercent,
    cpuWindowMs: window.wallMs,
    brokerIdleCpuPercentOfCore,
    peakRssBytes: numberField(result, 'peakRssBytes'),
    peakHeapUsedBytes: numberField(result, 'peakHeapUsedBytes'),
    peakArrayBuffersBytes: optional('peakArrayBuffersBytes'),
    peakSample: peakSample(result.peakSample),
    pulledBytes: optional('pulledBytes'),
    gcPauseMs: optional('gcPauseMs'),
    gcScavengePauseMs: scavengePauseMs(result),
    gcMinorCount: optional('gcMinorCount'),
    gcMajorCount: optional('gcMajorCount'),
    bufferedMedian: optional('bufferedMedian'),
    bufferedMax: optional('bufferedMax'),
    rssSeries: rssSeries(result.rssSeries),
    wallMs,
  };
}

/** The child's `peakSample`, checked: three finite byte counts, or undefined when it sends none (Java). */
function peakSample(raw: unknown): PeakRssSample | undefined {
  if (raw === undefined) return undefined;
  const fields = ['rssBytes', 'heapTotalBytes', 'arrayBuffersBytes'] as const;
  const record = raw as Record<string, unknown> | null;
  if (
    typeof record !== 'object' ||
    record === null ||
    !fields.every((field) => typeof record[field] === 'number' && Number.isFinite(record[field]))
  ) {
    throw new Error(`the child's peakSample is not {${fields.join(', ')}}: ${JSON.stringify(raw)}`);
  }
  return {
    rssBytes: record.rssBytes as number,
    heapTotalBytes: record.heapTotalBytes as number,
    arrayBuffersBytes: record.arrayBuffersBytes as number,
  };
}

/** The child's `rssSeries`, checked: pairs of finite numbers. */
function rssSeries(raw: unknown): Array<readonly [number, number]> {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error(`the child's rssSeries is no array: ${JSON.stringify(raw)}`);
  return raw.map((point: unknown) => {
    if (
      !Array.isArray(point) ||
      point.length !== 2 ||
      !point.every((value) => typeof value === 'number' && Number.isFinite(value))
    ) {
      throw new Error(`the child's rssSeries holds ${JSON.stringify(point)}`);
    }
    return [point[0] as number, point[1] as number] as const;
  });
}

function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function perMessageUs(cpuMs: number, messages: number): string {
  return ((cpuMs * 1000) / Math.max(messages, 1)).toFixed(1);
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** The scavenges' part of a node child's GC pauses (`gcPauseMsByKind.minor`); undefined when it sends none. */
function scavengePauseMs(result: Record<string, unknown>): number | undefined {
  const byKind = result.gcPauseMsByKind;
  if (byKind === undefined) return undefined;
  const minor =
    typeof byKind === 'object' && byKind !== null ? (byKind as Record<string, unknown>).minor : undefined;
  if (typeof minor !== 'number' || !Number.isFinite(minor)) {
    throw new Error(
      `the child's result has a gcPauseMsByKind without a numeric minor: ${JSON.stringify(byKind)}`,
    );
  }
  return minor;
}
