/**
 * A steady stream of messages over every queue of a topic spread over several broker groups. The fault
 * suite's stream (test/integration/faults/steady-stream.ts) names queue ids, which a producer resolves on
 * the first broker offering them: on a cluster all of it would land on broker-a. This one lets the
 * producer pick the queue round-robin over the whole route, so every master gets its share.
 */
import type { Producer, ProducerMessage } from '../../../src/client/producer.js';

/** How often the stream wakes up to send what is due. */
const TICK_MS = 10;

/** Options of {@link startClusterStream}. */
export interface ClusterStreamOptions {
  topic: string;
  /** Messages in all; without it the stream runs until {@link ClusterStream.stop}. */
  count?: number;
  /** The target rate; the stream sends what is due at each tick (it catches up after slow sends). */
  messagesPerSecond: number;
  /** Messages per SEND_BATCH_MESSAGE. */
  batchSize: number;
  /** Batches in flight at most (each goes to the next queue of the route). */
  concurrentBatches: number;
  /** Stops the stream early (the test ended); `done` then rejects. */
  signal?: AbortSignal;
}

/** A running stream. */
export interface ClusterStream {
  /** Ids produced so far, in send order. */
  readonly sentIds: readonly string[];
  /** Messages sent so far per broker name. */
  readonly perBroker: ReadonlyMap<string, number>;
  /** Resolves with every id when all `count` messages are sent or once stopped; rejects on a send failure. */
  readonly done: Promise<string[]>;
  /** Ends the stream after the sends in flight; `done` resolves then. */
  stop(): void;
  /** The send failure that ended the stream, once there is one (to fail a scenario early). */
  failure(): unknown;
}

/**
 * Starts streaming messages to `topic` at `messagesPerSecond` (until `count` or `stop()`), in batches spread round-robin
 * over the route's writable queues (all broker groups).
 *
 * @example
 * ```ts
 * const stream = startClusterStream(producer, { topic, messagesPerSecond: 50, batchSize: 10, concurrentBatches: 8 });
 * // ... inject faults ...
 * stream.stop();
 * const sent = await stream.done;
 * ```
 */
export function startClusterStream(producer: Producer, options: ClusterStreamOptions): ClusterStream {
  const sentIds: string[] = [];
  const perBroker = new Map<string, number>();
  const count = options.count ?? Number.POSITIVE_INFINITY;
  let stopped = false;
  const run = async (): Promise<string[]> => {
    const startedAt = Date.now();
    while (!stopped && sentIds.length < count) {
      options.signal?.throwIfAborted();
      const due = Math.min(count, Math.floor(((Date.now() - startedAt) / 1000) * options.messagesPerSecond));
      if (sentIds.length >= due) {
        await new Promise((resolve) => setTimeout(resolve, TICK_MS));
        continue;
      }
      const sends: Promise<{ msgIds: string[]; brokerName: string }>[] = [];
      let planned = sentIds.length;
      while (planned < due && sends.length < options.concurrentBatches) {
        const size = Math.min(options.batchSize, count - planned);
        const messages: ProducerMessage[] = [];
        for (let i = planned; i < planned + size; i++) {
          messages.push({ topic: options.topic, body: `cluster-stream ${i}` });
        }
        sends.push(producer.sendBatch(messages));
        planned += size;
      }
      for (const result of await Promise.all(sends)) {
        sentIds.push(...result.msgIds);
        perBroker.set(result.brokerName, (perBroker.get(result.brokerName) ?? 0) + result.msgIds.length);
      }
    }
    return sentIds;
  };
  const done = run();
  let failure: unknown;
  // Handled here so that a failure before the scenario awaits `done` is kept, not reported as unhandled.
  done.catch((error: unknown) => {
    failure = error ?? new Error('the stream failed');
  });
  return {
    sentIds,
    perBroker,
    done,
    failure: () => failure,
    stop() {
      stopped = true;
    },
  };
}
