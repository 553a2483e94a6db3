/**
 * Concurrent consumption (Java `ConsumeMessageConcurrentlyService`; docs/architecture.md): batches across
 * the mapping's queues by count, bytes and time, at most `maxConcurrency` batches in flight, the result
 * applied per message. Succeeded messages leave their ProcessQueue and the offset moves (increase-only);
 * failed ones go back to the broker (CONSUMER_SEND_MSG_BACK) or, if that fails, are consumed again
 * locally after `localRetryDelayMs` with `reconsumeTimes + 1`, staying in the ProcessQueue so the offset
 * cannot pass them. Messages the result dead-letters (`deadLetter`) are handed straight to
 * `%DLQ%<group>` (delay level −1, no retry counted); if that hand-off fails it is tried again after
 * `localRetryDelayMs` (not consumed again) and the offset waits for it. Failed messages sent back at
 * `reconsumeTimes >= maxReconsumeTimes` (the broker moves them to the DLQ) are reported to the
 * listener's `notifyFinalFailure`. Broadcasting logs and drops failures, as RocketMQ does.
 */

import { bodyLengthOf } from '../../../protocol/decoded-message.js';
import type { MessageExt } from '../../../protocol/message.js';
import type { MessageQueue } from '../../../protocol/message-queue.js';
import { errorMessage } from '../../../util/error-message.js';
import { forEachConcurrently } from '../../../util/for-each-concurrently.js';
import type { Logger } from '../../../util/logger.js';
import { settlesWithin } from '../../../util/settles-within.js';
import { isFatalListenerError } from '../../consumer-errors.js';
import type { ConsumedMessage, ConsumeResult } from '../../message-listener.js';
import type { ProcessQueue } from '../../pull/process-queue.js';
import { classifyResult, type DeadLetterVerdict } from '../classify-result.js';
import { type ConsumeService, type ConsumeServiceContext, realTopicOf } from '../consume-service.js';
import { notifyFinalFailure } from '../final-failure.js';
import { type DeadLetterEntryOf, DeadLetterHandOff } from './dead-letter-hand-off.js';
import { MessageBatcher } from './message-batcher.js';

/** Delay level Java uses when it sends back an expired message. */
export const EXPIRED_MESSAGE_DELAY_LEVEL = 3;
/** At most this many expired messages per queue per scan (Java `cleanExpiredMsg`). */
export const EXPIRED_MESSAGES_PER_SCAN = 16;
/** Expired-message scans run at least this often (Java scans every consumeTimeout). */
export const EXPIRY_SCAN_MAX_INTERVAL_MS = 60_000;
/** Send-back calls in parallel per batch. */
export const SEND_BACK_PARALLELISM = 16;

/**
 * A submitted message: what the batcher holds and, once its batch is dispatched, the view the listener
 * gets of it (one object per message from submit to commit; a buffered message lives long enough to be
 * copied by the young-generation collector, so each object per message counts). Its process queue is
 * private: a listener that logs or serializes its messages sees only the ConsumedMessage fields
 * (message, queue, topic).
 */
class Item implements ConsumedMessage {
  readonly message: MessageExt;
  readonly queue: MessageQueue;
  /** The message's real topic (realTopicOf): the listener's view, and where a send-back names it. */
  readonly topic: string;
  readonly #bytes: number;
  readonly #processQueue: ProcessQueue;

  constructor(message: MessageExt, processQueue: ProcessQueue, retryTopic: string) {
    this.message = message;
    this.queue = processQueue.messageQueue;
    this.topic = realTopicOf(message, retryTopic);
    this.#bytes = bodyLengthOf(message);
    this.#processQueue = processQueue;
  }

  /** The body's bytes, as the batcher counts them. */
  get bytes(): number {
    return this.#bytes;
  }

  get processQueue(): ProcessQueue {
    return this.#processQueue;
  }
}

interface InFlight {
  aborted: boolean;
  done: Promise<void>;
}

/**
 * The concurrent {@link ConsumeService}.
 */
export class ConsumeConcurrentlyService implements ConsumeService {
  readonly mode = 'CONCURRENTLY' as const;
  readonly queueHooks = undefined;
  private readonly context: ConsumeServiceContext;
  private readonly log: Logger;
  private readonly batcher: MessageBatcher<Item>;
  private readonly inFlight = new Set<InFlight>();
  /**
   * Aborted once, when shutdown gives up on the batches still in flight: every batch's listener gets
   * this one signal (a controller per batch cost an AbortSignal per batch on the hot path).
   */
  private readonly shutdown = new AbortController();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private expiryTimer: NodeJS.Timeout | undefined;
  private expiryScan: Promise<void> | undefined;
  private readonly deadLetters: DeadLetterHandOff<Item>;
  private readonly clustering: boolean;
  private stopping = false;
  private halted = false;

  constructor(context: ConsumeServiceContext) {
    this.context = context;
    this.log = context.log;
    this.clustering = context.options.messageModel === 'CLUSTERING';
    const { options } = context;
    this.batcher = new MessageBatcher<Item>({
      batchSize: options.batchSize,
      maxBatchBytes: options.maxBatchBytes,
      windowMs: options.maximumBatchingWindowMs,
      onReady: () => this.pump(),
      // A queue being handed over starts no new batch; its waiting messages stay unfinished in it.
      isStale: (item) => item.processQueue.dropped || item.processQueue.draining,
    });
    this.deadLetters = new DeadLetterHandOff<Item>({
      sendBack: context.sendBack,
      counters: context.counters,
      log: context.log,
      retryDelayMs: options.localRetryDelayMs,
      onHandedOff: (items) => this.commit(items),
    });
  }

  start(): void {
    const intervalMs = Math.min(this.context.options.consumeTimeoutMs, EXPIRY_SCAN_MAX_INTERVAL_MS);
    this.expiryTimer = setInterval(() => {
      if (this.expiryScan !== undefined) return;
      this.expiryScan = this.cleanExpiredMessages()
        .catch((error: unknown) => this.log.error({ err: error }, 'expired-message scan failed'))
        .finally(() => {
          this.expiryScan = undefined;
        });
    }, intervalMs);
    this.expiryTimer.unref();
  }

  submit(messages: readonly MessageExt[], processQueue: ProcessQueue, _dispatchToConsume = false): void {
    if (this.stopping || messages.length === 0) return;
    const { retryTopic } = this.context.options;
    this.batcher.add(messages.map((message) => new Item(message, processQueue, retryTopic)));
    this.pump();
  }

  inFlightBatches(): number {
    return this.inFlight.size;
  }

  pendingMessages(): number {
    return this.batcher.size;
  }

  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.batcher.drain();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    if (this.expiryTimer !== undefined) clearInterval(this.expiryTimer);
    await this.expiryScan;
    await this.deadLetters.stop();
    const ended = await settlesWithin(Promise.all([...this.inFlight].map((batch) => batch.done)), timeoutMs);
    if (!ended) {
      this.log.warn({ batches: this.inFlight.size, timeoutMs }, 'in-flight batches aborted at shutdown');
      for (const batch of this.inFlight) batch.aborted = true;
      this.shutdown.abort(new Error('consumer shutdown timed out'));
    }
  }

  /** Dispatches ready batches while there is room. */
  private pump(): void {
    if (this.stopping || this.halted) return;
    while (this.inFlight.size < this.context.options.maxConcurrency) {
      const batch = this.batcher.takeReady();
      if (batch === undefined) return;
      this.dispatch(batch);
    }
  }

  private dispatch(batch: Item[]): void {
    const record: InFlight = { aborted: false, done: Promise.resolve() };
    this.inFlight.add(record);
    const queues = new Set(batch.map((item) => item.processQueue));
    for (const queue of queues) queue.batchStarted();
    record.done = this.consume(batch, record)
      .catch((error: unknown) => this.log.error({ err: error }, 'batch handling failed'))
      .finally(() => {
        for (const queue of queues) queue.batchFinished();
        this.inFlight.delete(record);
        this.pump();
      });
  }

  private async consume(batch: Item[], record: InFlight): Promise<void> {
    const { options, counters } = this.context;
    const nowMs = Date.now();
    for (const item of batch) item.processQueue.markConsumeStartedAt(item.message.queueOffset, nowMs);
    counters.batchesDispatched++;
    let result: ConsumeResult;
    try {
      result = await this.context.listener.consume(batch, {
        consumerGroup: options.consumerGroup,
        orderly: false,
        signal: this.shutdown.signal,
      });
    } catch (error) {
      if (isFatalListenerError(error)) {
        this.halted = true;
        this.log.error({ err: error, messages: batch.length }, 'fatal listener error: batch left unconsumed');
        this.context.onFatal(error);
        return;
      }
      result = { status: 'FAILED', reason: errorMessage(error) };
    }
    if (record.aborted) {
      counters.discardedResults++;
      return;
    }
    await this.apply(batch, result, record);
    // Done with the batch (the listener's contract: message-listener.ts). Emptied, the array keeps no
    // message alive from wherever a reference to it outlives the batch (docs/architecture.md, "Garbage").
    batch.length = 0;
  }

  /**
   * Applies a result: succeeded messages are done; failed ones are done once sent back (or dropped, in
   * broadcasting); dead-lettered ones once the DLQ took them. Only done messages move offsets.
   */
  private async apply(entries: readonly Item[], result: ConsumeResult, record: InFlight): Promise<void> {
    const { counters } = this.context;
    const verdicts = classifyResult(result, entries, { deadLetters: this.clustering });
    if (verdicts.invalidPartial) {
      this.log.warn({ result }, 'PARTIAL result names indexes outside the batch: whole batch failed');
    }
    counters.consumedOk += verdicts.succeeded.length;
    counters.consumedFailed += verdicts.failedCount;
    counters.filteredOut += result.filteredOut ?? 0;
    // The usual batch failed nothing: its succeeded list (a fresh array) is all that is done.
    let done = verdicts.succeeded;
    if (verdicts.retry.length > 0 || verdicts.deadLetter.length > 0) {
      const settled =
        verdicts.retry.length > 0 ? await this.settleFailures(verdicts.retry, verdicts.reason) : [];
      const handedOff =
        verdicts.deadLetter.length > 0 ? await this.handOffDeadLetters(verdicts.deadLetter) : [];
      done = [...verdicts.succeeded, ...settled, ...handedOff];
    }
    if (record.aborted) {
      counters.discardedResults++;
      return;
    }
    this.commit(done);
  }

  /**
   * Failed messages: dropped in broadcasting; else sent back, and those the broker did not take are
   * consumed again locally. Returns the messages that are done.
   */
  private async settleFailures(failed: readonly Item[], reason: string): Promise<Item[]> {
    if (!this.clustering) return this.dropFailures(failed, reason);
    const { sent, notSent } = await this.sendBackAll(failed);
    this.retryLocally(notSent);
    const final = this.finalFailuresOf(sent);
    this.context.counters.deadLettered += final.length;
    await notifyFinalFailure(this.context.listener, final, reason, this.log);
    return sent;
  }

  /** Broadcasting has no retry topic: failed messages are logged and dropped, as RocketMQ does. */
  private dropFailures(failed: readonly Item[], reason: string): Item[] {
    this.context.counters.droppedFailures += failed.length;
    this.log.warn(
      { messages: failed.map((item) => item.message.msgId), reason },
      'broadcasting: failed messages dropped',
    );
    return failed.slice();
  }

  /** The broker moves a message sent back at the retry limit to the DLQ: it failed for good. */
  private finalFailuresOf(sent: readonly Item[]): ConsumedMessage[] {
    const { maxReconsumeTimes } = this.context.options;
    return sent.filter((item) => item.message.reconsumeTimes >= maxReconsumeTimes);
  }

  /** Hands dead-lettered messages to the DLQ; returns those it took (the rest are tried again later). */
  private async handOffDeadLetters(verdicts: readonly DeadLetterVerdict<Item>[]): Promise<Item[]> {
    const { handedOff, notHandedOff } = await this.deadLetters.handOff(verdicts.map(deadLetterEntryOf));
    this.deadLetters.retryLater(notHandedOff);
    return handedOff;
  }

  /** Sends failed messages back; splits them by whether the broker took them. */
  private async sendBackAll(failed: readonly Item[]): Promise<{ sent: Item[]; notSent: Item[] }> {
    const { options, counters, sendBack } = this.context;
    const notSent = new Set<Item>();
    await forEachConcurrently(failed, SEND_BACK_PARALLELISM, async (entry) => {
      const { message, processQueue } = entry;
      try {
        await sendBack.sendBack(message, processQueue.messageQueue, entry.topic, options.retryDelayLevel);
        counters.sentBack++;
      } catch (error) {
        counters.sendBackFailures++;
        notSent.add(entry);
        this.log.warn(
          { err: error, msgId: message.msgId, queue: processQueue.messageQueue },
          'send-back failed, will consume again locally',
        );
      }
    });
    return { sent: failed.filter((entry) => !notSent.has(entry)), notSent: [...notSent] };
  }

  /** Resubmits messages after `localRetryDelayMs` with reconsumeTimes + 1; they stay in their queue. */
  private retryLocally(items: Item[]): void {
    if (items.length === 0) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      const live = items.filter((item) => !item.processQueue.dropped && !item.processQueue.draining);
      this.context.counters.localRetries += live.length;
      if (this.stopping || live.length === 0) return;
      // The same message object, as Java does: a copy made by spreading would lose what a decoded
      // message computes on first read (msgId, properties, hosts: src/protocol/decoded-message.ts).
      for (const item of live) item.message.reconsumeTimes += 1;
      this.batcher.add(live);
      this.pump();
    }, this.context.options.localRetryDelayMs);
    this.retryTimers.add(timer);
  }

  /** Removes finished messages from their queues and moves each queue's offset (increase-only). */
  private commit(done: readonly Item[]): void {
    const byQueue = new Map<ProcessQueue, MessageExt[]>();
    for (const item of done) {
      const list = byQueue.get(item.processQueue);
      if (list === undefined) byQueue.set(item.processQueue, [item.message]);
      else list.push(item.message);
    }
    for (const [processQueue, messages] of byQueue) {
      const offset = processQueue.removeMessages(messages);
      if (offset >= 0 && !processQueue.dropped) {
        this.context.offsetStore.updateOffset(processQueue.messageQueue, offset, true);
        this.context.offsetMoved?.(processQueue.messageQueue);
      }
    }
  }

  /** Java `cleanExpiredMsg`: sends back messages whose consume started more than consumeTimeout ago. */
  private async cleanExpiredMessages(): Promise<void> {
    const { options, counters, sendBack, offsetStore } = this.context;
    for (const processQueue of this.context.heldQueues()) {
      for (let i = 0; i < EXPIRED_MESSAGES_PER_SCAN && !this.stopping; i++) {
        const message = processQueue.firstExpiredMessage(options.consumeTimeoutMs);
        if (message === undefined) break;
        const queue = processQueue.messageQueue;
        if (options.messageModel === 'CLUSTERING') {
          try {
            await sendBack.sendBack(
              message,
              queue,
              realTopicOf(message, options.retryTopic),
              EXPIRED_MESSAGE_DELAY_LEVEL,
            );
          } catch (error) {
            this.log.warn(
              { err: error, msgId: message.msgId, queue },
              'send-back of an expired message failed',
            );
            break;
          }
        } else {
          this.log.warn({ msgId: message.msgId, queue }, 'broadcasting: expired message dropped');
        }
        counters.expiredMessages++;
        if (options.messageModel === 'CLUSTERING' && message.reconsumeTimes >= options.maxReconsumeTimes) {
          const view = { message, queue, topic: realTopicOf(message, options.retryTopic) };
          const reason = `consume timed out (in flight longer than consumeTimeoutMs ${options.consumeTimeoutMs} ms)`;
          await notifyFinalFailure(this.context.listener, [view], reason, this.log);
        }
        if (processQueue.firstOffset() !== message.queueOffset) continue;
        const offset = processQueue.removeMessages([message]);
        if (offset >= 0 && !processQueue.dropped) offsetStore.updateOffset(queue, offset, true);
      }
    }
  }
}

/** What the dead-letter hand-off needs of a dead-lettered batch entry. */
function deadLetterEntryOf({ record, reason }: DeadLetterVerdict<Item>): DeadLetterEntryOf<Item> {
  return {
    item: record,
    message: record.message,
    processQueue: record.processQueue,
    topic: record.topic,
    reason,
  };
}
