/**
 * Where a mapping's consumption stands, queue by queue, in one model for both consume modes: the
 * broker's min/max offsets, where consumption resumes, the lag from there (as the pollers measure it,
 * metrics/queue-lag.ts) and the store time of the oldest message not consumed.
 *
 * What differs is only where the position is kept. PUSH: the offset store's committed record (offset,
 * generation, holder, released, last write); without one, where the mapping starts the queue. POP: the
 * group's consumer offset at each queue's master, which the broker moves when messages are popped
 * (docs/protocol.md, POP consumption); no poller holds a queue, and the brokers know the group's pollers.
 *
 * Readers report failures instead of throwing them (`brokerError`, `storeError`), with whatever could be
 * read: push-queue-positions.ts and pop-queue-positions.ts fill this model, queue-positions.ts picks one.
 */
import type { QueueReader } from '../client/queue-reader.js';
import type { StoredOffsetRecord } from '../offsets/offset-store.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { describeError } from '../util/describe-error.js';
import type { BrokerProblem, BrokerProblemKind } from './broker-problem.js';
import type { TargetMapping } from './target.js';

/** One queue of a mapping. */
export interface QueuePosition {
  readonly queue: MessageQueue;
  /**
   * A retry queue: PUSH, the group's `%RETRY%<group>` (messages sent back for a later attempt); POP, the
   * group's POP retry topic (failed messages waiting for their next delivery). Backlog all the same.
   */
  readonly retry?: boolean | undefined;
  /** The smallest offset the broker still stores (undefined when the broker could not be asked). */
  readonly minOffset: number | undefined;
  /** The offset the queue's next message gets. */
  readonly maxOffset: number | undefined;
  /** PUSH: the store's record (undefined: nothing committed yet). */
  readonly committed?: StoredOffsetRecord | undefined;
  /**
   * POP: the group's consumer offset at the queue's master (QUERY_CONSUMER_OFFSET), where the next pop
   * starts; undefined when the broker keeps none (the group never popped the queue) or could not be asked.
   */
  readonly consumerOffset?: number | undefined;
  /**
   * Where consumption resumes: the committed (PUSH) or consumer (POP) offset, else where the queue is
   * started (TRIM_HORIZON: the min offset; LATEST: the max offset; AT_TIMESTAMP: unknown, the broker decides).
   */
  readonly resumeOffset: number | undefined;
  /** Messages from `resumeOffset` to the max offset (undefined when either is unknown). */
  readonly lag: number | undefined;
  /** The store time of the message at `resumeOffset` when lag > 0 (its age is the oldest not consumed). */
  readonly oldestUnconsumedAtMs: number | undefined;
}

/** A mapping's queues, and what could not be read. */
export interface MappingPositions {
  readonly mapping: TargetMapping;
  readonly queues: readonly QueuePosition[];
  /** POP: the group's pollers the brokers know (0: none runs; undefined: no broker answered). */
  readonly pollers?: number | undefined;
  /** Why the name server or a broker could not be asked (undefined: all answered). */
  readonly brokerError: string | undefined;
  /** What kind of problem `brokerError` is (broker-problem.ts); undefined when only its text is known. */
  readonly brokerErrorKind?: BrokerProblemKind | undefined;
  /** PUSH: why the offset store could not be read (undefined: it answered). */
  readonly storeError?: string | undefined;
}

/** What a reader reads beyond offsets. */
export interface ReadPositionsOptions {
  /** Read the message at the resume offset of lagging queues (its age). @default true */
  readonly messageAges?: boolean | undefined;
  /**
   * PUSH: also read the group's `%RETRY%<group>` queues (clustering mappings): a stuck retry queue is as
   * much a backlog as a stuck topic queue. Not for resets, which move the topic's offsets only (as
   * mqadmin's resetOffsetByTime). POP reads its retry queues always. @default false
   */
  readonly retryQueues?: boolean | undefined;
}

/** How operations name a queue in messages: `Orders#broker-a:0`. */
export function queueLabel(queue: MessageQueue): string {
  return `${queue.topic}#${queue.brokerName}:${queue.queueId}`;
}

/**
 * The store time of the oldest message not yet consumed on `queue`: the one at `from`, or at the min
 * offset when `from` is below it (older ones are gone). A failed read is `error`, a line naming the queue.
 */
export async function oldestUnconsumedAt(
  reader: Pick<QueueReader, 'readAt'>,
  queue: MessageQueue,
  from: number,
  minOffset: number | undefined,
): Promise<{ atMs?: number | undefined; error?: string }> {
  const at = Math.max(from, minOffset ?? from);
  try {
    return { atMs: (await reader.readAt(queue, at))?.storeTimestamp };
  } catch (error) {
    return { error: `${queueLabel(queue)}: reading the message at offset ${at}: ${describeError(error)}` };
  }
}

/**
 * The first broker problem of a read, kept as the text and kind {@link MappingPositions} carries: later
 * ones are usually the same failure seen from another queue.
 */
export class FirstBrokerProblem {
  #problem: { message: string; kind: BrokerProblemKind | undefined } | undefined;

  /** Keeps `problem` unless one is kept already. */
  note(problem: BrokerProblem): void {
    this.#problem ??= problem;
  }

  /** Keeps a problem known only as text (its kind unknown), unless one is kept already. */
  noteText(message: string | undefined): void {
    if (message !== undefined) this.#problem ??= { message, kind: undefined };
  }

  /** `brokerError` and `brokerErrorKind` of the result. */
  fields(): Pick<MappingPositions, 'brokerError' | 'brokerErrorKind'> {
    return { brokerError: this.#problem?.message, brokerErrorKind: this.#problem?.kind };
  }
}
