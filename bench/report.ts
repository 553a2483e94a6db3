/**
 * The Markdown report of `npm run bench` (bench/results/latest.md), rendered from the same
 * {@link BenchResults} as latest.json, plus the drain race's every run: the drain race in detail (figures
 * as median and min–max over the rounds, CPU per message, the raw PULL limit, the ratios, whether RSS
 * stays flat), then
 * every other scenario as a table of its consumers' metrics.
 */
import type { BenchOptions } from './bench-options.js';
import {
  type BenchResults,
  type ConsumerResult,
  type RatioResult,
  type ScenarioResult,
  type Stats,
  stats,
} from './bench-results.js';
import { SUMMARY_DESCRIPTIONS, SUMMARY_FIELDS, type SummaryField } from './bench-summary.js';
import type { DrainRun } from './drain-race.js';
import { DRAIN_METRICS, RAW_PULL_ID } from './drain-summary.js';
import { imageNodeDescription } from './image-node-env.js';
import { rssVerdict } from './rss-flatness.js';

/**
 * Facts about a run for a report's header (the scale bench's; the drain report reads BenchResults).
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

/**
 * The median of `values` (the mean of the middle two for an even count); NaN for none.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // => 2
 * ```
 */
export function median(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : stats(values).median;
}

/** What ours / raw-pull (first → all) should reach: the rest of the limit is our client's own work. */
export const RAW_PULL_TARGET = 0.8;

/**
 * Everything the report shows.
 *
 * @example
 * ```ts
 * const markdown = renderReport({ results, options, brokerDescription: 'local', drainRuns: runs, produceMs, timings: [], charts: [] });
 * ```
 */
export interface ReportInput {
  readonly results: BenchResults;
  readonly options: BenchOptions;
  readonly brokerDescription: string;
  /** Every run of the drain race, warm-ups included, in order. */
  readonly drainRuns: readonly DrainRun[];
  /** How long producing the drain race's backlog took. */
  readonly produceMs: number | undefined;
  /** Part of the run -> seconds it took (broker start, produce, drain race, decode, each scenario, charts). */
  readonly timings: ReadonlyArray<readonly [string, number]>;
  /** Chart files written next to the report (relative to it), when rendered. */
  readonly charts: readonly string[];
}

/**
 * The Markdown report.
 *
 * @example
 * ```ts
 * await writeFile(options.outFile, renderReport(input), 'utf8');
 * ```
 */
export function renderReport(input: ReportInput): string {
  const { results, options } = input;
  const lines: string[] = [
    `# Consumer benchmark${results.quick ? ' (quick: figures mean nothing)' : ''}`,
    '',
  ];
  const { machine } = results;
  lines.push(
    `- Date: ${results.date}`,
    `- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryMiB.toLocaleString('en-US')} MiB RAM; 1-minute load average ${machine.loadAverage.start} at the start, ${machine.loadAverage.end} at the end`,
    `- Versions: ${Object.entries(results.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join('; ')}`,
    `- Broker: Apache RocketMQ, ${input.brokerDescription}`,
    `- Our consumer: plain \`node\` (compiled JS, ${options.nodeHeapMb === undefined ? "V8's default heap limit" : `--max-old-space-size=${options.nodeHeapMb}`}), every option at its default except startingPosition TRIM_HORIZON, memory offset store; ${imageNodeDescription()}`,
    `- Java consumer: \`java -Xmx${options.javaHeapMb}m\` (G1, default JIT), DefaultMQPushConsumer defaults (20 consume threads, 1 message per listener call) except CONSUME_FROM_FIRST_OFFSET and a 1 s heartbeat`,
    `- Command: \`${results.command}\``,
    ...(input.produceMs === undefined
      ? []
      : [
          `- Backlog: ${fmtInt(options.messages)} messages produced in ${(input.produceMs / 1000).toFixed(1)} s (${fmtInt(options.messages / (Math.max(input.produceMs, 1) / 1000))} msgs/s, batches of ~128 KiB, two queues at a time)`,
        ]),
    `- Time: ${input.timings.map(([part, seconds]) => `${part} ${seconds.toFixed(1)} s`).join('; ')}`,
    '',
  );
  lines.push(...summaryLines(results));
  for (const scenario of results.scenarios) {
    lines.push(
      ...(scenario.id === 'drain' ? drainSection(scenario, input.drainRuns) : scenarioSection(scenario)),
    );
  }
  if (input.charts.length > 0) {
    lines.push('## Charts', '', ...input.charts.map((chart) => `![${chart}](${chart})`), '');
  }
  lines.push(
    '## Notes',
    '',
    '- Figures are the median over the measured rounds, min–max in brackets; ratios divide medians.',
    '- Broker, harness and consumers share the machine: on few cores the broker competes with the consumer for CPU, for every consumer alike. Throughput here is a comparison, not a capacity figure.',
    '- "first → all" counts from the first message at the listener to the N-th; "start → all" from the consumer\'s start() call (process and JVM start-up excluded); "process wall time" adds start-up and shutdown.',
    "- Peak RSS is the kernel's VmHWM of the consumer process; the JVM's includes heap, metaspace, JIT code cache and thread stacks, Node's the V8 heap, code and buffers.",
    '',
  );
  return lines.join('\n');
}

function drainSection(scenario: ScenarioResult, runs: readonly DrainRun[]): string[] {
  const lines = [`## ${scenario.title}`, '', scenario.workload, ''];
  const measured = scenario.consumers.filter((consumer) => consumer.error === undefined);
  lines.push(
    '| Consumer | msgs/s (first → all) | MiB/s (first → all) | msgs/s (start → all) | start → first msg | peak RSS (MiB) | peak heap used (MiB) | process wall time |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const consumer of measured) {
    const m = (name: string): string => fmtStats(consumer.metrics[name], name);
    lines.push(
      `| ${consumer.label} | ${m(DRAIN_METRICS.firstToAll)} | ${m(DRAIN_METRICS.mibFirstToAll)} | ${m(DRAIN_METRICS.startToAll)} | ${m(DRAIN_METRICS.startToFirst)} | ${m(DRAIN_METRICS.peakRss)} | ${m(DRAIN_METRICS.peakHeapUsed)} | ${m(DRAIN_METRICS.wall)} |`,
    );
  }
  lines.push('', ...failedConsumers(scenario));
  lines.push(...cpuLines(measured));
  lines.push(...gcLines(measured));
  lines.push(...rawPullLines(scenario));
  lines.push(...ratioTable(scenario.ratios));
  lines.push(...rssLines(measured));
  lines.push(...peakSampleLines(measured));
  lines.push(
    '### Every run',
    '',
    '| round | consumer | received | start → first | first → all | msgs/s (first → all) | CPU µs/msg | broker CPU µs/msg | broker idle | steal | peak RSS (MiB) | peak heap used (MiB) | wall |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const run of runs) {
    const perMessage = (cpuMs: number | undefined): string =>
      cpuMs === undefined ? '—' : fmtOneDecimal((cpuMs * 1000) / Math.max(run.received, 1));
    lines.push(
      `| ${run.warmup ? `warm-up ${run.round}` : run.round} | ${run.id} | ${fmtInt(run.received)} | ${fmtMs(run.startToFirstMs)} | ${fmtMs(run.firstToLastMs)} | ${fmtInt(run.received / (Math.max(run.firstToLastMs, 1) / 1000))} | ${perMessage(run.cpuMsStartToLast)} | ${perMessage(run.brokerCpuMs)} | ${run.brokerIdleCpuPercentOfCore === undefined ? '—' : `${run.brokerIdleCpuPercentOfCore.toFixed(0)} %`} | ${run.stealPercent.toFixed(0)} % | ${(run.peakRssBytes / 1024 / 1024).toFixed(1)} | ${(run.peakHeapUsedBytes / 1024 / 1024).toFixed(1)} | ${fmtMs(run.wallMs)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** CPU time per message of each consumer and of the broker serving it, and why it is there. */
function cpuLines(consumers: readonly ConsumerResult[]): string[] {
  const withCpu = consumers.filter((consumer) => consumer.metrics[DRAIN_METRICS.cpuPerMessage] !== undefined);
  if (withCpu.length === 0) return [];
  const brokerMeasured = withCpu.some(
    (consumer) => consumer.metrics[DRAIN_METRICS.brokerCpuPerMessage] !== undefined,
  );
  const lines = [
    '### CPU per message',
    '',
    "This machine's hypervisor steals CPU time (the steal column: the share of wall time × CPUs that the virtual CPUs waited for a physical one) and other work on the machine competes for its cores, so msgs/s of one consumer swings up to 3× between rounds. A process is not charged CPU time while it waits for a CPU: CPU per message stays steady and says how much work each consumer does per message, lower is better. Consumer: user + system CPU of the whole process (every thread: the JVM's JIT compiler and GC threads, V8's), from start() to the last message, divided by the messages. Broker: the broker JVM's user + system CPU over the same window (from the consumer's start line to its result line, as the harness reads them), divided by the messages: what serving that consumer costs the broker, plus the broker's own background work, which goes on in proportion to the run's wall time (a slow run is charged more of it). Broker idle is the broker's CPU in the pause before each run, in % of one core; above idle subtracts that rate × the window: an estimate of the serving alone.",
    ...(brokerMeasured ? [] : ['', 'Broker CPU: not measured (an external broker, `--namesrv`/`--broker`).']),
    '',
    '| Consumer | CPU µs/msg (start → last) | broker CPU µs/msg | broker idle (% of a core) | broker CPU above idle µs/msg | process CPU to the last msg (ms, start-up included) | steal (%) |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const consumer of withCpu) {
    const m = (name: string): string => fmtStats(consumer.metrics[name], name);
    lines.push(
      `| ${consumer.id} | ${m(DRAIN_METRICS.cpuPerMessage)} | ${m(DRAIN_METRICS.brokerCpuPerMessage)} | ${m(DRAIN_METRICS.brokerIdleCpu)} | ${m(DRAIN_METRICS.brokerCpuPerMessageAboveIdle)} | ${m(DRAIN_METRICS.cpuProcessToLast)} | ${m(DRAIN_METRICS.steal)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** GC pauses of each consumer and, for ours, how full its buffer ran: where a drain's time went. */
function gcLines(consumers: readonly ConsumerResult[]): string[] {
  const withGc = consumers.filter((consumer) => consumer.metrics[DRAIN_METRICS.gcPauseShare] !== undefined);
  if (withGc.length === 0) return [];
  const lines = [
    '### GC pauses and buffered messages',
    '',
    "GC pauses from start() to the last message: Node's `gc` performance entries on the main thread (scavenges, mark-compacts, incremental marking steps; V8's concurrent marking on helper threads is no pause and is in the CPU above), the JVM's collectors' accumulated collection time. Buffered (ours): messages pulled and not yet done, sampled every 50 ms; near 0 the consumer waited for its pulls, near the flow-control limit (1,000 per queue) it fell behind them.",
    '',
    '| Consumer | GC pauses (% of start → last) | of which scavenges (%) | GC pause µs/msg | young collections | whole-heap collections | buffered messages (median) | buffered messages (max) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const consumer of withGc) {
    const m = (name: string): string => fmtStats(consumer.metrics[name], name);
    lines.push(
      `| ${consumer.id} | ${m(DRAIN_METRICS.gcPauseShare)} | ${m(DRAIN_METRICS.gcScavengeShare)} | ${m(DRAIN_METRICS.gcPausePerMessage)} | ${m(DRAIN_METRICS.gcMinorCount)} | ${m(DRAIN_METRICS.gcMajorCount)} | ${m(DRAIN_METRICS.bufferedMedian)} | ${m(DRAIN_METRICS.bufferedMax)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** The limit and how close ours come to it. */
function rawPullLines(scenario: ScenarioResult): string[] {
  const raw = scenario.consumers.find(
    (consumer) => consumer.id === RAW_PULL_ID && consumer.error === undefined,
  );
  if (raw === undefined) return [];
  const perSecond = raw.metrics[DRAIN_METRICS.firstToAll];
  const mib = raw.metrics[DRAIN_METRICS.mibFirstToAll];
  const wire = raw.metrics[DRAIN_METRICS.wireMibFirstToAll];
  const lines = [
    '### The limit: raw PULL',
    '',
    `\`raw-pull\` pulls 32 messages per request on every queue at once and decodes nothing: ${fmtStats(perSecond, DRAIN_METRICS.firstToAll)} msgs/s, ${fmtStats(mib, DRAIN_METRICS.mibFirstToAll)} MiB/s of message bodies (${fmtStats(wire, DRAIN_METRICS.wireMibFirstToAll)} MiB/s of PULL bodies, stored headers included), first → all.`,
    '',
  ];
  for (const entry of scenario.ratios) {
    if (entry.denominator !== RAW_PULL_ID) continue;
    const verdict = entry.value >= RAW_PULL_TARGET ? 'meets' : 'below';
    lines.push(
      `- ${entry.numerator} / raw-pull: **${entry.value.toFixed(2)}×** (target ≥ ${RAW_PULL_TARGET}: ${verdict})`,
    );
  }
  lines.push('');
  return lines;
}

function rssLines(consumers: readonly ConsumerResult[]): string[] {
  const lines = [
    '### RSS over time',
    '',
    'From each run\'s RSS series (every 200 ms from start() to the last message); "flat" when the second half grows by at most 5 % (or 4 MiB) from its third to its last quarter and the peak is at most 1.15× the second half\'s median. Medians over the rounds.',
    '',
    '| Consumer | second half median (MiB) | peak / second half median | growth in the second half (MiB) | verdict |',
    '|---|---:|---:|---:|---|',
  ];
  for (const consumer of consumers) {
    const median = consumer.metrics[DRAIN_METRICS.rssSecondHalfMedian];
    const peak = consumer.metrics[DRAIN_METRICS.rssPeakOverSecondHalfMedian];
    const growth = consumer.metrics[DRAIN_METRICS.rssSecondHalfGrowth];
    const verdict =
      median === undefined || peak === undefined || growth === undefined
        ? 'too few samples'
        : rssVerdict({
            secondHalfMedianMiB: median.median,
            peakMiB: median.median * peak.median,
            peakOverSecondHalfMedian: peak.median,
            secondHalfGrowthMiB: growth.median,
          });
    lines.push(
      `| ${consumer.id} | ${fmtStats(median, DRAIN_METRICS.rssSecondHalfMedian)} | ${fmtStats(peak, DRAIN_METRICS.rssPeakOverSecondHalfMedian)} | ${fmtStats(growth, DRAIN_METRICS.rssSecondHalfGrowth)} | ${verdict} |`,
    );
  }
  lines.push('');
  return lines;
}

/**
 * Node children: what their peak RSS is made of, at the 50 ms sample with the most RSS. Explains the
 * peak RSS guard: the V8 heap, the message frames not yet freed, and node's own code and native memory.
 */
function peakSampleLines(consumers: readonly ConsumerResult[]): string[] {
  const withSample = consumers.filter(
    (consumer) => consumer.metrics[DRAIN_METRICS.peakSampleRss] !== undefined,
  );
  if (withSample.length === 0) return [];
  const lines = [
    '### What the peak RSS is made of',
    '',
    "Node consumers, at the 50 ms sample with the most RSS (start to the last message; the kernel's VmHWM may be a little higher): the V8 heap's committed pages (`heapTotal`), the Buffers outside it (`arrayBuffers`: mostly the message frames read from the broker that no collection has freed yet), and the rest (node's binary and code pages in use, native memory, thread stacks). Medians over the rounds.",
    '',
    '| Consumer | RSS at the sample (MiB) | V8 heap committed (MiB) | Buffers outside the heap (MiB) | the rest (MiB) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const consumer of withSample) {
    const m = (name: string): string => fmtStats(consumer.metrics[name], name);
    lines.push(
      `| ${consumer.id} | ${m(DRAIN_METRICS.peakSampleRss)} | ${m(DRAIN_METRICS.peakSampleV8Heap)} | ${m(DRAIN_METRICS.peakSampleArrayBuffers)} | ${m(DRAIN_METRICS.peakSampleRest)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** Any other scenario: one row per consumer, one column per metric. */
function scenarioSection(scenario: ScenarioResult): string[] {
  const lines = [`## ${scenario.title}`, '', `${scenario.workload} (${scenario.runs} measured run(s)).`, ''];
  if (scenario.error !== undefined) lines.push(`**Failed:** ${oneLine(scenario.error)}`, '');
  const measured = scenario.consumers.filter((consumer) => consumer.error === undefined);
  const metrics = [...new Set(measured.flatMap((consumer) => Object.keys(consumer.metrics)))];
  if (measured.length > 0 && metrics.length > 0) {
    lines.push(...measured.map((consumer) => `- \`${consumer.id}\`: ${consumer.label}`), '');
    lines.push(`| Consumer | ${metrics.join(' | ')} |`, `|---|${metrics.map(() => '---:').join('|')}|`);
    for (const consumer of measured) {
      lines.push(
        `| ${consumer.id} | ${metrics.map((name) => fmtStats(consumer.metrics[name], name)).join(' | ')} |`,
      );
    }
    lines.push('');
  }
  lines.push(...failedConsumers(scenario), ...ratioTable(scenario.ratios));
  return lines;
}

function failedConsumers(scenario: ScenarioResult): string[] {
  const failed = scenario.consumers.filter((consumer) => consumer.error !== undefined);
  if (failed.length === 0) return [];
  return [
    ...failed.map((consumer) => `- **${consumer.id} did not run:** ${oneLine(consumer.error ?? '')}`),
    '',
  ];
}

function ratioTable(ratios: readonly RatioResult[]): string[] {
  if (ratios.length === 0) return [];
  return [
    '### Ratios (of medians)',
    '',
    '| Ratio | metric | value | better when |',
    '|---|---|---:|---|',
    ...ratios.map(
      (entry) =>
        `| ${entry.numerator} / ${entry.denominator} | ${entry.metric} | ${entry.value.toFixed(2)}× | ${entry.higherIsBetter ? '> 1' : '< 1'} |`,
    ),
    '',
  ];
}

/**
 * `median (min–max)` of a metric, formatted by its name's unit.
 *
 * @example
 * ```ts
 * fmtStats(stats([1000, 1200, 1100]), 'msgsPerSecFirstToAll'); // => '1,100 (1,000–1,200)'
 * ```
 */
export function fmtStats(value: Stats | undefined, metric: string): string {
  if (value === undefined) return '—';
  const one = (n: number): string => fmtMetric(n, metric);
  return value.min === value.max
    ? one(value.median)
    : `${one(value.median)} (${one(value.min)}–${one(value.max)})`;
}

function fmtMetric(value: number, metric: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (/MiB/i.test(metric)) return value.toFixed(1);
  // CPU µs per message and percentages: one decimal, whole or not, so that a column reads alike.
  if (/UsPerMsg|Percent/.test(metric)) return fmtOneDecimal(value);
  if (/Ms$/.test(metric)) return fmtMs(value);
  return Number.isInteger(value) || Math.abs(value) >= 100 ? fmtInt(value) : value.toFixed(2);
}

function fmtOneDecimal(value: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

function fmtInt(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

function fmtMs(ms: number): string {
  // Latencies near 1 ms are read in µs (bench/steady-producer.ts): two decimals keep them apart.
  if (Math.abs(ms) < 10 && !Number.isInteger(ms)) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms).toLocaleString('en-US')} ms`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 500);
}

/**
 * The run's headline figures (bench-summary.ts), a row each with the ratio that reads it, then issue 34's
 * targets and guards judged on this run; nothing when the results carry no summary.
 */
function summaryLines(results: BenchResults): string[] {
  const { summary, summaryMissing = {}, checks = [] } = results;
  if (summary === undefined) return [];
  const value = (field: SummaryField): number | null => summary[field] ?? null;
  const per = (a: SummaryField, b: SummaryField, what: string): string => {
    const top = value(a);
    const bottom = value(b);
    return top === null || bottom === null || bottom === 0 ? '' : `${(top / bottom).toFixed(2)}× ${what}`;
  };
  const ratios: Partial<Record<SummaryField, string>> = {
    httpInvokeOverheadCpuMsPer100: per(
      'httpInvokeOverheadCpuMsPer100',
      'httpInvokeFloorCpuMsPer100',
      'the floor’s',
    ),
    httpInvokeOverheadCpuMsPer1000: per(
      'httpInvokeOverheadCpuMsPer1000',
      'httpInvokeFloorCpuMsPer1000',
      'the floor’s',
    ),
    productionPathCpuUsPerMsg: per('productionPathCpuUsPerMsg', 'javaCpuUsPerMsg', 'Java’s'),
    perVcpuMsgsPerSecBatch1000: per('perVcpuMsgsPerSecBatch1000', 'perVcpuMsgsPerSecBatch100', 'batch 100’s'),
    perVcpuWallMsgsPerSecBatch100: per(
      'perVcpuWallMsgsPerSecBatch100',
      'perVcpuMsgsPerSecBatch100',
      'the per-vCPU figure',
    ),
    perVcpuWallMsgsPerSecBatch1000: per(
      'perVcpuWallMsgsPerSecBatch1000',
      'perVcpuMsgsPerSecBatch1000',
      'the per-vCPU figure',
    ),
  };
  const lines = [
    '## Summary',
    '',
    'The headline figures of issue 34 (`summary` in the JSON, bench/bench-summary.ts), each a median (or a ratio of medians) of this run; null where the run did not measure it.',
    '',
    '| Figure | Value | Ratio | What |',
    '| --- | ---: | ---: | --- |',
    ...SUMMARY_FIELDS.map((field) => {
      const figure = value(field);
      const shown =
        figure === null ? `null (${oneLine(summaryMissing[field] ?? 'not measured')})` : String(figure);
      return `| \`${field}\` | ${shown} | ${ratios[field] ?? ''} | ${SUMMARY_DESCRIPTIONS[field]} |`;
    }),
    '',
  ];
  if (checks.length > 0) {
    lines.push(
      '### Targets and guards (issue 34)',
      '',
      '| Kind | Check | Value | Limit | Result |',
      '| --- | --- | ---: | --- | --- |',
      ...checks.map(
        (check) =>
          `| ${check.kind} | ${check.what} | ${check.value ?? '–'} | ${check.limit} | ${check.pass === null ? `not measured: ${oneLine(check.reason ?? '')}` : check.pass ? '**pass**' : '**FAIL**'} |`,
      ),
      '',
    );
  }
  return lines;
}
