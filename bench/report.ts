/**
 * The bench's figures: per-run measurements, their medians per consumer, the ratios ours / Java, and
 * the Markdown report printed to stdout and written to bench/results/.
 */
import type { BenchOptions, ConsumerKind } from './bench-options.js';
import { DECODE_WORK, type DecodeCaseResult, type DecodeRate } from './decode-bench.js';

/**
 * One consumer run, as measured by the child itself (wall time by the harness).
 *
 * @example
 * ```ts
 * const run: ConsumerRun = { kind: 'java', round: 1, warmup: false, received: 100_000, startToFirstMs: 900,
 *   startToLastMs: 9000, firstToLastMs: 8100, peakRssBytes: 3e8, peakHeapUsedBytes: 1e8, peakArrayBuffersBytes: undefined, wallMs: 11_000 };
 * ```
 */
export interface ConsumerRun {
  readonly kind: ConsumerKind;
  readonly round: number;
  /** A warm-up run: listed, but not in the medians. */
  readonly warmup: boolean;
  readonly received: number;
  /** From the consumer's start() to the first batch handed to the listener. */
  readonly startToFirstMs: number;
  /** From start() until the listener had seen every message. */
  readonly startToLastMs: number;
  readonly firstToLastMs: number;
  /** VmHWM of the child process at the end of consumption. */
  readonly peakRssBytes: number;
  /** The largest used heap seen by a 50 ms sampler (V8 heapUsed / JVM heap used). */
  readonly peakHeapUsedBytes: number;
  /** Our consumer only: the largest `process.memoryUsage().arrayBuffers` seen (Buffers outside the V8 heap). */
  readonly peakArrayBuffersBytes: number | undefined;
  /** Spawn to exit of the child: runtime start-up, connection, consumption and shutdown. */
  readonly wallMs: number;
}

/**
 * The medians of one consumer's runs.
 *
 * @example
 * ```ts
 * const [summary] = summarize(runs, 100_000);
 * console.log(summary?.messagesPerSecond);
 * ```
 */
export interface ConsumerSummary {
  readonly kind: ConsumerKind;
  readonly runs: number;
  /** N / startToLast, median over runs. */
  readonly messagesPerSecond: number;
  /** N / firstToLast (consumption once the first batch arrived), median over runs. */
  readonly steadyMessagesPerSecond: number;
  readonly startToFirstMs: number;
  readonly peakRssBytes: number;
  readonly peakHeapUsedBytes: number;
  readonly wallMs: number;
}

/**
 * Facts about the run for the report's header.
 *
 * @example
 * ```ts
 * const env: BenchEnvironment = { date: new Date().toISOString(), cpus: 2, cpuModel: 'x', memoryMb: 24000,
 *   nodeVersion: process.version, javaVersion: '17.0.15', command: 'npm run bench' };
 * ```
 */
export interface BenchEnvironment {
  readonly date: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryMb: number;
  readonly nodeVersion: string;
  readonly javaVersion: string;
  readonly command: string;
}

const LABELS: Record<ConsumerKind, string> = {
  ours: 'ours: ConsumerRuntime, counting listener',
  java: 'Java DefaultMQPushConsumer 5.3.3, counting listener',
  'ours-function': 'ours: FunctionMessageListener + LocalInvoker, no-op handler',
};

/**
 * The median of `values` (the mean of the middle two for an even count); NaN for none.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // => 2
 * ```
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  if (sorted.length % 2 === 1) return sorted[mid] ?? Number.NaN;
  return ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/**
 * One summary per consumer kind that has runs, in `order`.
 *
 * @example
 * ```ts
 * const summaries = summarize(runs, ['ours', 'java']);
 * ```
 */
export function summarize(runs: readonly ConsumerRun[], order: readonly ConsumerKind[]): ConsumerSummary[] {
  const summaries: ConsumerSummary[] = [];
  for (const kind of order) {
    const mine = runs.filter((run) => run.kind === kind && !run.warmup);
    if (mine.length === 0) continue;
    const of = (pick: (run: ConsumerRun) => number): number => median(mine.map(pick));
    summaries.push({
      kind,
      runs: mine.length,
      messagesPerSecond: of((run) => run.received / (run.startToLastMs / 1000)),
      steadyMessagesPerSecond: of((run) => run.received / (Math.max(run.firstToLastMs, 1) / 1000)),
      startToFirstMs: of((run) => run.startToFirstMs),
      peakRssBytes: of((run) => run.peakRssBytes),
      peakHeapUsedBytes: of((run) => run.peakHeapUsedBytes),
      wallMs: of((run) => run.wallMs),
    });
  }
  return summaries;
}

/**
 * The Markdown report: header, medians, ratios, every run, the decode micro-benchmark and notes.
 *
 * @example
 * ```ts
 * const markdown = renderReport({ options, env, runs, decode: undefined });
 * ```
 */
export function renderReport(input: {
  options: BenchOptions;
  env: BenchEnvironment;
  runs: readonly ConsumerRun[];
  decode: readonly DecodeCaseResult[] | undefined;
}): string {
  const { options, env, runs, decode } = input;
  const summaries = summarize(runs, options.consumers);
  const lines: string[] = [];
  lines.push(`# Consumer benchmark${options.quick ? ' (quick)' : ''}`, '');
  lines.push(
    `- Date: ${env.date}`,
    `- Machine: ${env.cpus} CPUs (${env.cpuModel}), ${env.memoryMb} MiB RAM`,
    `- Node ${env.nodeVersion}; Java ${env.javaVersion}`,
    `- Broker: local Apache RocketMQ 5.3.3 (one namesrv, one broker, -Xmx${options.brokerHeapMb}m, C2 JIT), same machine`,
    `- Workload: ${fmtInt(options.messages)} messages of ${fmtInt(options.messageBytes)} B on ${options.queues} queues, consumed from the first offset by a fresh CLUSTERING group per run; ${options.warmupRounds} unreported warm-up round(s) (the broker's JIT warms up), then ${options.rounds} measured round(s), consumers alternating`,
    `- Our consumer: plain \`node\` (compiled JS, ${options.nodeHeapMb === undefined ? "V8's default heap limit" : `--max-old-space-size=${options.nodeHeapMb}`}), every option at its default except startingPosition TRIM_HORIZON, memory offset store`,
    `- Java consumer: \`java -Xmx${options.javaHeapMb}m\` (G1, default JIT), DefaultMQPushConsumer defaults (20 consume threads, 1 message per listener call) except CONSUME_FROM_FIRST_OFFSET and a 1 s heartbeat`,
    `- Command: \`${env.command}\``,
    '',
  );
  if (runs.length > 0) lines.push(...consumerSections(runs, summaries));
  if (decode !== undefined) lines.push(...decodeSection(decode));
  lines.push(
    '## Notes',
    '',
    '- Broker, harness and consumer share the machine: on few cores the broker competes with the consumer for CPU, for both consumers alike.',
    '- "start → all" counts from the consumer\'s start() call (process and JVM start-up excluded) until the listener saw N messages; "process wall time" adds start-up and shutdown.',
    "- Peak RSS is the kernel's VmHWM of the consumer process; the JVM's includes heap, metaspace, JIT code cache and thread stacks, Node's the V8 heap, code and buffers.",
    '',
  );
  return lines.join('\n');
}

/** Medians, ratios and every run of the consumer rounds. */
function consumerSections(runs: readonly ConsumerRun[], summaries: readonly ConsumerSummary[]): string[] {
  const lines: string[] = [];
  lines.push('## Medians', '');
  lines.push(
    '| Consumer | runs | msgs/s (start → all) | msgs/s (first → all) | start → first msg | peak RSS | peak heap used | process wall time |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const s of summaries) {
    lines.push(
      `| ${LABELS[s.kind]} | ${s.runs} | ${fmtInt(s.messagesPerSecond)} | ${fmtInt(s.steadyMessagesPerSecond)} | ${fmtMs(s.startToFirstMs)} | ${fmtMiB(s.peakRssBytes)} | ${fmtMiB(s.peakHeapUsedBytes)} | ${fmtMs(s.wallMs)} |`,
    );
  }
  lines.push('');
  const byKind = new Map(summaries.map((s) => [s.kind, s]));
  const java = byKind.get('java');
  const ratioRows: string[] = [];
  for (const kind of ['ours', 'ours-function'] as const) {
    const ours = byKind.get(kind);
    if (ours === undefined || java === undefined) continue;
    ratioRows.push(
      `| ${LABELS[kind]} / Java | ${ratio(ours.messagesPerSecond, java.messagesPerSecond)} | ${ratio(ours.steadyMessagesPerSecond, java.steadyMessagesPerSecond)} | ${ratio(ours.peakRssBytes, java.peakRssBytes)} | ${ratio(ours.wallMs, java.wallMs)} |`,
    );
  }
  if (ratioRows.length > 0) {
    lines.push('## Ratios (ours / Java; throughput > 1 and memory < 1 favour ours)', '');
    lines.push(
      '| Pair | msgs/s (start → all) | msgs/s (first → all) | peak RSS | process wall time |',
      '|---|---:|---:|---:|---:|',
      ...ratioRows,
      '',
    );
  }
  const plain = byKind.get('ours');
  const viaFunction = byKind.get('ours-function');
  if (plain !== undefined && viaFunction !== undefined) {
    lines.push(
      `Lambda event building (ours-function / ours): throughput ${ratio(viaFunction.messagesPerSecond, plain.messagesPerSecond)}, peak RSS ${ratio(viaFunction.peakRssBytes, plain.peakRssBytes)}.`,
      '',
    );
  }
  lines.push('## Every run', '');
  lines.push(
    '| round | consumer | received | start → first | start → all | msgs/s | peak RSS | peak heap used | peak Buffers (Node) | wall |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const run of runs) {
    lines.push(
      `| ${run.warmup ? `warm-up ${run.round}` : run.round} | ${run.kind} | ${fmtInt(run.received)} | ${fmtMs(run.startToFirstMs)} | ${fmtMs(run.startToLastMs)} | ${fmtInt(run.received / (run.startToLastMs / 1000))} | ${fmtMiB(run.peakRssBytes)} | ${fmtMiB(run.peakHeapUsedBytes)} | ${run.peakArrayBuffersBytes === undefined ? '—' : fmtMiB(run.peakArrayBuffersBytes)} | ${fmtMs(run.wallMs)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** The decode micro-benchmark's table: medians per case and side, and the ratios. */
function decodeSection(results: readonly DecodeCaseResult[]): string[] {
  const rounds = Math.max(0, ...results.map((result) => result.ours.length));
  const lines = [
    `## PULL body decode (real bodies of 32 messages, single thread, after warm-up; medians of ${rounds} round(s), sides alternating)`,
    '',
    `- ours: ${DECODE_WORK.ours}`,
    `- Java: ${DECODE_WORK.java}`,
    '- "CPU" rates divide by the process CPU time (all threads, collector and JIT included) instead of wall time: on a shared machine wall time also measures the neighbours.',
    '',
    '| Case | body | ours msgs/s | Java msgs/s | ours / Java | ours msgs/CPU-s | Java msgs/CPU-s | ours / Java (CPU) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const result of results) {
    const ours = medianRate(result.ours);
    const java = medianRate(result.java);
    lines.push(
      `| ${result.decodeCase.name} | ${fmtInt(result.bodyBytes)} B | ${fmtInt(ours.messagesPerSecond)} | ${fmtInt(java.messagesPerSecond)} | ${ratio(ours.messagesPerSecond, java.messagesPerSecond)} | ${fmtInt(ours.messagesPerCpuSecond)} | ${fmtInt(java.messagesPerCpuSecond)} | ${ratio(ours.messagesPerCpuSecond, java.messagesPerCpuSecond)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** Median of each figure over the rounds; NaN for none (rendered n/a). */
function medianRate(rates: readonly DecodeRate[]): DecodeRate {
  return {
    messagesPerSecond: median(rates.map((rate) => rate.messagesPerSecond)),
    megabytesPerSecond: median(rates.map((rate) => rate.megabytesPerSecond)),
    messagesPerCpuSecond: median(rates.map((rate) => rate.messagesPerCpuSecond)),
  };
}

function fmtInt(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

function fmtMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms).toLocaleString('en-US')} ms`;
}

function fmtMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function ratio(a: number, b: number): string {
  return b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : 'n/a';
}
