/**
 * A producer that streams messages at a steady rate over a topic's queues, so that faults can be
 * injected while messages keep arriving (as in production), not against a backlog produced up front.
 */
import type { Producer, ProducerMessage } from '../../../src/client/producer.js';

/** Messages per send: small batches keep the rate smooth. */
const DEFAULT_BATCH_SIZE = 20;
/** How often the stream wakes up to send what is due. */
const TICK_MS = 10;

/** Options of {@link startSteadyStream}. */
export interface SteadyStreamOptions {
  topic: string;
  /** Messages in all. */
  count: number;
  /** Batches go to queues 0..queues-1 in turn. */
  queues: number;
  /** The target rate; the stream sends what is due at each tick (it catches up after slow sends). */
  messagesPerSecond: number;
  /** @default 20 */
  batchSize?: number;
  /** Stops the stream early (the test ended); `done` then rejects. */
  signal?: AbortSignal;
  /** Extra fields of message `i` (tags, keys, properties). */
  message?: (i: number) => Partial<ProducerMessage>;
}

/** A running stream. */
export interface SteadyStream {
  /** Ids produced so far, in send order. */
  readonly sentIds: readonly string[];
  /** Resolves with every id when all `count` messages are sent; rejects on a send failure. */
  readonly done: Promise<string[]>;
  /** Resolves once at least `n` messages are sent (at once if already). */
  sent(n: number): Promise<void>;
}

/**
 * Starts streaming `count` messages to `topic` at `messagesPerSecond`.
 *
 * @example
 * ```ts
 * const stream = startSteadyStream(producer, { topic, count: 20_000, queues: 8, messagesPerSecond: 1500 });
 * await stream.sent(5000); // a quarter through: inject the fault now
 * const sentIds = await stream.done;
 * ```
 */
export function startSteadyStream(producer: Producer, options: SteadyStreamOptions): SteadyStream {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const sentIds: string[] = [];
  const waiters: { n: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let failure: { error: unknown } | undefined;
  const wake = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const waiter = waiters[i];
      if (waiter !== undefined && sentIds.length >= waiter.n) {
        waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  };
  const run = async (): Promise<string[]> => {
    const startedAt = Date.now();
    let batchIndex = 0;
    while (sentIds.length < options.count) {
      options.signal?.throwIfAborted();
      const due = Math.min(
        options.count,
        Math.floor(((Date.now() - startedAt) / 1000) * options.messagesPerSecond),
      );
      if (sentIds.length >= due) {
        await new Promise((resolve) => setTimeout(resolve, TICK_MS));
        continue;
      }
      // What is due goes out in up to one batch per queue at once (a queue's batches stay in
      // order): one send at a time cannot keep the rate on a loaded machine.
      const sends: Promise<{ msgIds: string[] }>[] = [];
      let planned = sentIds.length;
      while (planned < due && sends.length < options.queues) {
        const size = Math.min(batchSize, options.count - planned);
        const messages: ProducerMessage[] = [];
        for (let i = planned; i < planned + size; i++) {
          messages.push({ topic: options.topic, body: `fault-stream ${i}`, ...options.message?.(i) });
        }
        sends.push(producer.sendBatch(messages, { queueId: batchIndex % options.queues }));
        batchIndex++;
        planned += size;
      }
      for (const result of await Promise.all(sends)) sentIds.push(...result.msgIds);
      wake();
    }
    return sentIds;
  };
  const done = run();
  // Waiters must not hang when the stream fails: they fail with it (the test awaits `done` too).
  done.catch((error: unknown) => {
    failure = { error };
    for (const waiter of waiters.splice(0)) waiter.reject(error);
  });
  return {
    sentIds,
    done,
    sent(n) {
      if (sentIds.length >= n) return Promise.resolve();
      if (failure !== undefined) return Promise.reject(failure.error);
      return new Promise<void>((resolve, reject) => {
        waiters.push({ n, resolve, reject });
      });
    },
  };
}
