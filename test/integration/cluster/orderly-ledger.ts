/**
 * The order checks of an orderly scenario on a cluster, over every poller's handlings merged in handling
 * order (cluster-poller.ts). A queue is `brokerName:queueId` (every broker group has a queue 0).
 *
 * What counts as an order violation, precisely. Per queue, let `next` be one past the highest offset
 * handled so far (the queue's first offset before any handling):
 * - a batch whose offsets are not consecutive (it skips a message or goes back inside itself);
 * - a batch that starts above `next`: it handles a message before an earlier message of its queue was
 *   ever handled (a gap).
 * A batch that starts below `next` is a redelivery: it goes back only over an already-handled prefix
 * (the messages from its first offset up to `next` were all handled before) and, being consecutive,
 * continues from there in order. Its messages count as duplicates, not as violations. Put differently:
 * the first handlings of each queue's messages come in offset order without a gap, and every batch is a
 * consecutive run.
 *
 * Per sharding key (messages carry `shardKey` and a per-key `seq` 0, 1, 2, ... in send order): a key
 * whose messages sit in more than one queue is a routing failure; a first handling of `seq` s before
 * every seq below s of its key was handled is a key violation. Handling an already-handled seq again is a
 * redelivery.
 *
 * Exclusivity: the handler takes `batchMs` per batch after writing its lines, so two batches of one
 * queue by different pollers arriving less than `batchMs` apart ran at the same time, which the broker's
 * queue lock exists to prevent.
 */
import { type ClusterLedgerEntry, queueName } from './cluster-poller.js';

/** How many examples a list of problems quotes. */
const QUOTED = 10;

/** The findings of {@link checkOrder}; each list quotes up to 10 examples, the counts are complete. */
export interface OrderCheck {
  queueViolations: number;
  queueViolationExamples: string[];
  keyViolations: number;
  keyViolationExamples: string[];
  /** Keys whose messages were handled from more than one queue. */
  keysInSeveralQueues: string[];
  /** Batches that started below their queue's `next` (redeliveries of a handled prefix). */
  redeliveredBatches: number;
  /** Pairs of batches of one queue by different pollers that ran at the same time. */
  concurrentBatches: number;
  concurrentBatchExamples: string[];
  /** Handlings per queue (to show the queues of both broker groups were consumed). */
  handledPerQueue: Map<string, number>;
}

/** One batch: consecutive handlings by one poller of one queue with one batch number. */
interface Batch {
  queue: string;
  poller: string;
  atMs: number;
  entries: ClusterLedgerEntry[];
}

/**
 * Checks `entries` (in handling order, see `inHandlingOrder`) against the rules above. `firstOffsets`
 * gives each queue's first offset (0 on a new topic when absent).
 *
 * @example
 * ```ts
 * const check = checkOrder(inHandlingOrder(ledgers), { batchMs: 150 });
 * expect(check.queueViolations).toBe(0);
 * ```
 */
export function checkOrder(
  entries: readonly ClusterLedgerEntry[],
  options: { batchMs: number; firstOffsets?: ReadonlyMap<string, number> },
): OrderCheck {
  const batches = toBatches(entries);
  const check: OrderCheck = {
    queueViolations: 0,
    queueViolationExamples: [],
    keyViolations: 0,
    keyViolationExamples: [],
    keysInSeveralQueues: [],
    redeliveredBatches: 0,
    concurrentBatches: 0,
    concurrentBatchExamples: [],
    handledPerQueue: new Map(),
  };
  const next = new Map<string, number>();
  for (const batch of batches) {
    const offsets = batch.entries.map((e) => e.queueOffset);
    const first = offsets[0] ?? 0;
    const last = offsets.at(-1) ?? first;
    const expected = next.get(batch.queue) ?? options.firstOffsets?.get(batch.queue) ?? 0;
    const what = `${batch.queue} ${batch.poller} batch [${offsets.join(',')}]`;
    if (offsets.some((offset, i) => offset !== first + i)) {
      check.queueViolations++;
      if (check.queueViolationExamples.length < QUOTED)
        check.queueViolationExamples.push(`${what}: not consecutive`);
    } else if (first > expected) {
      check.queueViolations++;
      if (check.queueViolationExamples.length < QUOTED)
        check.queueViolationExamples.push(`${what}: skips from ${expected}`);
    } else if (first < expected) {
      check.redeliveredBatches++;
    }
    next.set(batch.queue, Math.max(expected, last + 1));
    check.handledPerQueue.set(batch.queue, (check.handledPerQueue.get(batch.queue) ?? 0) + offsets.length);
  }

  const lastBatchOf = new Map<string, Batch[]>();
  for (const batch of batches) {
    const recent = (lastBatchOf.get(batch.queue) ?? []).filter((b) => batch.atMs - b.atMs < options.batchMs);
    for (const other of recent) {
      if (other.poller === batch.poller) continue;
      check.concurrentBatches++;
      if (check.concurrentBatchExamples.length < QUOTED)
        check.concurrentBatchExamples.push(
          `${batch.queue}: ${other.poller} at ${other.atMs} and ${batch.poller} at ${batch.atMs}`,
        );
    }
    lastBatchOf.set(batch.queue, [...recent, batch]);
  }

  const keyQueues = new Map<string, Set<string>>();
  const keyHandled = new Map<string, Set<number>>();
  for (const entry of entries) {
    if (entry.shardKey === undefined || entry.seq === undefined) continue;
    const queues = keyQueues.get(entry.shardKey) ?? new Set<string>();
    queues.add(queueName(entry));
    keyQueues.set(entry.shardKey, queues);
    const handled = keyHandled.get(entry.shardKey) ?? new Set<number>();
    if (!handled.has(entry.seq) && handled.size !== entry.seq) {
      // Seqs 0..size-1 were all handled before (first handlings come without a gap so far): a first
      // handling of any other seq skipped one.
      check.keyViolations++;
      if (check.keyViolationExamples.length < QUOTED)
        check.keyViolationExamples.push(
          `${entry.shardKey}: seq ${entry.seq} first handled by ${entry.poller} after ${handled.size} of its key`,
        );
    }
    handled.add(entry.seq);
    keyHandled.set(entry.shardKey, handled);
  }
  for (const [key, queues] of keyQueues)
    if (queues.size > 1) check.keysInSeveralQueues.push(`${key}: ${[...queues].join(' ')}`);
  return check;
}

/** Groups handlings into batches: a poller's lines of one batch number and one queue, in order. */
function toBatches(entries: readonly ClusterLedgerEntry[]): Batch[] {
  const batches: Batch[] = [];
  const open = new Map<string, Batch>();
  for (const entry of entries) {
    const queue = queueName(entry);
    const id = `${entry.poller}#${entry.batch}#${queue}`;
    let batch = open.get(id);
    if (batch === undefined) {
      batch = { queue, poller: entry.poller, atMs: entry.atMs, entries: [] };
      open.set(id, batch);
      batches.push(batch);
    }
    batch.entries.push(entry);
  }
  return batches;
}
