/**
 * A {@link MessageListener} around a mapping's listener (wrapped in through PollerOptions.wrapListener)
 * that settles the outcome of every record of a batch once the listener answered: succeeded, retried
 * (failed: the consumer sends it back), dead-lettered (the listener's `deadLetter` entries, and what the
 * consumer reports through `notifyFinalFailure` once the retry limit sent it to `%DLQ%<group>`), or
 * filtered (succeeded without an invoke: the mapping's filters dropped it, src/invoke/function-listener.ts).
 */
import type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  FinalFailureCause,
  MessageListener,
} from '../../consumer/message-listener.js';
import type { InvocationRecorder } from './invocation-recorder.js';
import type { RecordOutcome } from './recorded-invocation.js';
import type { BatchRecording, RecordingInvoker } from './recording-invoker.js';

/**
 * Records one mapping's batches.
 */
export class RecordingListener implements MessageListener {
  readonly #inner: MessageListener;
  readonly #invoker: RecordingInvoker;
  readonly #recorder: InvocationRecorder;
  readonly #mappingId: string;
  readonly #functionName: string;

  constructor(options: {
    inner: MessageListener;
    invoker: RecordingInvoker;
    recorder: InvocationRecorder;
    mappingId: string;
    functionName: string;
  }) {
    this.#inner = options.inner;
    this.#invoker = options.invoker;
    this.#recorder = options.recorder;
    this.#mappingId = options.mappingId;
    this.#functionName = options.functionName;
  }

  async consume(messages: readonly ConsumedMessage[], context: ConsumeContext): Promise<ConsumeResult> {
    // The consumer empties `messages` once it applied the result (message-listener.ts): keep a copy.
    const batch = [...messages];
    const recording: BatchRecording = {
      mappingId: this.#mappingId,
      functionName: this.#functionName,
      invocations: [],
    };
    let result: ConsumeResult | undefined;
    try {
      result = await this.#invoker.runBatch(recording, () => this.#inner.consume(messages, context));
      return result;
    } finally {
      this.#settle(batch, recording, result, context.orderly);
    }
  }

  notifyFinalFailure(
    messages: readonly ConsumedMessage[],
    reason: string,
    cause?: FinalFailureCause,
  ): Promise<void> {
    this.#recorder.deadLettered(messages.map((consumed) => consumed.message.msgId));
    return this.#inner.notifyFinalFailure?.(messages, reason, cause) ?? Promise.resolve();
  }

  #settle(
    batch: readonly ConsumedMessage[],
    recording: BatchRecording,
    result: ConsumeResult | undefined,
    orderly: boolean,
  ): void {
    const outcomes = batchOutcomes(batch.length, result, orderly);
    const byId = new Map<string, RecordOutcome>();
    batch.forEach((consumed, index) => {
      const outcome = outcomes[index] ?? 'pending';
      const known = byId.get(consumed.message.msgId);
      // A message and its redelivery in one batch: a failure of either is what happens to it.
      if (known === undefined || known === 'succeeded') byId.set(consumed.message.msgId, outcome);
    });
    this.#recorder.settle(recording.invocations, (messageId) => byId.get(messageId));
    const invoked = new Set(recording.invocations.flatMap((invocation) => invocation.messageIds));
    let filteredLeft = result?.filteredOut ?? 0;
    const ended: string[] = [];
    batch.forEach((consumed, index) => {
      const id = consumed.message.msgId;
      if (invoked.has(id)) return;
      if (outcomes[index] === 'succeeded' && filteredLeft > 0) {
        filteredLeft--;
        const { message, queue } = consumed;
        this.#recorder.filtered({
          mappingId: this.#mappingId,
          messageId: id,
          keys: message.keys,
          tags: message.tags,
          topic: consumed.topic,
          broker: queue.brokerName,
          queueId: message.queueId,
          queueOffset: message.queueOffset,
          reconsumeTimes: message.reconsumeTimes,
          body: message.body,
        });
      } else if (outcomes[index] === 'dead-lettered') {
        ended.push(id);
      }
    });
    this.#recorder.ended(ended, 'dead-lettered');
  }
}

/**
 * The outcome of each message of a batch from the listener's result: the `deadLetter` indexes are
 * dead-lettered, failed ones retried (in orderly mode everything from the first failed index on that is
 * not dead-lettered), the rest succeeded; no result (the listener threw): failed, retried.
 */
export function batchOutcomes(
  size: number,
  result: ConsumeResult | undefined,
  orderly: boolean,
): RecordOutcome[] {
  const outcomes: RecordOutcome[] = new Array(size).fill('succeeded');
  if (result === undefined) return outcomes.fill('retried');
  if (result.status === 'SUCCESS') return outcomes;
  const deadLetter = new Set((result.deadLetter ?? []).map((entry) => entry.index));
  const failed =
    result.status === 'FAILED'
      ? outcomes.map((_, index) => index)
      : orderly
        ? orderlyTail(size, result.failedIndexes, deadLetter)
        : result.failedIndexes;
  for (const index of failed) outcomes[index] = deadLetter.has(index) ? 'dead-lettered' : 'retried';
  for (const index of deadLetter) outcomes[index] = 'dead-lettered';
  return outcomes;
}

/** Orderly: the dead-lettered failures, and everything from the first other failure on (retried). */
function orderlyTail(
  size: number,
  failedIndexes: readonly number[],
  deadLetter: ReadonlySet<number>,
): number[] {
  const first = failedIndexes.find((index) => !deadLetter.has(index)) ?? size;
  return [...deadLetter, ...Array.from({ length: Math.max(0, size - first) }, (_, i) => first + i)];
}
