/**
 * The scale bench's reports: a Markdown page (bench/results/scale.md) and a JSON document beside it
 * (scale.json) with the environment, the plan, every child's raw result and the summary. The JSON's
 * shape is {@link ScaleReportDocument}; bench/README.md describes it.
 */
import type { BenchEnvironment } from './report.js';
import type { ScaleCase, ScalePlan } from './scale-plan.js';
import type { MarginalCost, MinMax, ScaleRun, ScaleSummary } from './scale-summary.js';

/**
 * The cluster the children ran against.
 */
export interface ScaleClusterInfo {
  readonly rocketmqVersion: string;
  readonly brokerGroups: number;
  readonly slavesPerGroup: number;
  readonly brokerHeapMb: number;
  /** Remote `host:port` → what it is. */
  readonly peers: Readonly<Record<string, string>>;
}

/**
 * The JSON report (`version` 1).
 *
 * @example
 * ```ts
 * const doc = JSON.parse(readFileSync('bench/results/scale.json', 'utf8')) as ScaleReportDocument;
 * doc.summary.perMapping.rssBytes;
 * ```
 */
export interface ScaleReportDocument {
  readonly version: 1;
  readonly quick: boolean;
  /** `git describe --always --dirty` of the tree measured (`-dirty`: uncommitted changes were measured too). */
  readonly gitRevision: string;
  readonly environment: BenchEnvironment;
  readonly cluster: ScaleClusterInfo;
  readonly plan: ScalePlan;
  readonly cases: readonly Pick<ScaleCase, 'id' | 'queues' | 'idle' | 'drain'>[];
  /** The 1-minute load average before each run started (the harness waits while it is above 8). */
  readonly loadAvgBeforeRuns: readonly number[];
  readonly runs: readonly ScaleRun[];
  readonly summary: ScaleSummary;
}

/**
 * The Markdown report of a scale run.
 *
 * @example
 * ```ts
 * await writeFile('bench/results/scale.md', renderScaleReport(doc));
 * ```
 */
export function renderScaleReport(doc: ScaleReportDocument): string {
  const { environment: env, cluster, plan, summary } = doc;
  const runs = doc.runs.length;
  const peers = [...new Set(Object.values(cluster.peers))];
  const lines: string[] = [
    `# Scale: one poller, many mappings and queues${doc.quick ? ' (quick smoke run: tiny numbers, not figures)' : ''}`,
    '',
    `- Date: ${env.date}`,
    `- Machine: ${env.cpus} × ${env.cpuModel}, ${fmtInt(env.memoryMb)} MiB RAM; shared with other engineers' brokers and tests`,
    `- Node ${env.nodeVersion}, ${env.javaVersion}, RocketMQ ${cluster.rocketmqVersion}`,
    `- Cluster: local, ${cluster.brokerGroups} broker groups, masters only (${cluster.slavesPerGroup} slaves), broker heap ${cluster.brokerHeapMb} MiB, all on loopback`,
    `- Topics: ${Math.max(...plan.mappingCounts)} small topics of ${plan.smallQueuesPerGroup} queues per group (${plan.smallQueuesPerGroup * plan.brokerGroups} per topic), one wide topic of ${plan.wideQueuesPerGroup} per group (${plan.wideQueuesPerGroup * plan.brokerGroups})`,
    `- Poller: \`loadConfig\` + \`startPoller\` as \`rocketmq-lambda run\`, \`offsets.store: memory\`, metrics off, each mapping its own consumer group on a \`local:\` no-op handler; every other option at its default (15 s long polls)`,
    `- Runs: ${runs} (figures are medians over the runs${runs < 3 ? '; fewer than 3 runs: indicative only' : ''}); settle ${plan.settleMs / 1000} s after every queue is held, idle windows of ${plan.idleMs / 1000} s`,
    `- 1-minute load average before each run: ${doc.loadAvgBeforeRuns.map((l) => l.toFixed(2)).join(', ')}`,
    `- Source: \`${doc.gitRevision}\``,
    `- Command: \`${env.command}\``,
    '',
    '## Memory (after two full GCs, settled)',
    '',
    '| Case | Mappings | Topic queues | Queues held (with %RETRY%) | RSS MiB | V8 heap used MiB | V8 heap total MiB | external MiB | start → all held |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...summary.cases.map(
      (c) =>
        `| ${c.id} | ${c.mappings} | ${c.queues} | ${c.queuesHeld} | ${fmtMiB(c.rssBytes)} | ${fmtMiB(c.heapUsedBytes)} | ${fmtMiB(c.heapTotalBytes)} | ${fmtMiB(c.externalBytes)} | ${c.id === 'baseline' ? '–' : `${fmtInt(c.startToHeldMs)} ms`} |`,
    ),
    '',
    '## Marginal costs (per-run differences, median over runs)',
    '',
    '| What | RSS | V8 heap used | idle CPU (% of one core) |',
    '|---|---:|---:|---:|',
    marginalRow(
      'first mapping (mappings-1 − baseline: client, connections, invoker, handler, 1 mapping)',
      summary.firstMapping,
    ),
    marginalRow(
      `per further mapping (least-squares slope over ${plan.mappingCounts.join(', ')} mappings; each ${summary.perMapping.queuesPerMapping} topic queues and its group's %RETRY% queues)`,
      summary.perMapping,
    ),
    ...summary.perQueue.map((q) =>
      marginalRow(
        `per queue (wide-${q.mappings} − mappings-${q.mappings}) / ${q.extraQueues} extra queues`,
        q,
      ),
    ),
    '',
    '## Idle CPU (long polls only, no messages)',
    '',
    '| Case | Mappings | Queues | window | CPU % of one core | per mapping | pulls answered /s | RSS after window MiB | heap used after MiB | load avg (1 min) before → after |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...summary.cases.flatMap((c) =>
      c.idle === undefined
        ? []
        : [
            `| ${c.id} | ${c.mappings} | ${c.queues} | ${(c.idle.windowMs / 1000).toFixed(0)} s | ${c.idle.cpuPercentOfCore.toFixed(2)} | ${(c.idle.cpuPercentOfCore / c.mappings).toFixed(3)} | ${c.idle.pullsPerSecond.toFixed(1)} | ${fmtMiB(c.idle.rssAfterBytes)} | ${fmtMiB(c.idle.heapUsedAfterBytes)} | ${c.idle.loadAvg1Before.toFixed(2)} → ${c.idle.loadAvg1After.toFixed(2)} |`,
          ],
    ),
    '',
    '## Connections (ESTABLISHED TCP sockets of the poller process by peer, from /proc; min–max over runs)',
    '',
    `| Case | ${peers.join(' | ')} | other | not established |`,
    `|---|${peers.map(() => '---:').join('|')}|---:|---:|`,
    ...summary.cases.map(
      (c) =>
        `| ${c.id} | ${peers.map((peer) => fmtMinMax(c.connections.byPeer[peer] ?? { min: 0, max: 0 })).join(' | ')} | ${fmtMinMax(c.connections.other)} | ${fmtMinMax(c.connections.notEstablished)} |`,
    ),
    '',
  ];
  const drains = summary.cases.filter((c) => c.drain !== undefined);
  if (drains.length > 0) {
    lines.push(
      '## Backlog drained (the queues are live; not a speed figure)',
      '',
      '| Case | Messages sent round-robin after the idle window | sent and consumed in |',
      '|---|---:|---:|',
      ...drains.map(
        (c) => `| ${c.id} | ${fmtInt(c.drain?.messages ?? 0)} | ${fmtInt(c.drain?.ms ?? 0)} ms |`,
      ),
      '',
    );
  }
  const failures = doc.runs.flatMap((run) => run.failures.map((failure) => ({ run: run.run, ...failure })));
  if (failures.length > 0) {
    lines.push(
      '## Failed cases (left out of the medians)',
      '',
      '| Run | Case | Error |',
      '|---:|---|---|',
      ...failures.map(
        (f) =>
          `| ${f.run} | ${f.caseId} | ${f.error.split('\n').find((l) => l.startsWith('Error: ')) ?? f.error.split('\n')[0]} |`,
      ),
      '',
    );
  }
  lines.push(
    '## Every run',
    '',
    '| Run | Case | RSS MiB | heap used MiB | idle CPU % | pulls in window | connections (established) |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...doc.runs.flatMap((run) =>
      run.results.map(
        (r) =>
          `| ${run.run} | ${r.caseId} | ${fmtMiB(r.memory.rssBytes)} | ${fmtMiB(r.memory.heapUsedBytes)} | ${r.idle === undefined ? '–' : (((r.idle.cpuUserMs + r.idle.cpuSystemMs) / r.idle.wallMs) * 100).toFixed(2)} | ${r.idle === undefined ? '–' : fmtInt(r.idle.pullRequests)} | ${r.sockets.filter((s) => s.state === 'ESTABLISHED').length} |`,
      ),
    ),
    '',
    '## Notes',
    '',
    "- A CLUSTERING mapping also holds its group's `%RETRY%<group>` topic (one queue per broker, as Java's client subscribes to it): 'Queues held' counts those.",
    '- Each case is a fresh child process (`node --expose-gc`, the poller compiled to plain JavaScript) with fresh consumer groups; the baseline loads the same modules and starts nothing.',
    "- RSS moves in pages and with V8's heap sizing; per-queue and per-mapping RSS differences below a few hundred KiB are within noise. The V8 heap after GC is the steadier figure.",
    '- Idle CPU is the whole child process (all threads, user + system) over the window, measured with `process.cpuUsage()`; other work on the machine shows as load, not in this figure, but a busy machine stretches timers and GC. Read it with the load average next to it.',
    '- Connections are counted from `/proc/<pid>/fd` and `/proc/<pid>/net/tcp{,6}` after settling, before the backlog is drained (the drain uses a second client).',
    '',
  );
  return lines.join('\n');
}

function marginalRow(what: string, cost: MarginalCost): string {
  return `| ${what} | ${fmtKiB(cost.rssBytes)} | ${fmtKiB(cost.heapUsedBytes)} | ${cost.cpuPercentOfCore === undefined ? '–' : cost.cpuPercentOfCore.toFixed(4)} |`;
}

function fmtMinMax(value: MinMax): string {
  return value.min === value.max ? String(value.min) : `${value.min}–${value.max}`;
}

function fmtInt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function fmtMiB(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function fmtKiB(bytes: number): string {
  return Number.isNaN(bytes) ? '–' : `${(bytes / 1024).toFixed(1)} KiB`;
}
