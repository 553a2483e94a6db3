/**
 * A {@link MessageListener} that writes RocketMQ consume trace records around another one: a `SubBefore`
 * per message when a batch is handed over, a `SubAfter` per message with its outcome when the batch's
 * result is known. Every consume mode calls its listener the same way, so wrapping the listener traces
 * them all. The records go to a {@link MessageTraceWriter}, which never blocks or fails the batch.
 *
 * Outcomes (the `SubAfter` success flag and Java's `ConsumeReturnType`):
 * - a message that succeeded (filtered-out ones too): `true`, SUCCESS;
 * - a message the result lists as failed (or the whole batch on FAILED): `false`, FAILED;
 * - the listener threw (e.g. the function does not exist): `false`, EXCEPTION;
 * - the batch was aborted by shutdown before it ended: `false`, TIME_OUT.
 * In orderly mode the messages after the first failure (dead letters excepted) count as failed too,
 * since they are consumed again.
 */
import type { MessageExt } from '../../protocol/message.js';
import { MessageConst } from '../../protocol/message.js';
import { createUniqueId } from '../../protocol/message-id.js';
import {
  ConsumeReturnType,
  type ConsumeReturnTypeCode,
  DEFAULT_TRACE_REGION,
  type EncodedTraceRecord,
  encodeSubAfter,
  encodeSubBefore,
} from '../../protocol/message-trace.js';
import type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  FinalFailureCause,
  MessageListener,
} from '../message-listener.js';
import type { MessageTraceWriter } from './message-trace-writer.js';

/** Wraps `inner`, tracing each batch to `writer`. */
export class TracingMessageListener implements MessageListener {
  readonly #inner: MessageListener;
  readonly #writer: Pick<MessageTraceWriter, 'append'>;
  readonly #now: () => number;

  constructor(
    inner: MessageListener,
    writer: Pick<MessageTraceWriter, 'append'>,
    now: () => number = Date.now,
  ) {
    this.#inner = inner;
    this.#writer = writer;
    this.#now = now;
  }

  async consume(messages: readonly ConsumedMessage[], context: ConsumeContext): Promise<ConsumeResult> {
    // The consumer may empty `messages` once the result is applied (message-listener.ts): keep what the
    // SubAfter records need now.
    const traced = tracedMessages(messages);
    const group = context.consumerGroup;
    const requestId = createUniqueId();
    const beginMs = this.#now();
    if (traced.length > 0) {
      this.#writer.append(
        traced.map(({ message }) =>
          encodeSubBefore({
            beginMs,
            regionId: message.properties[MessageConst.MSG_REGION] || DEFAULT_TRACE_REGION,
            group,
            requestId,
            msgId: message.msgId,
            reconsumeTimes: message.reconsumeTimes,
            keys: keysOf(message),
          }),
        ),
      );
    }
    let result: ConsumeResult;
    try {
      result = await this.#inner.consume(messages, context);
    } catch (error) {
      this.#after(traced, messages.length, requestId, beginMs, group, () => [
        false,
        ConsumeReturnType.EXCEPTION,
      ]);
      throw error;
    }
    const failed = failedIndexes(result, messages.length, context.orderly);
    const aborted = context.signal.aborted;
    this.#after(traced, messages.length, requestId, beginMs, group, (index) => {
      if (!failed.has(index)) return [true, ConsumeReturnType.SUCCESS];
      return [false, aborted ? ConsumeReturnType.TIME_OUT : ConsumeReturnType.FAILED];
    });
    return result;
  }

  notifyFinalFailure(
    messages: readonly ConsumedMessage[],
    reason: string,
    cause?: FinalFailureCause,
  ): Promise<void> {
    return this.#inner.notifyFinalFailure?.(messages, reason, cause) ?? Promise.resolve();
  }

  #after(
    traced: readonly TracedMessage[],
    batchSize: number,
    requestId: string,
    beginMs: number,
    group: string,
    outcome: (index: number) => readonly [boolean, ConsumeReturnTypeCode],
  ): void {
    if (traced.length === 0) return;
    const endMs = this.#now();
    // As Apache's clients: the batch's time shared out over its messages.
    const costMs = (endMs - beginMs) / Math.max(1, batchSize);
    const records: EncodedTraceRecord[] = traced.map(({ index, message }) => {
      const [success, returnType] = outcome(index);
      return encodeSubAfter({
        requestId,
        msgId: message.msgId,
        costMs,
        success,
        keys: keysOf(message),
        returnType,
        endMs,
        group,
      });
    });
    this.#writer.append(records);
  }
}

interface TracedMessage {
  readonly index: number;
  readonly message: MessageExt;
}

/** The batch's messages to trace: all but those whose producer turned tracing off (`TRACE_ON=false`). */
function tracedMessages(messages: readonly ConsumedMessage[]): TracedMessage[] {
  const out: TracedMessage[] = [];
  for (const [index, { message }] of messages.entries()) {
    if (message.properties[MessageConst.TRACE_ON] === 'false') continue;
    out.push({ index, message });
  }
  return out;
}

/** The KEYS property as stored, `undefined` when absent or empty. */
function keysOf(message: MessageExt): string | undefined {
  const keys = message.properties[MessageConst.KEYS];
  return keys === undefined || keys === '' ? undefined : keys;
}

/** The indexes the result leaves unconsumed or failed (see the file's comment for orderly mode). */
function failedIndexes(result: ConsumeResult, size: number, orderly: boolean): Set<number> {
  if (result.status === 'SUCCESS') return new Set();
  if (result.status === 'FAILED') return new Set(Array.from({ length: size }, (_, i) => i));
  const failed = new Set(result.failedIndexes);
  if (orderly) {
    const deadLettered = new Set(result.deadLetter?.map((entry) => entry.index));
    const firstRetried = [...failed].filter((i) => !deadLettered.has(i)).sort((a, b) => a - b)[0];
    if (firstRetried !== undefined) for (let i = firstRetried; i < size; i++) failed.add(i);
  }
  return failed;
}
