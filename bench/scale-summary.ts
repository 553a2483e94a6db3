/**
 * The scale bench's figures from its children's results: per case the medians over the runs, and the
 * marginal costs: memory of the first mapping (over the baseline), per further mapping (the slope of a
 * least-squares line through the mapping counts, in each run, median over runs), per queue (a poller on
 * the wide topic against one with as many mappings on small topics), and idle CPU likewise; connections
 * per broker by remote address.
 */
import { median } from './report.js';
import type { ScaleChildResult, ScaleIdle } from './scale-child.js';
import type { ScaleCase } from './scale-plan.js';

/**
 * One run: every case's child result, in plan order.
 */
export interface ScaleRun {
  readonly run: number;
  readonly results: readonly ScaleChildResult[];
  /** Cases whose child failed (e.g. the poller did not hold every queue in time), with the error. */
  readonly failures: readonly { readonly caseId: string; readonly error: string }[];
}

/**
 * Connections of a case by what is at the far end, as min and max over the runs (equal when steady).
 */
export interface ConnectionCounts {
  /** ESTABLISHED sockets per labelled peer (namesrv, broker-a, ...). */
  readonly byPeer: Readonly<Record<string, MinMax>>;
  /** ESTABLISHED sockets to any address without a label. */
  readonly other: MinMax;
  /** Sockets in any other state (LISTEN, TIME_WAIT, ...). */
  readonly notEstablished: MinMax;
}

/** The smallest and largest of a count over the runs. */
export interface MinMax {
  readonly min: number;
  readonly max: number;
}

/**
 * The medians of one case.
 */
export interface ScaleCaseSummary {
  readonly id: string;
  readonly mappings: number;
  /** Topic queues of the case's mappings (the plan's). */
  readonly queues: number;
  /** Queues held when measured (median), the `%RETRY%` queues included. */
  readonly queuesHeld: number;
  readonly retryQueuesHeld: number;
  readonly runs: number;
  readonly startToHeldMs: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  readonly idle: ScaleIdleSummary | undefined;
  readonly connections: ConnectionCounts;
  readonly drain: { readonly messages: number; readonly ms: number } | undefined;
}

/**
 * The medians of a case's idle windows.
 */
export interface ScaleIdleSummary {
  readonly windowMs: number;
  /** CPU time (user + system) per wall time, in percent of one core. */
  readonly cpuPercentOfCore: number;
  readonly pullsPerSecond: number;
  readonly rssAfterBytes: number;
  readonly heapUsedAfterBytes: number;
  /** The machine's 1-minute load average at the start and end of the window (median over runs). */
  readonly loadAvg1Before: number;
  readonly loadAvg1After: number;
}

/**
 * A marginal cost: the median over runs of a per-run difference or slope.
 */
export interface MarginalCost {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** Undefined when the cases compared had no idle window. */
  readonly cpuPercentOfCore: number | undefined;
  readonly runs: number;
}

/**
 * Every figure of the scale report.
 *
 * @example
 * ```ts
 * const summary = summarizeScale(runs, cases, { '127.0.0.1:9876': 'namesrv' });
 * console.log(summary.perMapping.rssBytes);
 * ```
 */
export interface ScaleSummary {
  readonly cases: readonly ScaleCaseSummary[];
  /** `mappings-1` over `baseline`: a client, its connections, one mapping, the invoker and handler. */
  readonly firstMapping: MarginalCost;
  /** Slope over the `mappings-<n>` cases: what each further mapping (a topic, a group, its queues) adds. */
  readonly perMapping: MarginalCost & { readonly queuesPerMapping: number };
  /** `wide-<n>` against `mappings-<n>`: the cost of one more held queue, for each wide case. */
  readonly perQueue: readonly (MarginalCost & { readonly mappings: number; readonly extraQueues: number })[];
}

/**
 * The least-squares slope of `points` (y per unit of x); NaN with fewer than two distinct x.
 *
 * @example
 * ```ts
 * leastSquaresSlope([{ x: 1, y: 10 }, { x: 10, y: 28 }, { x: 50, y: 108 }]); // => 2
 * ```
 */
export function leastSquaresSlope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY);
    variance += (p.x - meanX) ** 2;
  }
  return variance === 0 ? Number.NaN : covariance / variance;
}

/**
 * CPU time per wall time of an idle window, in percent of one core.
 *
 * @example
 * ```ts
 * cpuPercentOfCore({ wallMs: 60_000, cpuUserMs: 450, cpuSystemMs: 150 }); // => 1
 * ```
 */
export function cpuPercentOfCore(idle: Pick<ScaleIdle, 'wallMs' | 'cpuUserMs' | 'cpuSystemMs'>): number {
  return ((idle.cpuUserMs + idle.cpuSystemMs) / idle.wallMs) * 100;
}

/**
 * Counts a case's sockets by labelled peer (`labels`: remote `host:port` → label).
 *
 * @example
 * ```ts
 * countConnections([{ remoteAddress: '127.0.0.1:9876', state: 'ESTABLISHED' }], { '127.0.0.1:9876': 'namesrv' });
 * // => { byPeer: { namesrv: 1 }, other: 0, notEstablished: 0 }
 * ```
 */
export function countConnections(
  sockets: readonly { remoteAddress: string; state: string }[],
  labels: Readonly<Record<string, string>>,
): { byPeer: Record<string, number>; other: number; notEstablished: number } {
  const byPeer: Record<string, number> = {};
  for (const label of Object.values(labels)) byPeer[label] = 0;
  let other = 0;
  let notEstablished = 0;
  for (const socket of sockets) {
    if (socket.state !== 'ESTABLISHED') {
      notEstablished++;
      continue;
    }
    const label = labels[socket.remoteAddress];
    if (label === undefined) other++;
    else byPeer[label] = (byPeer[label] ?? 0) + 1;
  }
  return { byPeer, other, notEstablished };
}

/**
 * Summarizes the runs of `cases` (the plan's cases, in order). A run whose child failed in a case is
 * left out of that case's medians and of the costs that need the case; `runs` of each says how many
 * counted.
 *
 * @example
 * ```ts
 * const summary = summarizeScale(runs, scaleCases(plan), labels);
 * ```
 */
export function summarizeScale(
  runs: readonly ScaleRun[],
  cases: readonly ScaleCase[],
  labels: Readonly<Record<string, string>>,
): ScaleSummary {
  const resultOf = (run: ScaleRun, id: string): ScaleChildResult => {
    const found = run.results.find((result) => result.caseId === id);
    if (found === undefined) throw new MissingCase();
    return found;
  };
  const caseSummaries = cases.flatMap((scaleCase) => {
    const results = runs.flatMap((run) => run.results.filter((result) => result.caseId === scaleCase.id));
    return results.length === 0 ? [] : [summarizeCase(scaleCase, results, labels)];
  });

  const mappingCases = cases.filter((c) => c.id.startsWith('mappings-'));
  const firstMappingCase = mappingCases.find((c) => c.mappings.length === 1);
  const firstMapping = marginal(runs, (run) => {
    if (firstMappingCase === undefined) return undefined;
    const one = resultOf(run, firstMappingCase.id);
    const none = resultOf(run, 'baseline');
    return {
      rssBytes: one.memory.rssBytes - none.memory.rssBytes,
      heapUsedBytes: one.memory.heapUsedBytes - none.memory.heapUsedBytes,
      cpuPercentOfCore: undefined,
    };
  });
  const perMappingCost = marginal(runs, (run) => {
    if (mappingCases.length < 2) return undefined;
    const results = mappingCases.map((c) => resultOf(run, c.id));
    const slope = (pick: (result: ScaleChildResult) => number | undefined): number | undefined => {
      const points = results.flatMap((result) => {
        const y = pick(result);
        return y === undefined ? [] : [{ x: result.mappings, y }];
      });
      return points.length === results.length ? leastSquaresSlope(points) : undefined;
    };
    return {
      rssBytes: slope((r) => r.memory.rssBytes) ?? Number.NaN,
      heapUsedBytes: slope((r) => r.memory.heapUsedBytes) ?? Number.NaN,
      cpuPercentOfCore: slope((r) => (r.idle === undefined ? undefined : cpuPercentOfCore(r.idle))),
    };
  });
  const queuesPerMapping =
    mappingCases[0] === undefined ? 0 : mappingCases[0].queues / mappingCases[0].mappings.length;

  const perQueue = cases
    .filter((c) => c.id.startsWith('wide-'))
    .flatMap((wide) => {
      const small = mappingCases.find((c) => c.mappings.length === wide.mappings.length);
      if (small === undefined) return [];
      const extraQueues = wide.queues - small.queues;
      const cost = marginal(runs, (run) => {
        const w = resultOf(run, wide.id);
        const s = resultOf(run, small.id);
        return {
          rssBytes: (w.memory.rssBytes - s.memory.rssBytes) / extraQueues,
          heapUsedBytes: (w.memory.heapUsedBytes - s.memory.heapUsedBytes) / extraQueues,
          cpuPercentOfCore:
            w.idle === undefined || s.idle === undefined
              ? undefined
              : (cpuPercentOfCore(w.idle) - cpuPercentOfCore(s.idle)) / extraQueues,
        };
      });
      return [{ ...cost, mappings: wide.mappings.length, extraQueues }];
    });

  return {
    cases: caseSummaries,
    firstMapping,
    perMapping: { ...perMappingCost, queuesPerMapping },
    perQueue,
  };
}

function summarizeCase(
  scaleCase: ScaleCase,
  results: readonly ScaleChildResult[],
  labels: Readonly<Record<string, string>>,
): ScaleCaseSummary {
  const of = (pick: (result: ScaleChildResult) => number): number => median(results.map(pick));
  const idles = results.flatMap((result) => (result.idle === undefined ? [] : [result.idle]));
  const drains = results.flatMap((result) => (result.drain === undefined ? [] : [result.drain]));
  const counts = results.map((result) => countConnections(result.sockets, labels));
  const minMax = (pick: (count: (typeof counts)[number]) => number): MinMax => ({
    min: Math.min(...counts.map(pick)),
    max: Math.max(...counts.map(pick)),
  });
  const peers = [...new Set(counts.flatMap((count) => Object.keys(count.byPeer)))];
  return {
    id: scaleCase.id,
    mappings: scaleCase.mappings.length,
    queues: scaleCase.queues,
    queuesHeld: of((r) => r.queuesHeld),
    retryQueuesHeld: of((r) => r.retryQueuesHeld),
    runs: results.length,
    startToHeldMs: of((r) => r.startToHeldMs),
    rssBytes: of((r) => r.memory.rssBytes),
    heapUsedBytes: of((r) => r.memory.heapUsedBytes),
    heapTotalBytes: of((r) => r.memory.heapTotalBytes),
    externalBytes: of((r) => r.memory.externalBytes),
    idle:
      idles.length === 0
        ? undefined
        : {
            windowMs: median(idles.map((idle) => idle.wallMs)),
            cpuPercentOfCore: median(idles.map(cpuPercentOfCore)),
            pullsPerSecond: median(idles.map((idle) => idle.pullRequests / (idle.wallMs / 1000))),
            rssAfterBytes: median(idles.map((idle) => idle.memoryAfter.rssBytes)),
            heapUsedAfterBytes: median(idles.map((idle) => idle.memoryAfter.heapUsedBytes)),
            loadAvg1Before: median(idles.map((idle) => idle.loadAvgBefore[0] ?? Number.NaN)),
            loadAvg1After: median(idles.map((idle) => idle.loadAvgAfter[0] ?? Number.NaN)),
          },
    connections: {
      byPeer: Object.fromEntries(peers.map((peer) => [peer, minMax((count) => count.byPeer[peer] ?? 0)])),
      other: minMax((count) => count.other),
      notEstablished: minMax((count) => count.notEstablished),
    },
    drain:
      drains.length === 0
        ? undefined
        : { messages: median(drains.map((d) => d.messages)), ms: median(drains.map((d) => d.ms)) },
  };
}

/** The median over runs of a per-run cost; a run that cannot give one is left out. */
function marginal(
  runs: readonly ScaleRun[],
  perRun: (run: ScaleRun) => Omit<MarginalCost, 'runs'> | undefined,
): MarginalCost {
  const costs = runs.flatMap((run) => {
    try {
      const cost = perRun(run);
      return cost === undefined ? [] : [cost];
    } catch (error) {
      if (error instanceof MissingCase) return [];
      throw error;
    }
  });
  const cpu = costs.flatMap((cost) => (cost.cpuPercentOfCore === undefined ? [] : [cost.cpuPercentOfCore]));
  return {
    rssBytes: median(costs.map((cost) => cost.rssBytes)),
    heapUsedBytes: median(costs.map((cost) => cost.heapUsedBytes)),
    cpuPercentOfCore: cpu.length === 0 ? undefined : median(cpu),
    runs: costs.length,
  };
}

/** A run has no result for a case a cost needs (its child failed): the run is left out of that cost. */
class MissingCase extends Error {}
