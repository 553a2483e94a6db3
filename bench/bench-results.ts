/**
 * The machine-readable results of `npm run bench`: the shape of `bench/results/latest.json` (and
 * `quick.json`). Every scenario of a run (drain throughput, decode, latency, HTTP Lambda path, offset
 * writes, ...) reports the same way: per consumer, named metrics as {@link Stats} over the measured
 * runs, optional time series (RSS over time, ...), or the error that kept that consumer from running.
 * bench/README.md documents the shape for readers; this file is its single definition.
 */

/** Median, min and max of one metric over the measured runs, and the runs themselves in order. */
export interface Stats {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly values: readonly number[];
}

/** One consumer (ours, a peer) in one scenario. */
export interface ConsumerResult {
  /** Stable id: `ours`, `ours-function`, `java`, `ali-ons`, `rocketmq-client-nodejs`, ... */
  readonly id: string;
  /** What ran, for a reader (`Java DefaultMQPushConsumer 5.3.3, counting listener`). */
  readonly label: string;
  /** Metric name -> stats; units are in the name (`msgsPerSecFirstToAll`, `peakRssMiB`, `latencyP99Ms`). */
  readonly metrics: Readonly<Record<string, Stats>>;
  /** Series name -> points `[x, y]` of one representative run (`rssMiBOverTimeMs`: [ms since start, MiB]). */
  readonly series?: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>;
  /** Set when this consumer could not run here: the error, verbatim, and no metrics. */
  readonly error?: string;
}

/** A ratio between two consumers of one scenario on one metric (`ours-function / java`). */
export interface RatioResult {
  readonly metric: string;
  readonly numerator: string;
  readonly denominator: string;
  /** numerator median / denominator median. */
  readonly value: number;
  /** True when a value above 1 favours the numerator (throughput); false for memory and latency. */
  readonly higherIsBetter: boolean;
}

/** One scenario of a run. */
export interface ScenarioResult {
  /** Stable id: `drain`, `decode`, `latency-1000-window-0`, `http-invoke-batch-100`, `offset-writes`, ... */
  readonly id: string;
  readonly title: string;
  /** The workload in words (messages, sizes, queues, rates). */
  readonly workload: string;
  /** Measured runs per consumer (warm-ups excluded). */
  readonly runs: number;
  readonly consumers: readonly ConsumerResult[];
  readonly ratios: readonly RatioResult[];
  /** Set when the scenario itself failed (its run() threw): the error, verbatim; consumers may be empty. */
  readonly error?: string;
}

/**
 * A target or guard of issue 34, judged on this run's figures.
 *
 * @example
 * ```ts
 * const check: BenchCheck = { id: 'gc-function-path', kind: 'target', what: 'GC pauses ...', value: 2.1, limit: '<= 3', pass: true };
 * ```
 */
export interface BenchCheck {
  readonly id: string;
  readonly kind: 'target' | 'guard';
  readonly what: string;
  /** The figure judged (a ratio, a %, a verdict), or null when the run lacks it. */
  readonly value: number | string | null;
  /** The condition, in words (`<= 3`, `>= 1.5`, `flat`). */
  readonly limit: string;
  /** Null when the run lacks an input (see `reason`). */
  readonly pass: boolean | null;
  readonly reason?: string;
}

/** The whole file. */
export interface BenchResults {
  readonly schemaVersion: 1;
  readonly date: string;
  readonly command: string;
  readonly quick: boolean;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly memoryMiB: number;
    /** 1-minute load average at the start and at the end of the run: a busy machine makes figures noisy. */
    readonly loadAverage: { readonly start: number; readonly end: number };
  };
  /** Component -> version (`node`, `java`, `rocketmq`, `ali-ons`, `rocketmq-client-nodejs`, ...). */
  readonly versions: Readonly<Record<string, string>>;
  readonly scenarios: readonly ScenarioResult[];
  /**
   * The headline figures derived from `scenarios` (bench-summary.ts): every field, a number or null
   * when this run did not measure it (`summaryMissing` says why).
   */
  readonly summary?: Readonly<Record<string, number | null>>;
  /** Summary field -> why it is null. */
  readonly summaryMissing?: Readonly<Record<string, string>>;
  /** Issue 34's targets and guards judged on this run (bench-summary.ts). */
  readonly checks?: readonly BenchCheck[];
}

/**
 * Median, min and max of `values` (the median of an even count is the mean of the middle two).
 *
 * @example
 * ```ts
 * stats([3, 1, 2]); // => { median: 2, min: 1, max: 3, values: [3, 1, 2] }
 * ```
 */
export function stats(values: readonly number[]): Stats {
  if (values.length === 0) throw new Error('stats of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, values: [...values] };
}

/**
 * The ratio of two consumers' medians on one metric, or undefined when either lacks the metric.
 *
 * @example
 * ```ts
 * ratio(scenario, 'msgsPerSecFirstToAll', 'ours-function', 'java', true);
 * ```
 */
export function ratio(
  scenario: Pick<ScenarioResult, 'consumers'>,
  metric: string,
  numerator: string,
  denominator: string,
  higherIsBetter: boolean,
): RatioResult | undefined {
  const top = scenario.consumers.find((consumer) => consumer.id === numerator)?.metrics[metric];
  const bottom = scenario.consumers.find((consumer) => consumer.id === denominator)?.metrics[metric];
  if (top === undefined || bottom === undefined || bottom.median === 0) return undefined;
  return { metric, numerator, denominator, value: top.median / bottom.median, higherIsBetter };
}
