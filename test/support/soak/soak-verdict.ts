/**
 * The verdict of a soak run, computed from what the run recorded (pure, so that it is unit-tested
 * without a cluster): what was sent, every record the functions saw (soak-functions.ts), what the DLQs
 * hold, the faults as applied, the pollers' memory samples and exits.
 *
 * Definitions:
 * - expected: a mapping expects every message of its topic (the filter mapping: those tagged
 *   {@link SOAK_FILTER_TAG}); the concurrent mapping's `fail-always` messages are expected in its DLQ
 *   instead of handled.
 * - delivered: expected messages the mapping's function handled successfully at least once;
 *   dead-lettered: expected, not delivered, and in the mapping's DLQ (a burst of Lambda errors can fail
 *   a message past `maxReconsumeTimes`: handed to the DLQ, as the mapping says, not lost); lost:
 *   expected, neither delivered nor dead-lettered.
 * - past retry limit outside the DLQ: `fail-always` messages not in the concurrent group's DLQ.
 * - duplicates: a successful handling of a message the same mapping had handled successfully before.
 *   Each is charged to a fault, a heuristic: the fault active when the message was first handled (an
 *   invoke that ran past its timeout, a batch handled while a broker was down), else the fault active
 *   when the duplicate came (a fault stays "active" for {@link SOAK_FAULT_TAIL_MS} past its end here:
 *   redeliveries come after the broker or the poller is back); the one started last when several are,
 *   `none` when none is.
 * - order violations: those of orderly-ledger.ts's checkOrder over the orderly mapping's handlings
 *   (batches that skip or go back inside a queue, a sharding key's seq handled before an earlier one).
 * - stall: for each mapping and each queue a message was sent to, the longest time while a message
 *   sent there waited for its first handling (success or not) and no message of that queue got its
 *   first handling; with the faults active during it.
 * - RSS slope: least squares over a poller's samples, in MiB per minute.
 */
import { checkOrder } from '../../integration/cluster/orderly-ledger.js';
import type { SoakHandling, SoakMapping, SoakRole } from './soak-functions.js';
import type { SoakFaultKind } from './soak-schedule.js';

/** The tag the filter mapping selects. */
export const SOAK_FILTER_TAG = 'keep';
/** How long after its end a fault still takes the blame for duplicates. */
export const SOAK_FAULT_TAIL_MS = 30_000;

/** One message the producer sent. */
export interface SoakSent {
  id: string;
  topic: string;
  /** The mappings that expect it (by topic and tag). */
  mappings: readonly SoakMapping[];
  role: SoakRole;
  brokerName: string;
  queueId: number;
  sentAtMs: number;
  /** Where the broker stored it (the send result). */
  queueOffset?: number | undefined;
  /** The orderly topic's sharding key. */
  shardKey?: string | undefined;
}

/** One fault as the runner applied it. */
export interface SoakAppliedFault {
  index: number;
  kind: SoakFaultKind;
  target: string;
  startedAtMs: number;
  /** Undefined when it never ended (the run stopped first). */
  endedAtMs: number | undefined;
  /** Why it was not applied, when it was not (e.g. no poller to scale in). */
  skipped?: string;
}

/** One reading of a poller's memory. */
export interface SoakMemorySample {
  atMs: number;
  rssBytes: number;
  /** The V8 heap used (the poller's `nodejs_heap_size_used_bytes`), when it could be read. */
  heapBytes?: number | undefined;
}

/** How a poller process ended. */
export interface SoakPollerExit {
  poller: string;
  /** What ended it: a fault's SIGKILL/SIGTERM, or the run's final SIGTERM. */
  cause: string;
  code: number | null;
  signal: string | null;
  /** When it exited non-zero: its last error-level log lines (message and error), to say why. */
  errors?: string[];
}

/** What {@link soakVerdict} reads. */
export interface SoakRecord {
  seed: number;
  minutes: number;
  runStartedAtMs: number;
  runEndedAtMs: number;
  sent: readonly SoakSent[];
  handlings: readonly SoakHandling[];
  /** Message ids in each mapping's DLQ (`%DLQ%<group>`). */
  dlqIds: ReadonlyMap<SoakMapping, ReadonlySet<string>>;
  faults: readonly SoakAppliedFault[];
  memory: ReadonlyMap<string, readonly SoakMemorySample[]>;
  exits: readonly SoakPollerExit[];
}

/** The verdict, as written to JSON. */
export interface SoakVerdict {
  seed: number;
  minutes: number;
  sent: number;
  expected: number;
  delivered: number;
  lost: number;
  lostExamples: string[];
  deadLettered: number;
  perMapping: Record<
    string,
    { expected: number; delivered: number; deadLettered: number; lost: number; duplicates: number }
  >;
  orderViolations: number;
  orderViolationExamples: string[];
  failAlwaysSent: number;
  pastRetryLimitOutsideDlq: number;
  filterLeaks: number;
  duplicatesByFault: Record<string, number>;
  faultsApplied: number;
  faultsSkipped: { kind: string; why: string }[];
  /**
   * Per poller: RSS first and last, least-squares slopes of RSS and heap used (MiB per minute) over the
   * samples taken `spanMin` minutes apart (a slope over less than a few minutes says little).
   */
  memory: Record<
    string,
    {
      samples: number;
      spanMin: number;
      firstMiB: number;
      lastMiB: number;
      rssSlopeMiBPerMin: number;
      heapSlopeMiBPerMin: number | undefined;
    }
  >;
  longestStall:
    | { mapping: string; queue: string; seconds: number; fromS: number; faults: string[] }
    | undefined;
  exits: SoakPollerExit[];
  /** True when lost, order violations and past-retry-limit are all 0. */
  pass: boolean;
}

const MiB = 1024 * 1024;
const QUOTED = 10;

/**
 * Computes the verdict of a run.
 *
 * @example
 * ```ts
 * const verdict = soakVerdict(record);
 * console.info(formatVerdict(verdict));
 * ```
 */
export function soakVerdict(run: SoakRecord): SoakVerdict {
  const perMapping: SoakVerdict['perMapping'] = {};
  const lostExamples: string[] = [];
  let expected = 0;
  let delivered = 0;
  let deadLettered = 0;
  const firstSuccess = new Map<string, number>();
  const duplicatesByFault: Record<string, number> = {};
  const byMapping = new Map<SoakMapping, SoakHandling[]>();
  for (const h of [...run.handlings].sort((a, b) => a.atMs - b.atMs)) {
    const list = byMapping.get(h.mapping) ?? [];
    list.push(h);
    byMapping.set(h.mapping, list);
  }
  const duplicatesOf = new Map<string, number>();
  for (const [mapping, handlings] of byMapping) {
    for (const h of handlings) {
      if (!h.succeeded) continue;
      const key = `${mapping} ${h.messageId}`;
      if (!firstSuccess.has(key)) {
        firstSuccess.set(key, h.atMs);
        continue;
      }
      duplicatesOf.set(mapping, (duplicatesOf.get(mapping) ?? 0) + 1);
      const firstAt = firstSuccess.get(key) ?? h.atMs;
      const blamed =
        (
          activeFaults(run.faults, firstAt).at(-1) ??
          activeFaults(run.faults, h.atMs, SOAK_FAULT_TAIL_MS).at(-1)
        )?.kind ?? 'none';
      duplicatesByFault[blamed] = (duplicatesByFault[blamed] ?? 0) + 1;
    }
  }
  const mappings = new Set(run.sent.flatMap((s) => s.mappings));
  for (const mapping of mappings) {
    const row = {
      expected: 0,
      delivered: 0,
      deadLettered: 0,
      lost: 0,
      duplicates: duplicatesOf.get(mapping) ?? 0,
    };
    const dlq = run.dlqIds.get(mapping);
    for (const s of run.sent) {
      if (!s.mappings.includes(mapping)) continue;
      if (mapping === 'concurrent' && s.role === 'fail-always') continue;
      row.expected++;
      if (firstSuccess.has(`${mapping} ${s.id}`)) row.delivered++;
      else if (dlq?.has(s.id)) row.deadLettered++;
      else {
        row.lost++;
        if (lostExamples.length < QUOTED)
          lostExamples.push(`${mapping} ${s.id} ${s.brokerName}:${s.queueId}`);
      }
    }
    perMapping[mapping] = row;
    expected += row.expected;
    delivered += row.delivered;
    deadLettered += row.deadLettered;
  }
  const failAlways = run.sent.filter((s) => s.role === 'fail-always' && s.mappings.includes('concurrent'));
  const concurrentDlq = run.dlqIds.get('concurrent');
  const pastRetryLimitOutsideDlq = failAlways.filter((s) => !concurrentDlq?.has(s.id)).length;
  const filterLeaks = (byMapping.get('filter') ?? []).filter((h) => h.tag !== SOAK_FILTER_TAG).length;

  // An orderly message dead-lettered (`orderlyFailure: skip` after maxReconsumeTimes) is skipped on
  // purpose: its offset is taken out of its queue and its seq out of its key before the order check.
  const orderlyDlq = run.dlqIds.get('orderly') ?? new Set<string>();
  const skippedOffsets = new Map<string, number[]>();
  for (const s of run.sent) {
    if (!s.mappings.includes('orderly') || !orderlyDlq.has(s.id) || s.queueOffset === undefined) continue;
    const queue = `${s.brokerName}:${s.queueId}`;
    skippedOffsets.set(queue, [...(skippedOffsets.get(queue) ?? []), s.queueOffset]);
  }
  const segments = orderlySegments(run.sent.filter((s) => !orderlyDlq.has(s.id)));
  // A message whose send failed on our side (a timeout while a master died) may still have been stored:
  // the ledger does not know it (the stream sent it again, under a new id), yet it holds its offset in
  // the queue, so it stays in the queue check, without a key (the key's message is the one sent again).
  // Leaving it out made every batch across it look like a skip (seed 20261206, 60 minutes).
  const orderly = (byMapping.get('orderly') ?? []).flatMap((h) => {
    if (h.topic.startsWith('%') || orderlyDlq.has(h.messageId)) return [];
    const segment = segments.get(h.messageId);
    const skipped = skippedOffsets.get(`${h.brokerName}:${h.queueId}`) ?? [];
    const queueOffset = h.queueOffset - skipped.filter((o) => o < h.queueOffset).length;
    return [{ ...h, shardKey: segment?.shardKey, seq: segment?.seq, queueOffset }];
  });
  const order = checkOrder(
    orderly.map((h, line) => ({ ...h, line })),
    // The functions answer at once; exclusivity is not judged here (batchMs 0).
    { batchMs: 0 },
  );

  const memory: SoakVerdict['memory'] = {};
  for (const [poller, samples] of run.memory) {
    if (samples.length === 0) continue;
    const heap = samples.flatMap((s) =>
      s.heapBytes === undefined ? [] : [[s.atMs / 60_000, s.heapBytes / MiB] as const],
    );
    memory[poller] = {
      samples: samples.length,
      spanMin: round(((samples.at(-1)?.atMs ?? 0) - (samples[0]?.atMs ?? 0)) / 60_000),
      firstMiB: round((samples[0]?.rssBytes ?? 0) / MiB),
      lastMiB: round((samples.at(-1)?.rssBytes ?? 0) / MiB),
      rssSlopeMiBPerMin: round(slope(samples.map((s) => [s.atMs / 60_000, s.rssBytes / MiB]))),
      heapSlopeMiBPerMin: heap.length < 2 ? undefined : round(slope(heap)),
    };
  }

  const applied = run.faults.filter((f) => f.skipped === undefined);
  const verdict: SoakVerdict = {
    seed: run.seed,
    minutes: run.minutes,
    sent: run.sent.length,
    expected,
    delivered,
    deadLettered,
    lost: expected - delivered - deadLettered,
    lostExamples,
    perMapping,
    orderViolations: order.queueViolations + order.keyViolations + order.keysInSeveralQueues.length,
    orderViolationExamples: [
      ...order.queueViolationExamples,
      ...order.keyViolationExamples,
      ...order.keysInSeveralQueues,
    ].slice(0, QUOTED),
    failAlwaysSent: failAlways.length,
    pastRetryLimitOutsideDlq,
    filterLeaks,
    duplicatesByFault,
    faultsApplied: applied.length,
    faultsSkipped: run.faults
      .filter((f) => f.skipped !== undefined)
      .map((f) => ({ kind: f.kind, why: f.skipped ?? '' })),
    memory,
    longestStall: longestStall(run),
    exits: [...run.exits],
    pass: false,
  };
  verdict.pass = verdict.lost === 0 && verdict.orderViolations === 0 && pastRetryLimitOutsideDlq === 0;
  return verdict;
}

/**
 * Each orderly message's key and seq within its segment: a key's messages in send order, cut where the
 * queue they were sent to changes (a master died and the producer's hash went over the queues left; the
 * order of a key across queues is not the consumer's to keep). `shardKey@queue#n` and 0, 1, 2, ...
 */
export function orderlySegments(sent: readonly SoakSent[]): Map<string, { shardKey: string; seq: number }> {
  const segments = new Map<string, { shardKey: string; seq: number }>();
  const current = new Map<string, { queue: string; index: number; next: number }>();
  for (const s of sent) {
    if (s.shardKey === undefined) continue;
    const queue = `${s.brokerName}:${s.queueId}`;
    let at = current.get(s.shardKey);
    if (at === undefined || at.queue !== queue) {
      at = { queue, index: (at?.index ?? -1) + 1, next: 0 };
      current.set(s.shardKey, at);
    }
    segments.set(s.id, { shardKey: `${s.shardKey}@${queue}#${at.index}`, seq: at.next++ });
  }
  return segments;
}

/** The faults active at `atMs` (with `tailMs` past their end), in start order. */
export function activeFaults(
  faults: readonly SoakAppliedFault[],
  atMs: number,
  tailMs = 0,
): SoakAppliedFault[] {
  return faults.filter(
    (f) =>
      f.skipped === undefined &&
      f.startedAtMs <= atMs &&
      (f.endedAtMs === undefined || atMs <= f.endedAtMs + tailMs),
  );
}

function longestStall(run: SoakRecord): SoakVerdict['longestStall'] {
  const firstHandled = new Map<string, number>();
  for (const h of run.handlings) {
    const key = `${h.mapping} ${h.messageId}`;
    const at = firstHandled.get(key);
    if (at === undefined || h.atMs < at) firstHandled.set(key, h.atMs);
  }
  let best: SoakVerdict['longestStall'];
  const queues = new Map<string, { mapping: string; queue: string; sent: number[]; handled: number[] }>();
  for (const s of run.sent) {
    for (const mapping of s.mappings) {
      const key = `${mapping} ${s.brokerName}:${s.queueId}`;
      const q = queues.get(key) ?? { mapping, queue: `${s.brokerName}:${s.queueId}`, sent: [], handled: [] };
      q.sent.push(s.sentAtMs);
      // Never handled: pending until the run's end.
      q.handled.push(firstHandled.get(`${mapping} ${s.id}`) ?? run.runEndedAtMs);
      queues.set(key, q);
    }
  }
  for (const q of queues.values()) {
    const progress = [...new Set(q.handled)].sort((a, b) => a - b);
    // A stall: from a progress event (or a send into an idle queue) to the next progress, while some
    // message sent before its start still waits.
    const pairs = q.sent.map((at, i) => [at, q.handled[i] ?? at] as const).sort((a, b) => a[0] - b[0]);
    for (const [sentAt, handledAt] of pairs) {
      // The last progress before this message's handling, not before it was sent.
      const from = Math.max(sentAt, lastBefore(progress, handledAt) ?? sentAt);
      const ms = handledAt - from;
      if (best === undefined || ms / 1000 > best.seconds) {
        best = {
          mapping: q.mapping,
          queue: q.queue,
          seconds: round(ms / 1000),
          fromS: round((from - run.runStartedAtMs) / 1000),
          faults: run.faults
            .filter(
              (f) =>
                f.skipped === undefined && f.startedAtMs <= handledAt && (f.endedAtMs ?? Infinity) >= from,
            )
            .map((f) => `#${f.index} ${f.kind} ${f.target}`),
        };
      }
    }
  }
  return best;
}

function lastBefore(sorted: readonly number[], at: number): number | undefined {
  let found: number | undefined;
  for (const t of sorted) {
    if (t >= at) break;
    found = t;
  }
  return found;
}

/** Least-squares slope of y over x (0 with fewer than two points). */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * The verdict as the lines a run prints.
 *
 * @example
 * ```ts
 * console.info(formatVerdict(verdict));
 * ```
 */
export function formatVerdict(v: SoakVerdict): string {
  const lines = [
    `soak verdict (seed ${v.seed}, ${v.minutes} min): ${v.pass ? 'PASS' : 'FAIL'}`,
    `  sent ${v.sent}, expected ${v.expected}, delivered ${v.delivered}, dead-lettered ${v.deadLettered}, lost ${v.lost}${v.lostExamples.length > 0 ? ` (e.g. ${v.lostExamples.join('; ')})` : ''}`,
    ...Object.entries(v.perMapping).map(
      ([m, r]) =>
        `  ${m}: expected ${r.expected}, delivered ${r.delivered}, dead-lettered ${r.deadLettered}, lost ${r.lost}, duplicates ${r.duplicates}`,
    ),
    `  order violations (orderly) ${v.orderViolations}${v.orderViolationExamples.length > 0 ? ` (e.g. ${v.orderViolationExamples.join('; ')})` : ''}`,
    `  fail-always sent ${v.failAlwaysSent}, past the retry limit outside the DLQ ${v.pastRetryLimitOutsideDlq}; filter leaks ${v.filterLeaks}`,
    `  duplicates by fault: ${
      Object.entries(v.duplicatesByFault)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
    `  faults applied ${v.faultsApplied}, skipped ${v.faultsSkipped.length}${v.faultsSkipped.length > 0 ? ` (${v.faultsSkipped.map((s) => `${s.kind}: ${s.why}`).join('; ')})` : ''}`,
    `  memory per poller (RSS MiB first -> last over min; slopes MiB/min RSS, heap): ${Object.entries(
      v.memory,
    )
      .map(
        ([p, m]) =>
          `${p} ${m.firstMiB} -> ${m.lastMiB} over ${m.spanMin} (${m.rssSlopeMiBPerMin}, ${m.heapSlopeMiBPerMin ?? '-'})`,
      )
      .join(', ')}`,
    `  longest stall: ${v.longestStall === undefined ? 'none' : `${v.longestStall.seconds} s on ${v.longestStall.mapping} ${v.longestStall.queue} from +${v.longestStall.fromS} s during ${v.longestStall.faults.join(', ') || 'no fault'}`}`,
    `  exits: ${v.exits.map((e) => `${e.poller} ${e.cause} -> ${e.signal ?? `code ${String(e.code)}`}${e.errors === undefined ? '' : ` (${e.errors.join('; ')})`}`).join(', ')}`,
  ];
  return lines.join('\n');
}
