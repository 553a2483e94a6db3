/**
 * CONSUMER_SEND_MSG_BACK for a failed or expired message: to the master of the broker group the message
 * was pulled from, with the real topic and Java's header values (docs/protocol.md, "Send-back, retry and
 * DLQ"). The broker then delivers it again through `%RETRY%<group>`, or puts it into `%DLQ%<group>` once
 * `maxReconsumeTimes` is reached.
 */
import { NoMasterError } from '../../client/no-master-error.js';
import { DEAD_LETTER_DELAY_LEVEL } from '../../protocol/dead-letter-delay-level.js';
import type { MessageExt } from '../../protocol/message.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';

/** Options of {@link MessageSendBack}. */
export interface MessageSendBackOptions {
  broker: Pick<ConsumerBrokerCalls, 'consumerSendMsgBack'>;
  masterAddress: (brokerName: string) => string | undefined;
  consumerGroup: string;
  maxReconsumeTimes: number;
}

/**
 * Sends messages back to their broker.
 *
 * @example
 * ```ts
 * const sendBack = new MessageSendBack({ broker: client.broker, masterAddress: (b) => routes.masterAddress(b),
 *   consumerGroup: 'G', maxReconsumeTimes: 16 });
 * await sendBack.sendBack(message, queue, 'Orders', 0);
 * ```
 */
export class MessageSendBack {
  constructor(private readonly options: MessageSendBackOptions) {}

  /**
   * Sends one message back. `realTopic` is the message's topic with retry rewriting undone;
   * `delayLevel` 0 lets the broker pick `3 + reconsumeTimes`. Rejects when the broker is unknown or
   * refuses.
   */
  async sendBack(
    message: MessageExt,
    queue: MessageQueue,
    realTopic: string,
    delayLevel: number,
  ): Promise<void> {
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
  }

  /**
   * Sends the message stored at commit-log offset `physicalOffset` straight to `%DLQ%<group>` (delay level
   * −1). Used for records we cannot decode: the broker reads them from its own commit log.
   */
  async deadLetterByOffset(queue: MessageQueue, physicalOffset: number): Promise<void> {
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
