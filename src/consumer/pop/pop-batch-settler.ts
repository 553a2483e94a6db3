/**
 * Applies a listener's result to a popped batch: succeeded messages are acked; failed ones get an invisible
 * time from the retry ladder (the broker then redelivers them through the POP retry topic with
 * `reconsumeTimes + 1`); a message failing at `reconsumeTimes >= maxReconsumeTimes`, or one the listener
 * dead-letters, goes to `%DLQ%<group>` by CONSUMER_SEND_MSG_BACK with delay level -1 and is then acked.
 *
 * The broker never dead-letters a POP message itself: its revive (`PopReviveService.reviveRetry`) writes
 * it to the retry topic with `reconsumeTimes + 1` whatever the count, so the limit is the client's to keep
 * (the gRPC proxy does the same send-back then ack). A call that fails leaves the message to come back
 * after its invisible time: nothing is lost, a failed ack is a duplicate. A broker refusing every call of
 * a kind logs a line per kind and interval with a count (the counters keep the exact numbers), not one
 * per message.
 */
import type { PopClient } from '../../client/pop-client.js';
import { DEAD_LETTER_DELAY_LEVEL } from '../../protocol/dead-letter-delay-level.js';
import { type PopReceipt, popAckHeader } from '../../protocol/pop-extra-info.js';
import { forEachConcurrently } from '../../util/for-each-concurrently.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import { classifyResult } from '../consume/classify-result.js';
import { notifyFinalFailure } from '../consume/final-failure.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import type { ConsumerCounters } from '../consumer-counters.js';
import { startSettle, traced } from '../consumer-tracing.js';
import type { ConsumedMessage, ConsumeResult, MessageListener } from '../message-listener.js';
import { popRetryDelayMs } from './pop-consumer-options.js';
import type { PopCounters } from './pop-status.js';

/** Acks, changes and send-backs of one batch under way at once. */
const SETTLE_CONCURRENCY = 16;

/** A popped message as the listener sees it, with its receipt. */
export interface PopDelivery {
  readonly consumed: ConsumedMessage;
  readonly receipt: PopReceipt;
}

/** What {@link PopBatchSettler} needs. */
export interface PopBatchSettlerOptions {
  pop: Pick<PopClient, 'ackMessage' | 'changeInvisibleTime'>;
  broker: Pick<ConsumerBrokerCalls, 'consumerSendMsgBack'>;
  listener: MessageListener;
  consumerGroup: string;
  topic: string;
  maxReconsumeTimes: number;
  retryDelaysMs: readonly number[];
  counters: ConsumerCounters;
  popCounters: PopCounters;
  log: Logger;
}

/**
 * Settles popped batches at their broker.
 */
export class PopBatchSettler {
  /** The per-message failure lines, throttled per broker address and kind of call. */
  private readonly failures: ThrottledLog;

  constructor(private readonly options: PopBatchSettlerOptions) {
    this.failures = new ThrottledLog(options.log);
  }

  /** Writes the failure counts held back now (at stop, or in tests). */
  flushLogs(): void {
    this.failures.flush();
  }

  /** Applies `result` to `batch`, popped from the master at `address`. Never rejects. */
  async settle(address: string, batch: readonly PopDelivery[], result: ConsumeResult): Promise<void> {
    const o = this.options;
    const verdicts = classifyResult(result, batch, { deadLetters: true });
    o.counters.consumedOk += verdicts.succeeded.length;
    o.counters.consumedFailed += verdicts.failedCount;
    o.counters.filteredOut += result.filteredOut ?? 0;
    const atLimit = verdicts.retry.filter((d) => d.consumed.message.reconsumeTimes >= o.maxReconsumeTimes);
    const toRetry = verdicts.retry.filter((d) => d.consumed.message.reconsumeTimes < o.maxReconsumeTimes);
    if (verdicts.failedCount > 0) {
      o.log.warn(
        {
          reason: verdicts.reason,
          failed: verdicts.failedCount,
          retried: toRetry.length,
          deadLettered: atLimit.length + verdicts.deadLetter.length,
        },
        'batch failed in part or whole',
      );
    }
    const finalFailures: ConsumedMessage[] = [];
    await forEachConcurrently(
      [
        ...verdicts.succeeded.map((d) => () => this.ack(address, d)),
        ...toRetry.map((d) => () => this.retryLater(address, d)),
        ...verdicts.deadLetter.map(
          (v) => () => this.deadLetter(address, v.record, v.reason).then(() => undefined),
        ),
        ...atLimit.map((d) => async () => {
          if (await this.deadLetter(address, d, verdicts.reason)) finalFailures.push(d.consumed);
        }),
      ],
      SETTLE_CONCURRENCY,
      (step) => step(),
    );
    await notifyFinalFailure(o.listener, finalFailures, verdicts.reason, o.log);
  }

  /** Acks one delivery; a failure is counted and logged (the message will come back). */
  async ack(address: string, delivery: PopDelivery): Promise<void> {
    const o = this.options;
    try {
      const span = startSettle(o, 'ack', o.topic, [delivery.consumed.message]);
      const status = await traced(span, () =>
        o.pop.ackMessage(address, popAckHeader(delivery.receipt, o.consumerGroup, o.topic)),
      );
      if (status === 'GONE') o.popCounters.gone++;
      else o.popCounters.acks++;
    } catch (error) {
      o.popCounters.ackFailures++;
      this.failures.warn(
        `ack:${address}`,
        { err: error, msgId: delivery.consumed.message.msgId, broker: address },
        'ack failed: the message will be delivered again',
      );
    }
  }

  private async retryLater(address: string, delivery: PopDelivery): Promise<void> {
    const o = this.options;
    const invisibleTime = popRetryDelayMs(delivery.consumed.message.reconsumeTimes, o.retryDelaysMs);
    try {
      const header = { ...popAckHeader(delivery.receipt, o.consumerGroup, o.topic), invisibleTime };
      const span = startSettle(o, 'change_invisible_time', o.topic, [delivery.consumed.message], {
        'rocketmq_lambda.settle.invisible_time_ms': invisibleTime,
      });
      const changed = await traced(span, () => o.pop.changeInvisibleTime(address, header));
      if (changed.status === 'GONE') o.popCounters.gone++;
      else o.popCounters.invisibleTimeChanges++;
    } catch (error) {
      o.popCounters.invisibleTimeChangeFailures++;
      this.failures.warn(
        `change-invisible-time:${address}`,
        { err: error, msgId: delivery.consumed.message.msgId, broker: address },
        'change of invisible time failed: the message comes back after its first invisible time',
      );
    }
  }

  /**
   * Sends a popped message whose body would inflate past `maxDecompressedBodyBytes` to the DLQ without a
   * delivery (then acks it) and tells the listener (`too-large`); true once the broker took it. Never
   * rejects: when the broker does not take it, the message comes back after its invisible time and is
   * tried again. The caller names the ones taken in its log line.
   */
  async deadLetterTooLarge(address: string, delivery: PopDelivery, reason: string): Promise<boolean> {
    const o = this.options;
    if (!(await this.deadLetter(address, delivery, reason))) return false;
    o.counters.tooLargeDeadLettered++;
    await notifyFinalFailure(o.listener, [delivery.consumed], reason, o.log, 'too-large');
    return true;
  }

  /** Sends one delivery to the DLQ, then acks it; true when the broker took it. */
  private async deadLetter(address: string, delivery: PopDelivery, reason: string): Promise<boolean> {
    const o = this.options;
    const { message } = delivery.consumed;
    try {
      const span = startSettle(o, 'send_back', o.topic, [message], {
        'rocketmq_lambda.settle.delay_level': DEAD_LETTER_DELAY_LEVEL,
      });
      await traced(span, () =>
        o.broker.consumerSendMsgBack(address, {
          offset: message.physicalOffset,
          group: o.consumerGroup,
          delayLevel: DEAD_LETTER_DELAY_LEVEL,
          originMsgId: message.msgId,
          originTopic: o.topic,
          unitMode: false,
          maxReconsumeTimes: o.maxReconsumeTimes,
          bname: delivery.receipt.brokerName,
        }),
      );
    } catch (error) {
      o.counters.sendBackFailures++;
      this.failures.warn(
        `dead-letter:${address}`,
        { err: error, msgId: message.msgId, broker: address, reason },
        'dead-lettering failed: the message will be delivered again',
      );
      return false;
    }
    o.counters.sentBack++;
    o.counters.deadLettered++;
    await this.ack(address, delivery);
    return true;
  }
}
