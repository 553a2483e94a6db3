/**
 * The top-level `summary` and `checks` of bench/results/*.json: the headline figures of issue 34 as plain
 * numbers a script can read, each derived from the scenarios of the same run, and the issue's targets and
 * guards judged on them. Every field is always there: a number, or `null` when the run did not measure
 * what it needs (a `--only` run, a failed consumer), with the reason in `missing`; a check without its
 * inputs has `pass: null` and a reason. Nothing here is estimated: every number is a median (or a ratio of
 * medians) of the runs in the results.
 */
import type { BenchCheck, ConsumerResult, ScenarioResult } from './bench-results.js';
import { DRAIN_METRICS, RAW_PULL_ID } from './drain-summary.js';
import { HTTP_INVOKE_CONSUMER_IDS } from './http-invoke-scenario.js';
import { PER_VCPU_CONSUMER_ID } from './per-vcpu-scenario.js';
import { rssVerdict } from './rss-flatness.js';

export type { BenchCheck } from './bench-results.js';

/**
 * The headline figures, in the order latest.md lists them.
 *
 * @example
 * ```ts
 * SUMMARY_FIELDS.includes('javaCpuUsPerMsg'); // => true
 * ```
 */
export const SUMMARY_FIELDS = [
  'httpInvokeOverheadCpuMsPer100',
  'httpInvokeFloorCpuMsPer100',
  'httpInvokeOverheadCpuMsPer1000',
  'httpInvokeFloorCpuMsPer1000',
  'productionPathCpuUsPerMsg',
  'javaCpuUsPerMsg',
  'productionPathVsJavaCpuPerMsg',
  'gcPausePctFunctionPath',
  'gcPausePctLambdaPath',
  'functionPathVsJavaFirstToAll',
  'perVcpuMsgsPerSecBatch100',
  'perVcpuMsgsPerSecBatch1000',
  'perVcpuWallMsgsPerSecBatch100',
  'perVcpuWallMsgsPerSecBatch1000',
  'perVcpuPeakRssMiBBatch100',
  'perVcpuPeakRssMiBBatch1000',
] as const;

/** One headline figure's name. */
export type SummaryField = (typeof SUMMARY_FIELDS)[number];

/**
 * What each field is, for latest.md and the README.
 *
 * @example
 * ```ts
 * SUMMARY_DESCRIPTIONS.javaCpuUsPerMsg; // => 'Java DefaultMQPushConsumer, no-op listener: CPU µs per message ...'
 * ```
 */
export const SUMMARY_DESCRIPTIONS: Readonly<Record<SummaryField, string>> = {
  httpInvokeOverheadCpuMsPer100:
    'HTTP invoke overhead: CPU ms per 100-record invoke, Lambda path over HTTP minus the in-process path (http-invoke)',
  httpInvokeFloorCpuMsPer100:
    'the floor of that overhead: one SigV4-signed request over node:http keep-alive, minus in-process (http-invoke)',
  httpInvokeOverheadCpuMsPer1000: 'the HTTP invoke overhead per 1,000-record invoke (http-invoke)',
  httpInvokeFloorCpuMsPer1000: 'its floor per 1,000-record invoke (http-invoke)',
  productionPathCpuUsPerMsg:
    'production path (decode, event, signed HTTP invoke via LambdaInvoker, result): CPU µs per message, start() to last message, batch 100 (http-invoke)',
  javaCpuUsPerMsg:
    'Java DefaultMQPushConsumer, no-op listener: CPU µs per message, start() to last message (drain)',
  productionPathVsJavaCpuPerMsg: 'productionPathCpuUsPerMsg / javaCpuUsPerMsg',
  gcPausePctFunctionPath:
    'GC pauses of the function path (LocalInvoker) in % of its drain, start() to last message (drain, ours-function)',
  gcPausePctLambdaPath:
    'GC pauses of the Lambda path over HTTP in % of its drain, batch 100 (http-invoke, ours-lambda-http)',
  functionPathVsJavaFirstToAll: 'function path msgs/s first → all / Java’s (drain)',
  perVcpuMsgsPerSecBatch100:
    'msgs/s per vCPU of the production path pinned to one core, batch 100: messages per CPU-second of the pinned poller, the rate one fully used vCPU gives (per-vcpu)',
  perVcpuMsgsPerSecBatch1000: 'the same at batch 1,000 (per-vcpu)',
  perVcpuWallMsgsPerSecBatch100:
    'msgs/s the pinned poller delivered, first → last message, batch 100: below the per-vCPU figure when its core was not the bound (per-vcpu)',
  perVcpuWallMsgsPerSecBatch1000: 'the same at batch 1,000 (per-vcpu)',
  perVcpuPeakRssMiBBatch100: 'its peak RSS in MiB, batch 100 (per-vcpu)',
  perVcpuPeakRssMiBBatch1000: 'its peak RSS in MiB, batch 1,000 (per-vcpu)',
};

/** The headline figures: a number each, or null when the run did not measure it. */
export type BenchSummary = Readonly<Record<SummaryField, number | null>>;

/**
 * The summary, the reasons of its null fields, and the checks.
 *
 * @example
 * ```ts
 * const { summary, missing, checks } = benchSummary(results.scenarios);
 * ```
 */
export interface BenchSummaryResult {
  readonly summary: BenchSummary;
  /** Field -> why it is null. */
  readonly missing: Readonly<Partial<Record<SummaryField, string>>>;
  readonly checks: readonly BenchCheck[];
}

/** A figure read from the results, or why it could not be. */
type Figure = { value: number } | { reason: string };

/** Issue 34's bounds. */
const LIMITS = {
  httpInvokeOverheadCpuMsPer100: 0.8,
  productionPathVsJavaCpu: 1,
  gcPausePct: 3,
  functionVsJavaMsgs: 1.5,
  functionVsJavaCpu: 0.45,
  decoderVsJava: 1,
  bareVsRawPull: 0.8,
  latencyVsJava: 1,
  rssVsJava: 0.5,
} as const;

const LATENCY_RATES = [1000, 5000] as const;

/**
 * The summary of a run's scenarios.
 *
 * @example
 * ```ts
 * benchSummary([]).summary.javaCpuUsPerMsg; // => null (missing.javaCpuUsPerMsg says why)
 * ```
 */
export function benchSummary(scenarios: readonly ScenarioResult[]): BenchSummaryResult {
  const read = new FigureReader(scenarios);
  const overhead = (batch: number, path: 'lambda' | 'floor'): Figure => {
    const scenario = `http-invoke-batch-${batch}`;
    return difference(
      read.median(scenario, HTTP_INVOKE_CONSUMER_IDS[path], 'cpuMsPerInvoke'),
      read.median(scenario, HTTP_INVOKE_CONSUMER_IDS.local, 'cpuMsPerInvoke'),
    );
  };
  const production = read.median(
    'http-invoke-batch-100',
    HTTP_INVOKE_CONSUMER_IDS.lambda,
    'cpuUsPerMsgStartToLast',
  );
  const java = read.median('drain', 'java', DRAIN_METRICS.cpuPerMessage);
  const figures: Record<SummaryField, Figure> = {
    httpInvokeOverheadCpuMsPer100: overhead(100, 'lambda'),
    httpInvokeFloorCpuMsPer100: overhead(100, 'floor'),
    httpInvokeOverheadCpuMsPer1000: overhead(1000, 'lambda'),
    httpInvokeFloorCpuMsPer1000: overhead(1000, 'floor'),
    productionPathCpuUsPerMsg: production,
    javaCpuUsPerMsg: java,
    productionPathVsJavaCpuPerMsg: quotient(production, java),
    gcPausePctFunctionPath: read.median('drain', 'ours-function', DRAIN_METRICS.gcPauseShare),
    gcPausePctLambdaPath: read.median(
      'http-invoke-batch-100',
      HTTP_INVOKE_CONSUMER_IDS.lambda,
      'gcPausePercentStartToLast',
    ),
    functionPathVsJavaFirstToAll: read.ratio('drain', 'ours-function', 'java', DRAIN_METRICS.firstToAll),
    perVcpuMsgsPerSecBatch100: read.median('per-vcpu-batch-100', PER_VCPU_CONSUMER_ID, 'msgsPerCpuSec'),
    perVcpuMsgsPerSecBatch1000: read.median('per-vcpu-batch-1000', PER_VCPU_CONSUMER_ID, 'msgsPerCpuSec'),
    perVcpuWallMsgsPerSecBatch100: read.median(
      'per-vcpu-batch-100',
      PER_VCPU_CONSUMER_ID,
      'msgsPerSecFirstToAll',
    ),
    perVcpuWallMsgsPerSecBatch1000: read.median(
      'per-vcpu-batch-1000',
      PER_VCPU_CONSUMER_ID,
      'msgsPerSecFirstToAll',
    ),
    perVcpuPeakRssMiBBatch100: read.median('per-vcpu-batch-100', PER_VCPU_CONSUMER_ID, 'peakRssMiB'),
    perVcpuPeakRssMiBBatch1000: read.median('per-vcpu-batch-1000', PER_VCPU_CONSUMER_ID, 'peakRssMiB'),
  };
  const summary = {} as Record<SummaryField, number | null>;
  const missing: Partial<Record<SummaryField, string>> = {};
  for (const field of SUMMARY_FIELDS) {
    const figure = figures[field];
    if ('value' in figure) summary[field] = round(figure.value);
    else {
      summary[field] = null;
      missing[field] = figure.reason;
    }
  }
  return { summary, missing, checks: checksOf(read, figures) };
}

function checksOf(read: FigureReader, figures: Record<SummaryField, Figure>): BenchCheck[] {
  const checks: BenchCheck[] = [
    bound(
      'http-invoke-overhead',
      'target',
      'HTTP invoke overhead, CPU ms per 100 x 1 KiB invoke',
      figures.httpInvokeOverheadCpuMsPer100,
      '<=',
      LIMITS.httpInvokeOverheadCpuMsPer100,
    ),
    bound(
      'production-path-cpu',
      'target',
      "production path's CPU per message / Java's (no-op consume)",
      figures.productionPathVsJavaCpuPerMsg,
      '<=',
      LIMITS.productionPathVsJavaCpu,
    ),
    bound(
      'gc-function-path',
      'target',
      'GC pauses, % of the function path’s drain',
      figures.gcPausePctFunctionPath,
      '<=',
      LIMITS.gcPausePct,
    ),
    bound(
      'gc-lambda-path',
      'target',
      'GC pauses, % of the Lambda path’s drain (batch 100)',
      figures.gcPausePctLambdaPath,
      '<=',
      LIMITS.gcPausePct,
    ),
    bound(
      'per-vcpu-batch-100',
      'target',
      'msgs/s per vCPU measured, batch 100',
      figures.perVcpuMsgsPerSecBatch100,
      '>',
      0,
    ),
    bound(
      'per-vcpu-batch-1000',
      'target',
      'msgs/s per vCPU measured, batch 1,000',
      figures.perVcpuMsgsPerSecBatch1000,
      '>',
      0,
    ),
    bound(
      'function-vs-java-msgs',
      'guard',
      'function path / Java, msgs/s first → all',
      figures.functionPathVsJavaFirstToAll,
      '>=',
      LIMITS.functionVsJavaMsgs,
    ),
    bound(
      'function-vs-java-cpu',
      'guard',
      'function path / Java, CPU µs per message',
      read.ratio('drain', 'ours-function', 'java', DRAIN_METRICS.cpuPerMessage),
      '<=',
      LIMITS.functionVsJavaCpu,
    ),
  ];
  const decodeShapes = read.scenarioIds().filter((id) => id.startsWith('decode-'));
  if (decodeShapes.length === 0)
    checks.push(
      bound(
        'decoder-vs-java',
        'guard',
        'decoder / Java, msgs/s',
        { reason: 'no decode scenario in this run' },
        '>=',
        LIMITS.decoderVsJava,
      ),
    );
  for (const shape of decodeShapes)
    checks.push(
      bound(
        `decoder-vs-java-${shape.slice('decode-'.length)}`,
        'guard',
        `decoder / Java, msgs/s, ${shape}`,
        read.ratio(shape, 'ours', 'java', 'msgsPerSec'),
        '>=',
        LIMITS.decoderVsJava,
      ),
    );
  checks.push(
    bound(
      'bare-vs-raw-pull',
      'guard',
      'bare consumer / raw PULL limit, msgs/s first → all',
      read.ratio('drain', 'ours', RAW_PULL_ID, DRAIN_METRICS.firstToAll),
      '>=',
      LIMITS.bareVsRawPull,
    ),
  );
  for (const rate of LATENCY_RATES)
    for (const percentile of ['P50', 'P99'] as const)
      checks.push(
        bound(
          `latency-${percentile.toLowerCase()}-${rate}`,
          'guard',
          `function path / Java, latency ${percentile.toLowerCase()} at ${rate.toLocaleString('en-US')} msg/s (window 0)`,
          read.ratio(`latency-${rate}-window-0`, 'ours-function', 'java', `latency${percentile}Ms`),
          '<=',
          LIMITS.latencyVsJava,
        ),
      );
  for (const id of ['ours', 'ours-function']) {
    checks.push(
      bound(
        `rss-vs-java-${id}`,
        'guard',
        `${id} / Java, peak RSS`,
        read.ratio('drain', id, 'java', DRAIN_METRICS.peakRss),
        '<=',
        LIMITS.rssVsJava,
      ),
    );
    checks.push(flatCheck(id, read.consumer('drain', id)));
  }
  return checks;
}

function bound(
  id: string,
  kind: BenchCheck['kind'],
  what: string,
  figure: Figure,
  op: '<=' | '>=' | '>',
  limit: number,
): BenchCheck {
  const condition = `${op} ${limit}`;
  if (!('value' in figure))
    return { id, kind, what, value: null, limit: condition, pass: null, reason: figure.reason };
  const value = round(figure.value);
  const pass = op === '<=' ? value <= limit : op === '>=' ? value >= limit : value > limit;
  return { id, kind, what, value, limit: condition, pass };
}

function flatCheck(id: string, consumer: ConsumerResult | { reason: string }): BenchCheck {
  const base = {
    id: `rss-flat-${id}`,
    kind: 'guard' as const,
    what: `${id}: RSS flat over the drain`,
    limit: 'flat',
  };
  if ('reason' in consumer) return { ...base, value: null, pass: null, reason: consumer.reason };
  const median = consumer.metrics[DRAIN_METRICS.rssSecondHalfMedian]?.median;
  const peak = consumer.metrics[DRAIN_METRICS.rssPeakOverSecondHalfMedian]?.median;
  const growth = consumer.metrics[DRAIN_METRICS.rssSecondHalfGrowth]?.median;
  if (median === undefined || peak === undefined || growth === undefined)
    return { ...base, value: null, pass: null, reason: 'too few RSS samples for a verdict (a short run)' };
  const verdict = rssVerdict({
    secondHalfMedianMiB: median,
    peakMiB: median * peak,
    peakOverSecondHalfMedian: peak,
    secondHalfGrowthMiB: growth,
  });
  return { ...base, value: verdict, pass: verdict === 'flat' };
}

/** Reads medians and ratios of medians out of the results, or says which one is missing. */
class FigureReader {
  constructor(private readonly scenarios: readonly ScenarioResult[]) {}

  scenarioIds(): string[] {
    return this.scenarios.map((scenario) => scenario.id);
  }

  consumer(scenarioId: string, consumerId: string): ConsumerResult | { reason: string } {
    const scenario = this.scenarios.find((entry) => entry.id === scenarioId);
    if (scenario === undefined) return { reason: `no ${scenarioId} scenario in this run` };
    if (scenario.error !== undefined) return { reason: `${scenarioId} failed: ${scenario.error}` };
    const consumer = scenario.consumers.find((entry) => entry.id === consumerId);
    if (consumer === undefined) return { reason: `${scenarioId} has no ${consumerId}` };
    return consumer;
  }

  median(scenarioId: string, consumerId: string, metric: string): Figure {
    const consumer = this.consumer(scenarioId, consumerId);
    if ('reason' in consumer) return consumer;
    const stats = consumer.metrics[metric];
    if (stats === undefined)
      return {
        reason: `${scenarioId}: ${consumerId} has no ${metric}${consumer.error === undefined ? '' : ` (it failed: ${consumer.error})`}`,
      };
    return { value: stats.median };
  }

  ratio(scenarioId: string, numerator: string, denominator: string, metric: string): Figure {
    return quotient(this.median(scenarioId, numerator, metric), this.median(scenarioId, denominator, metric));
  }
}

function difference(a: Figure, b: Figure): Figure {
  if (!('value' in a)) return a;
  if (!('value' in b)) return b;
  return { value: a.value - b.value };
}

function quotient(a: Figure, b: Figure): Figure {
  if (!('value' in a)) return a;
  if (!('value' in b)) return b;
  if (b.value === 0) return { reason: 'the denominator is 0' };
  return { value: a.value / b.value };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
