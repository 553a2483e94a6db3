/**
 * Where the duplicates of a churn run come from. Each handling of a message handled before is a
 * duplicate; it falls in the window of the membership change before it, and it is explained by one of:
 * - a SIGKILL: an earlier handling was by another poller that was later SIGKILLed (a crashed poller's
 *   work since the last offset the broker or the store kept comes again);
 * - a degraded hand-over the product announced in its log for the message's queue (or, without a queue,
 *   for the earlier handler): batches still running when a queue was given up, a final offset that
 *   could not be written, a new owner that stopped waiting for the old one, a queue recreated after a
 *   stall, offsets not persisted at shutdown. Each of those logs says its messages come again.
 * Anything else is unexplained: a queue that changed hands between live pollers without a hand-over
 * (seen once in five runs, 0.7 s after a SIGKILL, when the brokers drop the dead client at different
 * moments and the pollers briefly disagree on the members): the new owner starts at the offset the old
 * one's last pull committed, so about one batch comes again.
 */
import { type ClusterLedgerEntry, queueName } from './cluster-poller.js';

/** The start of each log message with which a poller says handled messages will be delivered again. */
export const REDELIVERY_WARNINGS: readonly string[] = [
  'hand-over: batches still running',
  'writing the final offset of a dropped queue failed',
  'the previous holder did not hand over in time',
  'queue not pulled for too long: recreated',
  'persisting offsets at shutdown failed',
];

/** How many unexplained duplicates are quoted. */
const QUOTED = 10;

/** A membership change as the attribution sees it. */
export interface MembershipChange {
  index: number;
  /** When it took effect, from the stream's start. */
  atMs: number;
  what: string;
  membersAfter: readonly string[];
}

/** One row per window: the start, then each change. */
export interface DuplicateWindow {
  change: string;
  atS: string;
  membersAfter: string;
  handled: number;
  duplicates: number;
  afterKill: number;
  announced: number;
  unexplained: number;
}

/** The attribution of a run's duplicates. */
export interface DuplicateAttribution {
  windows: DuplicateWindow[];
  /** Per SIGKILLed poller: duplicates of messages it had handled. */
  byKilledPoller: Map<string, number>;
  maxHandlings: number;
  /** Queues (`broker:queueId`) and pollers (`poller:*`) for which a redelivery warning was logged. */
  announcedFor: string[];
  /** `id queue: pollers in handling order` of unexplained duplicates (up to 10). */
  unexplainedExamples: string[];
  unexplained: number;
  /** The queues (`broker:queueId`) of unexplained duplicates. */
  unexplainedQueues: string[];
  /** The most unexplained duplicates of one queue in one window. */
  maxUnexplainedPerQueueAndWindow: number;
}

/**
 * Attributes the duplicates of `entries` (in handling order) to windows and causes.
 *
 * @example
 * ```ts
 * const a = attributeDuplicates({ entries, changes, streamStartedAt, firstMembers: ['p1', 'p2', 'p3'],
 *   killed, logs: new Map(pollers.map((p) => [p.name, p.logs()])), topic });
 * expect(a.unexplainedExamples).toEqual([]);
 * ```
 */
export function attributeDuplicates(run: {
  entries: readonly ClusterLedgerEntry[];
  changes: readonly MembershipChange[];
  streamStartedAt: number;
  firstMembers: readonly string[];
  killed: ReadonlySet<string>;
  /** Every poller's JSON log lines. */
  logs: ReadonlyMap<string, readonly Record<string, unknown>[]>;
  topic: string;
}): DuplicateAttribution {
  const announced = announcedRedeliveries(run.logs, run.topic);
  const row = (change: string, atMs: number, members: readonly string[]): DuplicateWindow => ({
    change,
    atS: (atMs / 1000).toFixed(1),
    membersAfter: `${members.length}: ${members.join(' ')}`,
    handled: 0,
    duplicates: 0,
    afterKill: 0,
    announced: 0,
    unexplained: 0,
  });
  const windows = [
    row('0 (start)', 0, run.firstMembers),
    ...run.changes.map((c) => row(`${c.index} ${c.what}`, c.atMs, c.membersAfter)),
  ];
  const windowOf = (atMs: number): DuplicateWindow => {
    let index = 0;
    for (const [i, c] of run.changes.entries()) if (atMs - run.streamStartedAt >= c.atMs) index = i + 1;
    return windows[index] as DuplicateWindow;
  };
  const handlers = new Map<string, string[]>();
  const byKilledPoller = new Map<string, number>();
  const unexplainedExamples: string[] = [];
  const unexplainedQueues = new Set<string>();
  const unexplainedPerQueueAndWindow = new Map<string, number>();
  let unexplained = 0;
  for (const entry of run.entries) {
    const window = windowOf(entry.atMs);
    window.handled++;
    const before = handlers.get(entry.messageId) ?? [];
    handlers.set(entry.messageId, [...before, entry.poller]);
    if (before.length === 0) continue;
    window.duplicates++;
    const killedBefore = [...new Set(before)].filter((p) => p !== entry.poller && run.killed.has(p));
    for (const poller of killedBefore) byKilledPoller.set(poller, (byKilledPoller.get(poller) ?? 0) + 1);
    if (killedBefore.length > 0) {
      window.afterKill++;
    } else if (announced.has(queueName(entry)) || before.some((p) => announced.has(`${p}:*`))) {
      window.announced++;
    } else {
      window.unexplained++;
      unexplained++;
      unexplainedQueues.add(queueName(entry));
      const key = `${window.change} ${queueName(entry)}`;
      unexplainedPerQueueAndWindow.set(key, (unexplainedPerQueueAndWindow.get(key) ?? 0) + 1);
      if (unexplainedExamples.length < QUOTED)
        unexplainedExamples.push(
          `${entry.messageId} ${queueName(entry)}@${entry.queueOffset}: ${[...before, entry.poller].join(' ')}`,
        );
    }
  }
  let maxHandlings = 0;
  for (const by of handlers.values()) maxHandlings = Math.max(maxHandlings, by.length);
  return {
    windows,
    byKilledPoller,
    maxHandlings,
    announcedFor: [...announced].sort(),
    unexplainedExamples,
    unexplained,
    unexplainedQueues: [...unexplainedQueues].sort(),
    maxUnexplainedPerQueueAndWindow: Math.max(0, ...unexplainedPerQueueAndWindow.values()),
  };
}

/**
 * The queues of `topic` (`broker:queueId`) a redelivery warning named, and `poller:*` for a warning
 * that named no queue.
 */
function announcedRedeliveries(
  logs: ReadonlyMap<string, readonly Record<string, unknown>[]>,
  topic: string,
): Set<string> {
  const announced = new Set<string>();
  for (const [poller, lines] of logs) {
    for (const line of lines) {
      const msg = line.msg;
      if (typeof msg !== 'string' || !REDELIVERY_WARNINGS.some((w) => msg.startsWith(w))) continue;
      const queue = line.queue as { topic?: unknown; brokerName?: unknown; queueId?: unknown } | undefined;
      if (queue === undefined) announced.add(`${poller}:*`);
      else if (queue.topic === topic) announced.add(`${String(queue.brokerName)}:${String(queue.queueId)}`);
    }
  }
  return announced;
}

/**
 * Every poller's log lines about `queues` of `topic` (`+<s> <poller> <msg> {fields}`, seconds from
 * `sinceMs`), in time order: the evidence behind an unexplained duplicate.
 *
 * @example
 * ```ts
 * console.info(queueLogLines(logs, topic, ['broker-b:2'], streamStartedAt).join('\n'));
 * ```
 */
export function queueLogLines(
  logs: ReadonlyMap<string, readonly Record<string, unknown>[]>,
  topic: string,
  queues: readonly string[],
  sinceMs: number,
): string[] {
  const found: { time: number; text: string }[] = [];
  for (const [poller, lines] of logs) {
    for (const line of lines) {
      const queue = line.queue as { topic?: unknown; brokerName?: unknown; queueId?: unknown } | undefined;
      const named = queue?.topic === topic && queues.includes(queueNameOf(queue));
      // A rebalance's line lists queue keys (`topic@broker@queueId`) in `added` and `removed`.
      const keys = [line.added, line.removed].flatMap((list) => (Array.isArray(list) ? list : []));
      const listed = keys.some((key) => queues.some((q) => key === `${topic}@${q.replace(':', '@')}`));
      if (!named && !listed) continue;
      const {
        level: _level,
        time,
        pid: _pid,
        msg,
        mapping: _mapping,
        consumerGroup: _group,
        ...fields
      } = line;
      const at = typeof time === 'number' ? time : 0;
      found.push({
        time: at,
        text: `+${((at - sinceMs) / 1000).toFixed(2)} ${poller} ${String(msg)} ${JSON.stringify(fields)}`,
      });
    }
  }
  return found.sort((a, b) => a.time - b.time).map((f) => f.text);
}

function queueNameOf(queue: { brokerName?: unknown; queueId?: unknown } | undefined): string {
  return `${String(queue?.brokerName)}:${String(queue?.queueId)}`;
}

/**
 * The windows as a Markdown table.
 *
 * @example
 * ```ts
 * console.info(formatWindows(attribution.windows));
 * ```
 */
export function formatWindows(windows: readonly DuplicateWindow[]): string {
  const header = [
    'change',
    'at s',
    'members after',
    'handled in window',
    'duplicates',
    'after a SIGKILL',
    'announced',
    'unexplained',
  ];
  const cells = windows.map((w) => [
    w.change,
    w.atS,
    w.membersAfter,
    String(w.handled),
    String(w.duplicates),
    String(w.afterKill),
    String(w.announced),
    String(w.unexplained),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) => `| ${c.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
