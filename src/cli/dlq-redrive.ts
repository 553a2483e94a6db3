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
} from './dlq-message.js';
import type { DeadLetterQueue } from './dlq-reader.js';

/**
 * What happened to one dead letter.
 *
 * @example
 * ```ts
 * const onEvent = (event: RedriveEvent) => { if (event.kind === 'sent') console.log(event.view.dlqOffset, event.newMsgId); };
 * ```
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
 *
 * @example
 * ```ts
 * const { sent, failed, position } = await redriveQueue(options);
 * ```
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
 *
 * @example
 * ```ts
 * const result = await redriveQueue({ dlq, queue, fromOffset: position ?? minOffset, limit: Infinity,
 *   to: 'retry', fallbackTopic: mapping.topic, position, send: (m) => producer.send(m), onEvent: print });
 * ```
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
