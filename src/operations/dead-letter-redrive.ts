/**
 * The redrive of one DLQ queue: read its dead letters from an offset, send each one (sequentially, in
 * offset order) to the retry topic or the original topic, and move the redrive position past each message
 * as soon as the broker accepted it, never backwards. The first failed send stops the run, so the position
 * never passes a message that was not sent: the next redrive starts with it.
 *
 * Why nothing is sent twice after an interruption, whatever stops the run:
 * - SIGINT/SIGTERM (the caller aborts `signal`): the send in flight is finished and the position saved
 *   past it before the run returns, so the next run starts exactly after the last message sent.
 * - SIGKILL, a crash or a lost connection can fall between a send and the save of the position (one
 *   UPDATE_CONSUMER_OFFSET round trip; the broker keeps it in memory at once and flushes it to disk every
 *   few seconds). Saving the position BEFORE a send would lose the message instead; no order of two writes
 *   to two places is atomic. So the position is saved after the send, and the only message whose fate is
 *   unknown to the next run is the one AT the stored position. The next run looks for that one message in
 *   the topic it is sent to: every redriven message is marked with its dead letter (redriven-copy.ts), and
 *   when the mark is found the message is counted as already sent and the position moves past it without
 *   a send. Only that first message is looked for; every later one is known not to be sent.
 * - A position that was never stored means nothing was ever sent: the position is saved at the first
 *   message before its send (a write of "start here", which loses nothing).
 * A redrive with --msg-id (or a dry run) moves no position and looks for nothing; one with --from looks
 * only when it starts at the stored position.
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
import { REDRIVEN_FROM_PROPERTY, redrivenFromValue } from './redriven-copy.js';

/**
 * What happened to one dead letter.
 */
export type RedriveEvent = RedriveEventKind & {
  /** The DLQ queue of the dead letter. */
  readonly queue: MessageQueue;
};

/** The kinds of {@link RedriveEvent}. */
export type RedriveEventKind =
  | {
      readonly kind: 'sent';
      readonly view: DeadLetterView;
      readonly topic: string;
      readonly newMsgId: string;
    }
  | {
      /** An interrupted run had sent it (found in `topic` as `newMsgId`); not sent again. */
      readonly kind: 'already-sent';
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
 * Looks for the copy of the dead letter at `offset` of `queue` in `topic` (redriven-copy.ts); resolves
 * with its msgId, or undefined when it was not sent.
 */
export type FindRedrivenCopy = (
  topic: string,
  queue: MessageQueue,
  offset: number,
  deadLetteredAt: number,
) => Promise<{ readonly msgId: string } | undefined>;

/**
 * Options of {@link redriveQueue}.
 */
export interface RedriveQueueOptions {
  readonly dlq: Pick<DeadLetterQueue, 'consumerGroup' | 'pages' | 'saveRedrivePosition'>;
  readonly queue: MessageQueue;
  readonly fromOffset: number;
  /** Most messages to send (or, with `dryRun`, to list); those found already sent count too. */
  readonly limit: number;
  /** Only these messages (msgId, the dead letter's offset id or the original's id); the position stays. */
  readonly msgIds?: ReadonlySet<string> | undefined;
  readonly to: RedriveTarget;
  /** The topic of dead letters whose original topic the broker did not record (the mapping's). */
  readonly fallbackTopic: string;
  /** Sends one message; resolves with its new msgId. Never called with `dryRun`. */
  readonly send: (message: ProducerMessage & { topic: string }) => Promise<{ msgId: string }>;
  /**
   * Tells whether the message at the stored position was sent by a run that could not save past it (see
   * the file header). Without it nothing is looked for (then a run killed between a send and its save
   * sends that one message again).
   */
  readonly findCopy?: FindRedrivenCopy | undefined;
  /** Aborted: stop before the next send (the one in flight is finished and the position saved). */
  readonly signal?: AbortSignal | undefined;
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
  /** Messages an interrupted run had sent, found in the target and passed over. */
  readonly alreadySent: number;
  /** The message whose send failed (the run stopped there), if any. */
  readonly failed?: { readonly view: DeadLetterView; readonly error: unknown } | undefined;
  /** Set when `signal` stopped the run: the DLQ offset of the next message to send. */
  readonly stoppedAt?: number | undefined;
  /** The redrive position after the run (undefined when none is stored and none was saved). */
  readonly position: number | undefined;
}

/**
 * Redrives one DLQ queue (see the file header).
 */
export async function redriveQueue(options: RedriveQueueOptions): Promise<RedriveQueueResult> {
  const { dlq, queue, msgIds, to, dryRun = false, signal } = options;
  const savePosition = !dryRun && msgIds === undefined;
  const wanted = msgIds === undefined ? undefined : new Set(msgIds);
  let position = options.position;
  let sent = 0;
  let alreadySent = 0;
  let first = true;
  let failed: RedriveQueueResult['failed'];
  let stoppedAt: number | undefined;
  const save = async (offset: number): Promise<void> => {
    if (!savePosition || (position !== undefined && offset <= position)) return;
    await dlq.saveRedrivePosition(queue, offset);
    position = offset;
  };
  const done = (): boolean =>
    failed !== undefined ||
    stoppedAt !== undefined ||
    sent + alreadySent >= options.limit ||
    wanted?.size === 0;
  // With named messages the whole range is scanned for them; otherwise `limit` messages are read.
  const readLimit = wanted === undefined ? options.limit : Number.MAX_SAFE_INTEGER;
  for await (const page of dlq.pages(queue, options.fromOffset, readLimit)) {
    for (const message of page.messages) {
      const view = describeDeadLetter(message, dlq.consumerGroup, page.tooLarge.get(message.queueOffset));
      const atPosition = first && savePosition && position === message.queueOffset;
      first = false;
      if (wanted !== undefined) {
        const id = [view.msgId, view.offsetMsgId, view.originalMsgId].find(
          (v) => v !== undefined && wanted.has(v),
        );
        if (id === undefined) {
          options.onEvent({ queue, kind: 'passed', view });
          continue;
        }
        wanted.delete(id);
      }
      const base = redriveMessageOf(view, to, dlq.consumerGroup, options.fallbackTopic);
      const redriven = {
        ...base,
        properties: {
          ...base.properties,
          [REDRIVEN_FROM_PROPERTY]: redrivenFromValue(queue, message.queueOffset),
        },
      };
      if (dryRun) {
        options.onEvent({ queue, kind: 'would-send', view, topic: redriven.topic });
        sent++;
      } else {
        if (signal?.aborted === true) {
          stoppedAt = message.queueOffset;
          break;
        }
        const copy =
          atPosition && options.findCopy !== undefined
            ? await options.findCopy(redriven.topic, queue, message.queueOffset, view.storeTimestamp)
            : undefined;
        if (copy !== undefined) {
          options.onEvent({ queue, kind: 'already-sent', view, topic: redriven.topic, newMsgId: copy.msgId });
          alreadySent++;
        } else {
          // A position never stored says "nothing sent": store where this run starts before it sends.
          if (position === undefined) await save(message.queueOffset);
          try {
            const result = await options.send(redriven);
            options.onEvent({ queue, kind: 'sent', view, topic: redriven.topic, newMsgId: result.msgId });
          } catch (error) {
            failed = { view, error };
            options.onEvent({ queue, kind: 'failed', view, topic: redriven.topic, error });
            break;
          }
          sent++;
        }
        await save(message.queueOffset + 1);
      }
      if (done()) break;
    }
    if (done()) break;
  }
  return { sent, alreadySent, failed, stoppedAt, position };
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

/** The outcome of {@link redriveDeadLetters}. */
export interface RedriveResult {
  /** Messages sent (or, with `dryRun`, that would be). */
  readonly sent: number;
  /** Messages an interrupted run had sent, found in the target and passed over (not sent again). */
  readonly alreadySent: number;
  readonly failure: RedriveFailure | undefined;
  /** Set when the signal stopped the run: the next message to send. */
  readonly stoppedAt?: { readonly queue: MessageQueue; readonly offset: number } | undefined;
  /** The redrive position of every planned queue after the run (undefined: none stored). */
  readonly positions: readonly { readonly queue: MessageQueue; readonly position: number | undefined }[];
}

/**
 * Redrives the planned DLQ queues in order, at most `limit` messages in all, stopping at the first send
 * that fails or when `signal` is aborted. A read (or a position update) that fails between sends is
 * thrown: the events told the caller how far the run got.
 */
export async function redriveDeadLetters(
  plans: readonly QueueRedrivePlan[],
  options: RedriveOptions,
): Promise<RedriveResult> {
  let sent = 0;
  let alreadySent = 0;
  let left = options.limit;
  const positions = plans.map((plan) => ({ queue: plan.queue, position: plan.position }));
  const result = (
    failure: RedriveFailure | undefined,
    stoppedAt?: RedriveResult['stoppedAt'],
  ): RedriveResult => ({ sent, alreadySent, failure, stoppedAt, positions });
  for (const [index, plan] of plans.entries()) {
    if (left <= 0 || plan.count === 0) continue;
    if (options.signal?.aborted === true && !options.dryRun) {
      return result(undefined, { queue: plan.queue, offset: plan.from });
    }
    const queueResult = await redriveQueue({
      ...options,
      queue: plan.queue,
      fromOffset: plan.from,
      limit: left,
      msgIds: options.msgIds === undefined ? undefined : new Set([...options.msgIds]),
      position: plan.position,
    });
    positions[index] = { queue: plan.queue, position: queueResult.position };
    sent += queueResult.sent;
    alreadySent += queueResult.alreadySent;
    left -= queueResult.sent + queueResult.alreadySent;
    if (queueResult.failed !== undefined) {
      const { view, error } = queueResult.failed;
      return result({ queue: plan.queue, offset: view.dlqOffset, msgId: view.msgId, error });
    }
    if (queueResult.stoppedAt !== undefined) {
      return result(undefined, { queue: plan.queue, offset: queueResult.stoppedAt });
    }
  }
  return result(undefined);
}
