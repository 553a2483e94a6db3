/**
 * CONSUMER_SEND_MSG_BACK for a failed or expired message: to the master of the broker group the message
 * was pulled from, with the real topic and Java's header values (docs/protocol.md, "Send-back, retry and
 * DLQ"). The broker then delivers it again through `%RETRY%<group>`, or puts it into `%DLQ%<group>` once
 * `maxReconsumeTimes` is reached. When that broker group cannot take it (master down), a copy is produced
 * to `%RETRY%<group>` on whichever group serves it, as Java's consumer does (docs/clusters.md).
 */
import { NoMasterError } from '../../client/no-master-error.js';
import type { Producer } from '../../client/producer.js';
import { DEAD_LETTER_DELAY_LEVEL } from '../../protocol/dead-letter-delay-level.js';
import { MessageConst, type MessageExt } from '../../protocol/message.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import { describeError } from '../../util/describe-error.js';
import type { Logger } from '../../util/logger.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import { retryTopicOf } from '../consumer-options.js';
import { startSettle, traced } from '../consumer-tracing.js';

/** Options of {@link MessageSendBack}. */
export interface MessageSendBackOptions {
  broker: Pick<ConsumerBrokerCalls, 'consumerSendMsgBack'>;
  masterAddress: (brokerName: string) => string | undefined;
  consumerGroup: string;
  maxReconsumeTimes: number;
  /**
   * Sends a copy to `%RETRY%<group>` when the message's own broker group cannot take it back (its master
   * is down or refuses): any broker group serving the retry topic then holds the retry. Without it a
   * failed send-back is only a failure (the caller consumes the message again locally).
   */
  retryProducer?: Pick<Producer, 'send'> | undefined;
  /**
   * Told of every message a broker group took back (not of dead letters): that group now has
   * `%RETRY%<group>`, even while the name server (a 5.x proxy's route cache) does not know it yet.
   */
  onSentBack?: ((brokerName: string) => void) | undefined;
  log?: Logger | undefined;
}

/** Java's delay level of a retry sent through the producer: 3 (10 s) plus the attempts so far. */
const FALLBACK_BASE_DELAY_LEVEL = 3;

/**
 * Sends messages back to their broker.
 */
export class MessageSendBack {
  constructor(private readonly options: MessageSendBackOptions) {}

  /**
   * Sends one message back. `realTopic` is the message's topic with retry rewriting undone;
   * `delayLevel` 0 lets the broker pick `3 + reconsumeTimes`. Rejects when the broker is unknown or
   * refuses.
   */
  sendBack(message: MessageExt, queue: MessageQueue, realTopic: string, delayLevel: number): Promise<void> {
    const span = startSettle(this.options, 'send_back', realTopic, [message], {
      'rocketmq_lambda.settle.delay_level': delayLevel,
    });
    return traced(span, () => this.sendBackOnce(message, queue, realTopic, delayLevel));
  }

  private async sendBackOnce(
    message: MessageExt,
    queue: MessageQueue,
    realTopic: string,
    delayLevel: number,
  ): Promise<void> {
    try {
      const address = this.options.masterAddress(queue.brokerName);
      if (address === undefined) {
        throw new NoMasterError(queue.brokerName);
      }
      await this.options.broker.consumerSendMsgBack(address, {
        offset: message.physicalOffset,
        group: this.options.consumerGroup,
        delayLevel,
        originMsgId: message.msgId,
        originTopic: realTopic,
        unitMode: false,
        maxReconsumeTimes: this.options.maxReconsumeTimes,
        bname: queue.brokerName,
      });
      if (delayLevel >= 0) this.options.onSentBack?.(queue.brokerName);
    } catch (error) {
      // A dead letter (delay level -1) has no producer path: the broker's DLQ move needs the send-back.
      const producer = this.options.retryProducer;
      if (producer === undefined || delayLevel < 0) throw error;
      await this.resendToRetryTopic(producer, message, realTopic, delayLevel, error);
    }
  }

  /**
   * Java's fall-back when CONSUMER_SEND_MSG_BACK fails: the message, with its properties and id, produced
   * to `%RETRY%<group>` with `RETRY_TOPIC`, `ORIGIN_MESSAGE_ID`, `reconsumeTimes + 1` and the retry limit,
   * delayed by `delayLevel` (or 3 + the attempts so far). The broker that takes it moves it to the DLQ
   * when the limit is reached. Rejects with the send-back's error when this fails too.
   */
  private async resendToRetryTopic(
    producer: Pick<Producer, 'send'>,
    message: MessageExt,
    realTopic: string,
    delayLevel: number,
    sendBackError: unknown,
  ): Promise<void> {
    const { [MessageConst.TRAN_MSG]: _prepared, [MessageConst.DELAY]: _delay, ...kept } = message.properties;
    const properties: Record<string, string> = {
      ...kept,
      [MessageConst.RETRY_TOPIC]: realTopic,
      [MessageConst.ORIGIN_MESSAGE_ID]: message.properties[MessageConst.ORIGIN_MESSAGE_ID] ?? message.msgId,
      [MessageConst.RECONSUME_TIME]: String(message.reconsumeTimes + 1),
      [MessageConst.MAX_RECONSUME_TIMES]: String(this.options.maxReconsumeTimes),
    };
    try {
      await producer.send({
        topic: retryTopicOf(this.options.consumerGroup),
        body: message.body,
        flag: message.flag,
        properties,
        delayLevel: delayLevel > 0 ? delayLevel : FALLBACK_BASE_DELAY_LEVEL + message.reconsumeTimes,
        uniqueKey: message.msgId,
      });
    } catch (resendError) {
      this.options.log?.warn(
        { err: resendError, msgId: message.msgId },
        'the retry topic did not take the message either',
      );
      throw sendBackError;
    }
    this.options.log?.warn(
      { reason: describeError(sendBackError), msgId: message.msgId, topic: realTopic },
      'send-back failed: the message went to the retry topic through another broker instead',
    );
  }

  /**
   * Sends the message stored at commit-log offset `physicalOffset` straight to `%DLQ%<group>` (delay level
   * −1). Used for records we cannot decode: the broker reads them from its own commit log.
   */
  deadLetterByOffset(queue: MessageQueue, physicalOffset: number): Promise<void> {
    const span = startSettle(this.options, 'dead_letter', queue.topic, [], {
      'rocketmq_lambda.settle.physical_offset': physicalOffset,
    });
    return traced(span, () => this.deadLetterByOffsetOnce(queue, physicalOffset));
  }

  private async deadLetterByOffsetOnce(queue: MessageQueue, physicalOffset: number): Promise<void> {
    const address = this.options.masterAddress(queue.brokerName);
    if (address === undefined) {
      throw new NoMasterError(queue.brokerName);
    }
    await this.options.broker.consumerSendMsgBack(address, {
      offset: physicalOffset,
      group: this.options.consumerGroup,
      delayLevel: DEAD_LETTER_DELAY_LEVEL,
      // The 5.3.3 broker dereferences originTopic unconditionally (NullPointerException without it).
      originTopic: queue.topic,
      unitMode: false,
      maxReconsumeTimes: this.options.maxReconsumeTimes,
      bname: queue.brokerName,
    });
  }
}
