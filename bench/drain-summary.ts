/**
 * The drain race's runs as the `drain` {@link ScenarioResult} of latest.json: per contender every
 * metric as median/min/max over the measured rounds, the RSS series of its median run, and the ratios
 * the report shows (ours / Java, ours / the raw PULL limit, ours / each peer). CPU per message is there
 * because this project's machines lose up to a third of their CPU to the hypervisor's steal and share
 * their cores with other work, which makes msgs/s swing 3× between rounds of one contender: a process
 * is not charged CPU time while it waits for a CPU, so CPU per message stays steady and compares the
 * consumers' efficiency.
 */
import type { BenchOptions } from './bench-options.js';
import {
  type ConsumerResult,
  type RatioResult,
  ratio,
  type ScenarioResult,
  type Stats,
  stats,
} from './bench-results.js';
import type { DrainContender, DrainRun } from './drain-race.js';
import { rssFlatness } from './rss-flatness.js';

const MIB = 1024 * 1024;

/**
 * Metric names of the drain scenario (units in the names).
 *
 * @example
 * ```ts
 * consumer.metrics[DRAIN_METRICS.firstToAll]?.median;
 * ```
 */
export const DRAIN_METRICS = {
  startToAll: 'msgsPerSecStartToAll',
  firstToAll: 'msgsPerSecFirstToAll',
  mibFirstToAll: 'mibPerSecFirstToAll',
  /** raw-pull only: PULL body bytes (stored messages with their headers) per second. */
  wireMibFirstToAll: 'wireMiBPerSecFirstToAll',
  startToFirst: 'startToFirstMs',
  peakRss: 'peakRssMiB',
  peakHeapUsed: 'peakHeapUsedMiB',
  peakArrayBuffers: 'peakArrayBuffersMiB',
  /** Node children, at the 50 ms sample with the most RSS: that RSS, and its parts below. */
  peakSampleRss: 'peakSampleRssMiB',
  /** The V8 heap's committed pages (`heapTotal`) at that sample. */
  peakSampleV8Heap: 'peakSampleV8HeapMiB',
  /** Buffers outside the V8 heap (`arrayBuffers`: message frames not yet freed) at that sample. */
  peakSampleArrayBuffers: 'peakSampleArrayBuffersMiB',
  /** The rest at that sample: node's code (its binary's pages in use), native memory, stacks. */
  peakSampleRest: 'peakSampleRestMiB',
  wall: 'processWallMs',
  /** The consumer process's user + system CPU (all threads) from start() to the last message, per message. */
  cpuPerMessage: 'cpuUsPerMsgStartToLast',
  /** The same from the process's start (module loading, JVM start-up included), in ms, not per message. */
  cpuProcessToLast: 'cpuMsProcessToLast',
  /** The broker JVM's user + system CPU over the consumer's start() → last message, per message (a broker of ours only). */
  brokerCpuPerMessage: 'brokerCpuUsPerMsgStartToLast',
  /** The broker's CPU in the pause before the run (no consumer), in % of one core: its own background work. */
  brokerIdleCpu: 'brokerIdleCpuPercentOfCore',
  /**
   * Broker CPU per message minus its idle rate × the run's window: an estimate of what serving the
   * consumer alone costs (the background work scales with wall time, so it is charged more to slow runs).
   */
  brokerCpuPerMessageAboveIdle: 'brokerCpuUsPerMsgAboveIdle',
  /** The machine's steal time over start() → last message, in % of wall × CPUs. */
  steal: 'stealPercentStartToLast',
  rssSecondHalfMedian: 'rssSecondHalfMedianMiB',
  rssPeakOverSecondHalfMedian: 'rssPeakOverSecondHalfMedian',
  rssSecondHalfGrowth: 'rssSecondHalfGrowthMiB',
  /** GC pauses from start() to the last message, in % of that interval (main thread; JVM: its collectors). */
  gcPauseShare: 'gcPausePercentStartToLast',
  /** The same pauses per message, in µs. */
  gcPausePerMessage: 'gcPauseUsPerMsg',
  /** Ours: the scavenges' part of those pauses, in % of the same interval (the rest: whole-heap marking). */
  gcScavengeShare: 'gcScavengePausePercentStartToLast',
  /** Young-generation collections (scavenges) from start() to the last message. */
  gcMinorCount: 'gcMinorCount',
  /** Whole-heap collections (mark-compacts; the JVM's old collector) in the same interval. */
  gcMajorCount: 'gcMajorCount',
  /** Ours: median of the client's buffered messages (pulled, not yet done), sampled every 50 ms. */
  bufferedMedian: 'bufferedMessagesMedian',
  /** Ours: the largest of those samples. */
  bufferedMax: 'bufferedMessagesMax',
} as const;

/**
 * The id of the raw PULL limit line.
 *
 * @example
 * ```ts
 * scenario.consumers.find((c) => c.id === RAW_PULL_ID);
 * ```
 */
export const RAW_PULL_ID = 'raw-pull';
const OURS = ['ours', 'ours-function', 'ours-function-worker'] as const;

/**
 * The `drain` scenario of a race.
 *
 * @example
 * ```ts
 * const drain = drainScenario(contenders, runs, errors, options);
 * ```
 */
export function drainScenario(
  contenders: readonly DrainContender[],
  runs: readonly DrainRun[],
  errors: ReadonlyMap<string, string>,
  options: Pick<BenchOptions, 'messages' | 'messageBytes' | 'queues' | 'rounds' | 'warmupRounds'>,
): ScenarioResult {
  const consumers = contenders.map((contender) =>
    consumerResult(
      contender,
      runs.filter((run) => run.id === contender.id && !run.warmup),
      errors.get(contender.id),
      options.messageBytes,
    ),
  );
  const scenario = {
    id: 'drain',
    title: 'Drain a backlog',
    workload: `${options.messages.toLocaleString('en-US')} messages of ${options.messageBytes.toLocaleString('en-US')} B on ${options.queues} queues, consumed from the first offset by a fresh group per run, each consumer in its own process; ${options.warmupRounds} warm-up round(s), then ${options.rounds} measured round(s), the order rotating`,
    runs: options.rounds,
    consumers,
  };
  return { ...scenario, ratios: drainRatios(scenario, contenders) };
}

function consumerResult(
  contender: DrainContender,
  measured: readonly DrainRun[],
  error: string | undefined,
  messageBytes: number,
): ConsumerResult {
  if (measured.length === 0) {
    return { id: contender.id, label: contender.label, metrics: {}, error: error ?? 'no measured run' };
  }
  const metrics: Record<string, Stats> = {};
  const put = (name: string, pick: (run: DrainRun, index: number) => number | undefined): void => {
    const values = measured
      .map((run, index) => pick(run, index))
      .filter((value): value is number => value !== undefined);
    if (values.length === measured.length) metrics[name] = stats(values);
  };
  const perSecond = (run: DrainRun, ms: number): number => run.received / (Math.max(ms, 1) / 1000);
  put(DRAIN_METRICS.startToAll, (run) => perSecond(run, run.startToLastMs));
  put(DRAIN_METRICS.firstToAll, (run) => perSecond(run, run.firstToLastMs));
  put(DRAIN_METRICS.mibFirstToAll, (run) => (perSecond(run, run.firstToLastMs) * messageBytes) / MIB);
  put(DRAIN_METRICS.wireMibFirstToAll, (run) =>
    run.pulledBytes === undefined
      ? undefined
      : run.pulledBytes / MIB / (Math.max(run.firstToLastMs, 1) / 1000),
  );
  put(DRAIN_METRICS.startToFirst, (run) => run.startToFirstMs);
  put(DRAIN_METRICS.peakRss, (run) => run.peakRssBytes / MIB);
  put(DRAIN_METRICS.peakHeapUsed, (run) => run.peakHeapUsedBytes / MIB);
  put(DRAIN_METRICS.peakArrayBuffers, (run) => mibOf(run.peakArrayBuffersBytes));
  put(DRAIN_METRICS.peakSampleRss, (run) => mibOf(run.peakSample?.rssBytes));
  put(DRAIN_METRICS.peakSampleV8Heap, (run) => mibOf(run.peakSample?.heapTotalBytes));
  put(DRAIN_METRICS.peakSampleArrayBuffers, (run) => mibOf(run.peakSample?.arrayBuffersBytes));
  put(DRAIN_METRICS.peakSampleRest, (run) =>
    run.peakSample === undefined
      ? undefined
      : (run.peakSample.rssBytes - run.peakSample.heapTotalBytes - run.peakSample.arrayBuffersBytes) / MIB,
  );
  put(DRAIN_METRICS.wall, (run) => run.wallMs);
  const perMessageUs = (run: DrainRun, cpuMs: number): number => (cpuMs * 1000) / Math.max(run.received, 1);
  put(DRAIN_METRICS.cpuPerMessage, (run) => perMessageUs(run, run.cpuMsStartToLast));
  put(DRAIN_METRICS.cpuProcessToLast, (run) => run.cpuMsProcessToLast);
  put(DRAIN_METRICS.brokerCpuPerMessage, (run) =>
    run.brokerCpuMs === undefined ? undefined : perMessageUs(run, run.brokerCpuMs),
  );
  put(DRAIN_METRICS.brokerIdleCpu, (run) => run.brokerIdleCpuPercentOfCore);
  put(DRAIN_METRICS.brokerCpuPerMessageAboveIdle, (run) =>
    run.brokerCpuMs === undefined || run.brokerIdleCpuPercentOfCore === undefined
      ? undefined
      : perMessageUs(run, run.brokerCpuMs - (run.brokerIdleCpuPercentOfCore / 100) * run.cpuWindowMs),
  );
  put(DRAIN_METRICS.steal, (run) => run.stealPercent);
  put(DRAIN_METRICS.gcPauseShare, (run) => percentOfStartToLast(run, run.gcPauseMs));
  put(DRAIN_METRICS.gcPausePerMessage, (run) =>
    run.gcPauseMs === undefined ? undefined : perMessageUs(run, run.gcPauseMs),
  );
  put(DRAIN_METRICS.gcScavengeShare, (run) => percentOfStartToLast(run, run.gcScavengePauseMs));
  put(DRAIN_METRICS.gcMinorCount, (run) => run.gcMinorCount);
  put(DRAIN_METRICS.gcMajorCount, (run) => run.gcMajorCount);
  put(DRAIN_METRICS.bufferedMedian, (run) => run.bufferedMedian);
  put(DRAIN_METRICS.bufferedMax, (run) => run.bufferedMax);
  const flatness = measured.map((run) => rssFlatness(rssMiB(run)));
  put(DRAIN_METRICS.rssSecondHalfMedian, (_, index) => flatness[index]?.secondHalfMedianMiB);
  put(DRAIN_METRICS.rssPeakOverSecondHalfMedian, (_, index) => flatness[index]?.peakOverSecondHalfMedian);
  put(DRAIN_METRICS.rssSecondHalfGrowth, (_, index) => flatness[index]?.secondHalfGrowthMiB);
  const representative = medianRun(measured, (run) => perSecond(run, run.firstToLastMs));
  const series = rssMiB(representative);
  return {
    id: contender.id,
    label: contender.label,
    metrics,
    ...(series.length === 0 ? {} : { series: { rssMiBOverTimeMs: series } }),
    ...(error === undefined ? {} : { error }),
  };
}

/** The run whose `pick` is the median (the lower middle one of an even count). */
function medianRun(runs: readonly DrainRun[], pick: (run: DrainRun) => number): DrainRun {
  const sorted = [...runs].sort((a, b) => pick(a) - pick(b));
  const run = sorted[Math.floor((sorted.length - 1) / 2)];
  if (run === undefined) throw new Error('unreachable: no run');
  return run;
}

function rssMiB(run: DrainRun): Array<readonly [number, number]> {
  return run.rssSeries.map(([ms, bytes]) => [ms, Math.round((bytes / MIB) * 10) / 10] as const);
}

function drainRatios(
  scenario: Pick<ScenarioResult, 'consumers'>,
  contenders: readonly DrainContender[],
): RatioResult[] {
  const ratios: Array<RatioResult | undefined> = [];
  const peers = contenders.filter((contender) => !contender.builtin).map((contender) => contender.id);
  for (const ours of OURS) {
    ratios.push(
      ratio(scenario, DRAIN_METRICS.startToAll, ours, 'java', true),
      ratio(scenario, DRAIN_METRICS.firstToAll, ours, 'java', true),
      ratio(scenario, DRAIN_METRICS.peakRss, ours, 'java', false),
      ratio(scenario, DRAIN_METRICS.wall, ours, 'java', false),
      ratio(scenario, DRAIN_METRICS.cpuPerMessage, ours, 'java', false),
      ratio(scenario, DRAIN_METRICS.firstToAll, ours, RAW_PULL_ID, true),
    );
    for (const peer of peers) {
      ratios.push(
        ratio(scenario, DRAIN_METRICS.firstToAll, ours, peer, true),
        ratio(scenario, DRAIN_METRICS.peakRss, ours, peer, false),
      );
    }
  }
  ratios.push(
    ratio(scenario, DRAIN_METRICS.firstToAll, 'ours-function', 'ours', true),
    ratio(scenario, DRAIN_METRICS.peakRss, 'ours-function', 'ours', false),
    ratio(scenario, DRAIN_METRICS.cpuPerMessage, 'ours-function', 'ours', false),
    ratio(scenario, DRAIN_METRICS.firstToAll, 'ours-function-worker', 'ours', true),
    ratio(scenario, DRAIN_METRICS.firstToAll, 'ours-function-worker', 'ours-function', true),
    ratio(scenario, DRAIN_METRICS.cpuPerMessage, 'ours-function-worker', 'ours-function', false),
    // What serving our pulls costs the broker, against serving Java's.
    ratio(scenario, DRAIN_METRICS.brokerCpuPerMessage, 'ours', 'java', false),
    ratio(scenario, DRAIN_METRICS.brokerCpuPerMessageAboveIdle, 'ours', 'java', false),
  );
  return ratios.filter((entry): entry is RatioResult => entry !== undefined);
}

/** `ms` in % of the run's start() → last message (undefined stays undefined). */
function percentOfStartToLast(run: DrainRun, ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : (ms / Math.max(run.startToLastMs, 1)) * 100;
}

function mibOf(bytes: number | undefined): number | undefined {
  return bytes === undefined ? undefined : bytes / MIB;
}
