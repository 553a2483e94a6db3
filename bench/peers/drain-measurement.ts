/**
 * What a peer's drain child measures about itself, with the same fields and samplers as our
 * consumer's child (consumer-child.ts): messages seen, start → first → last times, the process's CPU
 * time up to the last message, the kernel's peak RSS, peak V8 heap used and `arrayBuffers` from a
 * 50 ms sampler, an RSS series every 200 ms, and the main thread's GC pauses (Node's `gc` performance
 * entries) from the client's start to the last message. The peer children only differ in the client
 * they drive; keeping the measuring here keeps their figures comparable with each other and with ours.
 */
import { readFileSync } from 'node:fs';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { percentile } from '../percentile.js';

const PEAK_SAMPLE_INTERVAL_MS = 50;
const RSS_SERIES_INTERVAL_MS = 200;
const RESULT_PREFIX = 'BENCH_RESULT ';

/**
 * The line a drain child prints right before it starts its client (`started()`; the Java consumer
 * prints it too): the harness reads the broker's CPU and the machine's steal then and at the result
 * line, so that both cover the child's start → last message (drain-race.ts).
 *
 * @example
 * ```ts
 * if (line === STARTED_LINE) before = cpuSnapshot(brokerPid);
 * ```
 */
export const STARTED_LINE = 'BENCH_STARTED';

/** The `BENCH_RESULT` fields of one drain run, as consumer-child.ts prints them. */
export interface DrainResult {
  readonly received: number;
  readonly startToFirstMs: number;
  readonly startToLastMs: number;
  readonly firstToLastMs: number;
  /**
   * User + system CPU time of the whole process (every thread: V8's GC and compiler threads, libuv's
   * pool) from `started()` to the last message: the same interval as `startToLastMs`.
   */
  readonly cpuMsStartToLast: number;
  /** The same from the process's start (module loading included) to the last message. */
  readonly cpuMsProcessToLast: number;
  readonly peakRssBytes: number;
  readonly peakHeapUsedBytes: number;
  readonly peakArrayBuffersBytes: number;
  /**
   * Where the resident memory was at the 50 ms sample with the most RSS (from the process's start to the
   * last message): that sample's RSS, the V8 heap's committed pages (`heapTotal`) and the Buffers'
   * memory outside the heap (`arrayBuffers`: message frames waiting for a collection to free them). The
   * rest is node's own code and native memory. VmHWM may be a little above the sample's RSS.
   */
  readonly peakSample: PeakRssSample;
  /** `[ms since start(), RSS bytes]` every 200 ms from the consumer's start to the last message. */
  readonly rssSeries: readonly (readonly [number, number])[];
  /**
   * The main thread's GC pauses from `started()` to the last message: the summed durations of every
   * `gc` performance entry (scavenges, mark-compacts, incremental marking steps, weak callbacks). The
   * work V8's helper threads do concurrently is not a pause; it is in the CPU figures.
   */
  readonly gcPauseMs: number;
  /** Scavenges (young generation) in that interval. */
  readonly gcMinorCount: number;
  /** Mark-compacts (the whole heap) in that interval. */
  readonly gcMajorCount: number;
  /**
   * `gcPauseMs` split by the entry's kind: scavenges (`minor`), mark-compacts' final pauses (`major`),
   * incremental marking steps on the main thread (`incremental`) and weak-handle callbacks (`weakcb`).
   */
  readonly gcPauseMsByKind: GcPauseByKind;
  /**
   * Where the child tracks it ({@link DrainMeasurement.trackBuffered}): the client's buffered messages
   * (pulled, not yet done), median (nearest rank) and largest of samples every 50 ms from `started()` to the last
   * message. Near 0: the consumer waited for its pulls; near the flow-control limit: it fell behind.
   */
  readonly bufferedMedian?: number;
  readonly bufferedMax?: number;
}

/** See {@link DrainResult.peakSample}. */
export interface PeakRssSample {
  readonly rssBytes: number;
  readonly heapTotalBytes: number;
  readonly arrayBuffersBytes: number;
}

/** Milliseconds of main-thread GC pause per kind of `gc` performance entry. */
export interface GcPauseByKind {
  readonly minor: number;
  readonly major: number;
  readonly incremental: number;
  readonly weakcb: number;
}

const GC_KIND_NAMES = new Map<number, keyof GcPauseByKind>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

/**
 * Counts one child's messages and samples its memory. Create it before the client so that the heap
 * peaks cover the client's start-up; call {@link DrainMeasurement.started} right before the client's
 * start, {@link DrainMeasurement.count} from the listener, await `done`, then {@link DrainMeasurement.finish}.
 *
 * @example
 * ```ts
 * const measurement = new DrainMeasurement(spec.expected);
 * measurement.started();
 * await consumer.start(); // its listener calls measurement.count(1)
 * await measurement.done;
 * printDrainResult(measurement.finish());
 * ```
 */
export class DrainMeasurement {
  /** Resolves once `expected` messages were counted. */
  readonly done: Promise<void>;
  #received = 0;
  #startedAtMs: number | undefined;
  #firstAtMs: number | undefined;
  #lastAtMs: number | undefined;
  #cpuAtStart: NodeJS.CpuUsage | undefined;
  #cpuAtLast: NodeJS.CpuUsage | undefined;
  #peakHeapUsedBytes = 0;
  #peakArrayBuffersBytes = 0;
  #peakSample: PeakRssSample = { rssBytes: 0, heapTotalBytes: 0, arrayBuffersBytes: 0 };
  readonly #rssSeries: [number, number][] = [];
  #markDone: () => void = () => undefined;
  readonly #peakSampler: NodeJS.Timeout;
  #rssSampler: NodeJS.Timeout | undefined;
  readonly #gcObserver = new PerformanceObserver((list) => this.#addGcEntries(list.getEntries()));
  #gcPauseMs = 0;
  #gcMinorCount = 0;
  #gcMajorCount = 0;
  readonly #gcPauseMsByKind = { minor: 0, major: 0, incremental: 0, weakcb: 0 };
  #bufferedProbe: (() => Promise<number>) | undefined;
  readonly #bufferedSamples: number[] = [];
  /** A probe is running (one at a time). */
  #bufferedSampling = false;
  #bufferedError: Error | undefined;

  constructor(private readonly expected: number) {
    this.done = new Promise((resolve) => {
      this.#markDone = resolve;
    });
    this.#peakSampler = setInterval(() => this.#samplePeaks(), PEAK_SAMPLE_INTERVAL_MS);
    this.#samplePeaks();
  }

  /** Messages counted so far. */
  get received(): number {
    return this.#received;
  }

  /**
   * Samples the client's buffered messages (pulled, not yet done) with the memory peaks, from
   * `started()` to the last message; a probe that fails stops the sampling loudly at `finish()`.
   */
  trackBuffered(probe: () => Promise<number>): void {
    this.#bufferedProbe = probe;
  }

  /** Marks the client's start: the origin of every time, of the RSS series and of the GC pauses. */
  started(): void {
    process.stdout.write(`${STARTED_LINE}\n`);
    this.#cpuAtStart = process.cpuUsage();
    const startedAtMs = performance.now();
    this.#startedAtMs = startedAtMs;
    this.#gcObserver.observe({ entryTypes: ['gc'] });
    const sampleRss = (): void => {
      this.#rssSeries.push([Math.round(performance.now() - startedAtMs), process.memoryUsage.rss()]);
    };
    this.#rssSampler = setInterval(sampleRss, RSS_SERIES_INTERVAL_MS);
    sampleRss();
  }

  /** Counts `messages` delivered to the listener now. */
  count(messages: number): void {
    const now = performance.now();
    this.#firstAtMs ??= now;
    this.#received += messages;
    if (this.#received >= this.expected && this.#lastAtMs === undefined) {
      this.#lastAtMs = now;
      this.#cpuAtLast = process.cpuUsage();
      // Node makes a GC's entry in the check phase after it: resolving there lets finish() see them all.
      setImmediate(this.#markDone);
    }
  }

  /** Stops the samplers and returns the figures (before the client's shutdown, which is not measured). */
  finish(): DrainResult {
    this.#samplePeaks();
    this.#addGcEntries(this.#gcObserver.takeRecords());
    this.stop();
    if (this.#bufferedError !== undefined) throw this.#bufferedError;
    const startedAtMs = this.#startedAtMs ?? performance.now();
    const first = this.#firstAtMs ?? startedAtMs;
    const last = this.#lastAtMs ?? first;
    const cpuAtLast = this.#cpuAtLast ?? process.cpuUsage();
    const cpuAtStart = this.#cpuAtStart ?? cpuAtLast;
    return {
      received: this.#received,
      startToFirstMs: round(first - startedAtMs),
      startToLastMs: round(last - startedAtMs),
      firstToLastMs: round(last - first),
      cpuMsStartToLast: round(cpuMs(cpuAtLast) - cpuMs(cpuAtStart)),
      cpuMsProcessToLast: round(cpuMs(cpuAtLast)),
      peakRssBytes: vmHwmBytes(),
      peakHeapUsedBytes: this.#peakHeapUsedBytes,
      peakArrayBuffersBytes: this.#peakArrayBuffersBytes,
      peakSample: this.#peakSample,
      rssSeries: this.#rssSeries,
      gcPauseMs: round(this.#gcPauseMs),
      gcMinorCount: this.#gcMinorCount,
      gcMajorCount: this.#gcMajorCount,
      gcPauseMsByKind: {
        minor: round(this.#gcPauseMsByKind.minor),
        major: round(this.#gcPauseMsByKind.major),
        incremental: round(this.#gcPauseMsByKind.incremental),
        weakcb: round(this.#gcPauseMsByKind.weakcb),
      },
      ...(this.#bufferedProbe === undefined
        ? {}
        : {
            bufferedMedian: this.#bufferedSamples.length === 0 ? 0 : percentile(this.#bufferedSamples, 50),
            bufferedMax: Math.max(0, ...this.#bufferedSamples),
          }),
    };
  }

  /** Stops the samplers (also on failure, so that the child can exit). */
  stop(): void {
    clearInterval(this.#peakSampler);
    if (this.#rssSampler !== undefined) clearInterval(this.#rssSampler);
    this.#gcObserver.disconnect();
  }

  /** Adds the entries of GCs that started between `started()` and the last message. */
  #addGcEntries(entries: readonly PerformanceEntry[]): void {
    const from = this.#startedAtMs;
    if (from === undefined) return;
    const to = this.#lastAtMs ?? Number.POSITIVE_INFINITY;
    for (const entry of entries) {
      if (entry.startTime < from || entry.startTime > to) continue;
      this.#gcPauseMs += entry.duration;
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) this.#gcMinorCount++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) this.#gcMajorCount++;
      const name = kind === undefined ? undefined : GC_KIND_NAMES.get(kind);
      if (name !== undefined) this.#gcPauseMsByKind[name] += entry.duration;
    }
  }

  #sampleBuffered(): void {
    const probe = this.#bufferedProbe;
    if (probe === undefined || this.#startedAtMs === undefined || this.#lastAtMs !== undefined) return;
    if (this.#bufferedSampling || this.#bufferedError !== undefined) return;
    this.#bufferedSampling = true;
    probe().then(
      (buffered) => {
        this.#bufferedSampling = false;
        if (this.#lastAtMs === undefined) this.#bufferedSamples.push(buffered);
      },
      (error: unknown) => {
        this.#bufferedSampling = false;
        this.#bufferedError = new Error('the buffered-messages probe failed', { cause: error });
      },
    );
  }

  #samplePeaks(): void {
    this.#sampleBuffered();
    const usage = process.memoryUsage();
    this.#peakHeapUsedBytes = Math.max(this.#peakHeapUsedBytes, usage.heapUsed);
    this.#peakArrayBuffersBytes = Math.max(this.#peakArrayBuffersBytes, usage.arrayBuffers);
    // Only while the drain lasts: the client's shutdown is not measured.
    if (usage.rss > this.#peakSample.rssBytes && this.#lastAtMs === undefined) {
      this.#peakSample = {
        rssBytes: usage.rss,
        heapTotalBytes: usage.heapTotal,
        arrayBuffersBytes: usage.arrayBuffers,
      };
    }
  }
}

/**
 * Prints the result line the harness reads (child-run.ts).
 *
 * @example
 * ```ts
 * printDrainResult(measurement.finish());
 * ```
 */
export function printDrainResult(result: DrainResult): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

/** Peak resident set size (VmHWM) of this process in bytes, as the kernel counts it. */
function vmHwmBytes(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error('no VmHWM line in /proc/self/status');
  return Number(kib) * 1024;
}

/** User + system of a `process.cpuUsage()` (µs) in ms. */
function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
