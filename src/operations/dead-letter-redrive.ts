/**
 * The redrive of one DLQ queue: read its dead letters from an offset, send each one (sequentially, in
 * offset order) to the retry topic or the original topic, and move the redrive position over what was
 * sent, after every page, never backwards. The first failed send stops the run, so the position never
 * passes a message that was not sent: the next redrive starts with it.
 */

import type { ProducerMessage } from '../client/producer.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import {
  type DeadLetterView,
  describeDeadLetter,
  type RedriveTarget,
  redriveMessageOf,
} from './dead-letter.js';
import type { DeadLetterQueue } from './dead-letter-queue.js';

/**
 * What happened to one dead letter.
 */
export type RedriveEvent =
  | {
      readonly kind: 'sent';
      readonly view: DeadLetterView;
      readonly topic: string;
      readonly newMsgId: string;
    }
  | { readonly kind: 'would-send'; readonly view: DeadLetterView; readonly topic: string }
  | {
      readonly kind: 'failed';
      readonly view: DeadLetterView;
      readonly topic: string;
      readonly error: unknown;
    }
  | { readonly kind: 'passed'; readonly view: DeadLetterView };

/**
 * Options of {@link redriveQueue}.
 */
export interface RedriveQueueOptions {
  readonly dlq: Pick<DeadLetterQueue, 'consumerGroup' | 'pages' | 'saveRedrivePosition'>;
  readonly queue: MessageQueue;
  readonly fromOffset: number;
  /** Most messages to send (or, with `dryRun`, to list). */
  readonly limit: number;
  /** Only these messages (msgId, the dead letter's offset id or the original's id); the position stays. */
  readonly msgIds?: ReadonlySet<string> | undefined;
  readonly to: RedriveTarget;
  /** The topic of dead letters whose original topic the broker did not record (the mapping's). */
  readonly fallbackTopic: string;
  /** Sends one message; resolves with its new msgId. Never called with `dryRun`. */
  readonly send: (message: ProducerMessage & { topic: string }) => Promise<{ msgId: string }>;
  /** List what would be sent; send nothing, move nothing. */
  readonly dryRun?: boolean | undefined;
  /** The stored redrive position; the saved one never goes below it. */
  readonly position?: number | undefined;
  readonly onEvent: (event: RedriveEvent) => void;
}

/**
 * The outcome of {@link redriveQueue}.
 */
export interface RedriveQueueResult {
  /** Messages sent (or, with `dryRun`, that would be). */
  readonly sent: number;
  /** The message whose send failed (the run stopped there), if any. */
  readonly failed?: { readonly view: DeadLetterView; readonly error: unknown } | undefined;
  /** The redrive position after the run (undefined when none is stored and none was saved). */
  readonly position: number | undefined;
}

/**
 * Redrives one DLQ queue (see the file header).
 */
export async function redriveQueue(options: RedriveQueueOptions): Promise<RedriveQueueResult> {
  const { dlq, queue, msgIds, to, dryRun = false } = options;
  const savePosition = !dryRun && msgIds === undefined;
  const wanted = msgIds === undefined ? undefined : new Set(msgIds);
  let position = options.position;
  let sent = 0;
  let failed: RedriveQueueResult['failed'];
  // With named messages the whole range is scanned for them; otherwise `limit` messages are read.
  const readLimit = wanted === undefined ? options.limit : Number.MAX_SAFE_INTEGER;
  for await (const page of dlq.pages(queue, options.fromOffset, readLimit)) {
    let done: number | undefined;
    for (const message of page.messages) {
      const view = describeDeadLetter(message, dlq.consumerGroup, page.tooLarge.get(message.queueOffset));
      if (wanted !== undefined) {
        const id = [view.msgId, view.offsetMsgId, view.originalMsgId].find(
          (v) => v !== undefined && wanted.has(v),
        );
        if (id === undefined) {
          options.onEvent({ kind: 'passed', view });
          continue;
        }
        wanted.delete(id);
      }
      const redriven = redriveMessageOf(view, to, dlq.consumerGroup, options.fallbackTopic);
      if (dryRun) {
        options.onEvent({ kind: 'would-send', view, topic: redriven.topic });
      } else {
        try {
          const result = await options.send(redriven);
          options.onEvent({ kind: 'sent', view, topic: redriven.topic, newMsgId: result.msgId });
        } catch (error) {
          failed = { view, error };
          options.onEvent({ kind: 'failed', view, topic: redriven.topic, error });
          break;
        }
      }
      sent++;
      done = message.queueOffset + 1;
      if (sent >= options.limit || wanted?.size === 0) break;
    }
    if (savePosition && done !== undefined && (position === undefined || done > position)) {
      await dlq.saveRedrivePosition(queue, done);
      position = done;
    }
    if (failed !== undefined || sent >= options.limit || wanted?.size === 0) break;
  }
  return { sent, failed, position };
}

/** Where the redrive of one DLQ queue starts, and how many dead letters it has from there. */
export interface QueueRedrivePlan {
  readonly queue: MessageQueue;
  readonly from: number;
  /** The stored redrive position (undefined: no redrive ran). */
  readonly position: number | undefined;
  /** Dead letters stored from `from` on. */
  readonly count: number;
}

/**
 * Where the redrive of each DLQ queue starts: `from` when given, else the oldest stored dead letter with
 * `oldest` (named messages are looked for in every stored one), else the redrive position.
 */
export async function planRedrive(
  dlq: Pick<DeadLetterQueue, 'start'>,
  queues: readonly MessageQueue[],
  options: { readonly from?: number | undefined; readonly oldest: boolean },
): Promise<QueueRedrivePlan[]> {
  const plans: QueueRedrivePlan[] = [];
  for (const queue of queues) {
    const { position, minOffset, maxOffset, from } = await dlq.start(queue, options);
    plans.push({ queue, from, position, count: Math.max(0, maxOffset - Math.max(from, minOffset)) });
  }
  return plans;
}

/** Options of {@link redriveDeadLetters}: those of {@link redriveQueue} beyond the queue and its start. */
export type RedriveOptions = Omit<RedriveQueueOptions, 'queue' | 'fromOffset' | 'position'>;

/** The first dead letter whose send failed: the run stopped there. */
export interface RedriveFailure {
  readonly queue: MessageQueue;
  readonly offset: number;
  readonly msgId: string;
  readonly error: unknown;
}

/**
 * Redrives the planned DLQ queues in order, at most `limit` messages in all, stopping at the first send
 * that fails. A read (or a position update) that fails between sends is thrown: the events told the
 * caller how far the run got.
 */
export async function redriveDeadLetters(
  plans: readonly QueueRedrivePlan[],
  options: RedriveOptions,
): Promise<{ sent: number; failure: RedriveFailure | undefined }> {
  let sent = 0;
  let left = options.limit;
  for (const plan of plans) {
    if (left <= 0 || plan.count === 0) continue;
    const result = await redriveQueue({
      ...options,
      queue: plan.queue,
      fromOffset: plan.from,
      limit: left,
      msgIds: options.msgIds === undefined ? undefined : new Set([...options.msgIds]),
      position: plan.position,
    });
    sent += result.sent;
    left -= result.sent;
    if (result.failed !== undefined) {
      const { view, error } = result.failed;
      return { sent, failure: { queue: plan.queue, offset: view.dlqOffset, msgId: view.msgId, error } };
    }
  }
  return { sent, failure: undefined };
}
