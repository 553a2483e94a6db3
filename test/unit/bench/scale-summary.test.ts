import { describe, expect, it } from 'vitest';
import type { ScaleChildResult } from '../../../bench/scale-child.js';
import { scaleCases, scalePlan } from '../../../bench/scale-plan.js';
import {
  countConnections,
  cpuPercentOfCore,
  leastSquaresSlope,
  type ScaleRun,
  summarizeScale,
} from '../../../bench/scale-summary.js';

const MiB = 1024 * 1024;
const NAMESRV = '127.0.0.1:9876';
const BROKER_A = '127.0.0.1:10911';
const BROKER_B = '127.0.0.1:10921';
const LABELS = { [NAMESRV]: 'namesrv', [BROKER_A]: 'broker-a', [BROKER_B]: 'broker-b' };
const ONE_EACH = [NAMESRV, BROKER_A, BROKER_B].map((remoteAddress) => ({
  remoteAddress,
  state: 'ESTABLISHED',
}));

/** A child result whose memory and idle CPU follow a made-up linear model, with a per-run offset. */
function result(
  caseId: string,
  mappings: number,
  queues: number,
  options: { offset: number; idle: boolean; sockets?: ScaleChildResult['sockets'] },
): ScaleChildResult {
  const base = 80 * MiB + options.offset;
  const rss = mappings === 0 ? base : base + 4 * MiB + (mappings - 1) * 200 * 1024 + queues * 10 * 1024;
  const heap = mappings === 0 ? 16 * MiB : 17 * MiB + (mappings - 1) * 100 * 1024 + queues * 4 * 1024;
  const cpuMs = 60 + mappings * 6 + queues * 0.6; // over 60 s
  const memory = {
    rssBytes: rss,
    heapUsedBytes: heap,
    heapTotalBytes: 2 * heap,
    externalBytes: 8 * MiB,
    arrayBuffersBytes: MiB,
  };
  return {
    caseId,
    mappings,
    queuesHeld: queues + 2 * mappings,
    retryQueuesHeld: 2 * mappings,
    startToHeldMs: mappings === 0 ? 0 : 500,
    memory,
    sockets: options.sockets ?? (mappings === 0 ? [] : ONE_EACH),
    idle: options.idle
      ? {
          wallMs: 60_000,
          cpuUserMs: cpuMs * 0.75,
          cpuSystemMs: cpuMs * 0.25,
          pullRequests: queues * 4,
          loadAvgBefore: [1, 1, 1],
          loadAvgAfter: [1.5, 1, 1],
          memoryAfter: memory,
        }
      : undefined,
    drain: undefined,
  };
}

function runOf(run: number, offset: number): ScaleRun {
  const cases = scaleCases(scalePlan(false));
  return {
    run,
    failures: [],
    results: cases.map((c) =>
      result(c.id, c.mappings.length, c.queues, {
        offset,
        idle: c.idle,
        // Run 2 saw a second connection to broker-a in the 50-mapping case.
        sockets:
          run === 2 && c.id === 'mappings-50'
            ? [
                ...ONE_EACH,
                { remoteAddress: BROKER_A, state: 'ESTABLISHED' },
                { remoteAddress: BROKER_B, state: 'TIME_WAIT' },
              ]
            : undefined,
      }),
    ),
  };
}

describe('leastSquaresSlope', () => {
  it('is the slope of the best line through the points', () => {
    expect(
      leastSquaresSlope([
        { x: 1, y: 10 },
        { x: 10, y: 28 },
        { x: 50, y: 108 },
      ]),
    ).toBeCloseTo(2, 10);
    expect(
      leastSquaresSlope([
        { x: 0, y: 0 },
        { x: 1, y: 1 },
        { x: 2, y: 0 },
        { x: 3, y: 1 },
      ]),
    ).toBeCloseTo(0.2, 10);
  });

  it('is NaN without two distinct x', () => {
    expect(leastSquaresSlope([{ x: 1, y: 10 }])).toBeNaN();
    expect(
      leastSquaresSlope([
        { x: 1, y: 10 },
        { x: 1, y: 12 },
      ]),
    ).toBeNaN();
  });
});

describe('cpuPercentOfCore', () => {
  it('is user + system CPU time per wall time, in percent of one core', () => {
    expect(cpuPercentOfCore({ wallMs: 60_000, cpuUserMs: 450, cpuSystemMs: 150 })).toBeCloseTo(1, 10);
    expect(cpuPercentOfCore({ wallMs: 1000, cpuUserMs: 1500, cpuSystemMs: 500 })).toBeCloseTo(200, 10);
  });
});

describe('countConnections', () => {
  it('counts ESTABLISHED sockets per labelled peer, the rest as other or not established', () => {
    expect(
      countConnections(
        [
          ...ONE_EACH,
          { remoteAddress: BROKER_A, state: 'ESTABLISHED' },
          { remoteAddress: '127.0.0.1:10909', state: 'ESTABLISHED' },
          { remoteAddress: '0.0.0.0:0', state: 'LISTEN' },
        ],
        LABELS,
      ),
    ).toEqual({ byPeer: { namesrv: 1, 'broker-a': 2, 'broker-b': 1 }, other: 1, notEstablished: 1 });
    expect(countConnections([], LABELS)).toEqual({
      byPeer: { namesrv: 0, 'broker-a': 0, 'broker-b': 0 },
      other: 0,
      notEstablished: 0,
    });
  });
});

describe('summarizeScale', () => {
  const cases = scaleCases(scalePlan(false));
  const runs = [runOf(1, 0), runOf(2, 3 * MiB), runOf(3, -MiB)];
  const summary = summarizeScale(runs, cases, LABELS);

  it('gives each case the medians over the runs', () => {
    const baseline = summary.cases.find((c) => c.id === 'baseline');
    expect(baseline?.rssBytes).toBe(80 * MiB);
    expect(baseline?.idle).toBeUndefined();
    const fifty = summary.cases.find((c) => c.id === 'mappings-50');
    expect(fifty?.queues).toBe(400);
    expect(fifty?.queuesHeld).toBe(500);
    expect(fifty?.retryQueuesHeld).toBe(100);
    expect(fifty?.runs).toBe(3);
    // (60 + 300 + 240) ms over 60 s
    expect(fifty?.idle?.cpuPercentOfCore).toBeCloseTo(1, 10);
    expect(fifty?.idle?.pullsPerSecond).toBeCloseTo(1600 / 60, 10);
  });

  it('takes the first mapping over the baseline, and further mappings as the slope over the mapping counts', () => {
    expect(summary.firstMapping.rssBytes).toBe(4 * MiB + 8 * 10 * 1024);
    expect(summary.firstMapping.heapUsedBytes).toBe(MiB + 8 * 4 * 1024);
    expect(summary.firstMapping.cpuPercentOfCore).toBeUndefined();
    // each mapping: 200 KiB + 8 queues × 10 KiB RSS; 100 KiB + 8 × 4 KiB heap; 6 + 8 × 0.6 ms CPU per 60 s
    expect(summary.perMapping.rssBytes).toBeCloseTo(280 * 1024, 6);
    expect(summary.perMapping.heapUsedBytes).toBeCloseTo(132 * 1024, 6);
    expect(summary.perMapping.cpuPercentOfCore).toBeCloseTo((10.8 / 60_000) * 100, 10);
    expect(summary.perMapping.queuesPerMapping).toBe(8);
    expect(summary.perMapping.runs).toBe(3);
  });

  it('takes the per-queue cost from the wide cases against as many mappings on small topics', () => {
    expect(summary.perQueue.map((q) => [q.mappings, q.extraQueues])).toEqual([
      [1, 56],
      [10, 560],
    ]);
    const [one, ten] = summary.perQueue;
    expect(one?.rssBytes).toBeCloseTo(10 * 1024, 6);
    expect(one?.heapUsedBytes).toBeCloseTo(4 * 1024, 6);
    expect(one?.cpuPercentOfCore).toBeUndefined(); // wide-1 has no idle window
    expect(ten?.cpuPercentOfCore).toBeCloseTo((0.6 / 60_000) * 100, 10);
  });

  it('lists connections per peer as min and max over the runs', () => {
    const fifty = summary.cases.find((c) => c.id === 'mappings-50');
    expect(fifty?.connections).toEqual({
      byPeer: { namesrv: { min: 1, max: 1 }, 'broker-a': { min: 1, max: 2 }, 'broker-b': { min: 1, max: 1 } },
      other: { min: 0, max: 0 },
      notEstablished: { min: 0, max: 1 },
    });
  });

  it('leaves a run whose child failed in a case out of that case and of the costs that need it', () => {
    const run4 = runOf(4, 100 * MiB);
    const partial: ScaleRun = {
      run: 4,
      results: run4.results.filter((r) => r.caseId !== 'wide-10'),
      failures: [{ caseId: 'wide-10', error: 'the poller held 600 of 640 queues after 120000 ms' }],
    };
    const withPartial = summarizeScale([...runs, partial], cases, LABELS);
    expect(withPartial.cases.find((c) => c.id === 'wide-10')?.runs).toBe(3);
    expect(withPartial.cases.find((c) => c.id === 'wide-1')?.runs).toBe(4);
    expect(withPartial.perQueue.map((q) => q.runs)).toEqual([4, 3]);
    expect(withPartial.perMapping.runs).toBe(4);
    const none = summarizeScale([{ run: 1, results: [], failures: [] }], cases, LABELS);
    expect(none.cases).toEqual([]);
    expect(none.perMapping.runs).toBe(0);
  });
});
