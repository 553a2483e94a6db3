/**
 * The dead-letter queue of a consumer group (`%DLQ%<group>`) as `dlq show` and `dlq redrive` see it: its
 * queues (RocketMQ creates the topic with the group's first dead letter, one queue on each broker that
 * dead-lettered), pages of its messages from an offset, and the redrive position: the group's committed
 * offset of each DLQ queue, kept on the broker (QUERY/UPDATE_CONSUMER_OFFSET). Nothing here changes the
 * DLQ itself (RocketMQ cannot delete a message); only the redrive position moves, and never backwards.
 */

import type { BrokerClient } from '../client/broker-client.js';
import { BrokerError } from '../client/broker-error.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { QueueReader, type QueueReadResult, type RoutedQueue } from '../client/queue-reader.js';
import { dlqTopicOf } from '../consumer/consumer-options.js';
import type { MessageExt } from '../protocol/message.js';
import type { TooLargeMessage } from '../protocol/message-decoder.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { findRedrivenCopy, type RedrivenCopy } from './redriven-copy.js';

/** Messages asked for per read. */
export const DLQ_PAGE_SIZE = 32;

/**
 * What {@link DeadLetterQueue} needs of a client (a `RocketMQClient` has it).
 */
export interface DeadLetterQueueClient {
  nameServer: Pick<NameServerClient, 'getRoute'>;
  broker: Pick<BrokerClient, 'pullMessage' | 'queryConsumerOffset' | 'updateConsumerOffset'>;
}

/**
 * One page of a DLQ queue.
 */
export interface DeadLetterPage {
  /**
   * The messages of the page, in offset order (at most the limit left), those too large to inflate
   * included (with an empty body: see `tooLarge`).
   */
  readonly messages: readonly MessageExt[];
  /** The page's messages too large to inflate, by DLQ offset, with why and their stored bodies. */
  readonly tooLarge: ReadonlyMap<number, TooLargeMessage>;
  /** Where the next page starts. */
  readonly nextOffset: number;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** Set on the first page when the start offset was below the queue's min offset: where reading began instead. */
  readonly movedFrom?: number | undefined;
}

/**
 * Where a look at a DLQ queue starts ({@link DeadLetterQueue.start}).
 */
export interface DlqStart {
  /** Where the last redrive ended; undefined when none ran. */
  readonly position: number | undefined;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** The offset to start at. */
  readonly from: number;
}

/**
 * A consumer group's dead-letter queue.
 */
export class DeadLetterQueue {
  /** `%DLQ%<group>`. */
  readonly topic: string;
  readonly consumerGroup: string;
  readonly #client: DeadLetterQueueClient;
  readonly #reader: QueueReader;

  constructor(options: { client: DeadLetterQueueClient; consumerGroup: string }) {
    this.consumerGroup = options.consumerGroup;
    this.topic = dlqTopicOf(options.consumerGroup);
    this.#client = options.client;
    this.#reader = new QueueReader({ client: options.client, consumerGroup: options.consumerGroup });
  }

  /** The DLQ's queues, or undefined when the topic does not exist (the group has no dead letter yet). */
  async queues(): Promise<RoutedQueue[] | undefined> {
    try {
      return await this.#reader.queues(this.topic);
    } catch (error) {
      if (error instanceof BrokerError && error.code === ResponseCode.TOPIC_NOT_EXIST) return undefined;
      throw error;
    }
  }

  /** The master address of a DLQ queue's broker group (for messages and `mqadmin` hints). */
  async masterAddress(queue: MessageQueue): Promise<string> {
    return this.#reader.masterAddress(queue);
  }

  /** The queue's min and max offsets (an empty read at the min offset). */
  async bounds(queue: MessageQueue): Promise<{ minOffset: number; maxOffset: number }> {
    const result = await this.#reader.read(queue, 0, { maxMessages: 1 });
    return { minOffset: result.minOffset, maxOffset: result.maxOffset };
  }

  /** Where the last redrive of the queue ended, or undefined when none ran. */
  async redrivePosition(queue: MessageQueue): Promise<number | undefined> {
    const address = await this.#reader.masterAddress(queue);
    return this.#client.broker.queryConsumerOffset(address, {
      consumerGroup: this.consumerGroup,
      topic: queue.topic,
      queueId: queue.queueId,
      setZeroIfNotFound: false,
      bname: queue.brokerName,
    });
  }

  /**
   * Where a look at the queue (or a redrive of it) starts, with its bounds and redrive position: `from`
   * when given, else the oldest stored dead letter with `oldest`, else the redrive position (the oldest
   * when no redrive ran).
   */
  async start(
    queue: MessageQueue,
    options: { from?: number | undefined; oldest: boolean },
  ): Promise<DlqStart> {
    const position = await this.redrivePosition(queue);
    const { minOffset, maxOffset } = await this.bounds(queue);
    const from = options.from ?? (options.oldest ? minOffset : (position ?? minOffset));
    return { position, minOffset, maxOffset, from };
  }

  /**
   * Looks for the copy a redrive sent to `topic` of the dead letter at `offset` of `queue`
   * (redriven-copy.ts); undefined when there is none.
   */
  async findRedrivenCopy(
    topic: string,
    queue: MessageQueue,
    offset: number,
    deadLetteredAt: number,
  ): Promise<RedrivenCopy | undefined> {
    return findRedrivenCopy(this.#reader, topic, queue, offset, deadLetteredAt);
  }

  /**
   * Stores `offset` as the queue's redrive position (the caller never moves it backwards): one
   * UPDATE_CONSUMER_OFFSET, answered once the broker holds it in memory (it flushes its offsets to disk
   * every few seconds, so a broker crash, unlike a crash of this process, may forget the last moves).
   */
  async saveRedrivePosition(queue: MessageQueue, offset: number): Promise<void> {
    const address = await this.#reader.masterAddress(queue);
    await this.#client.broker.updateConsumerOffset(address, {
      consumerGroup: this.consumerGroup,
      topic: queue.topic,
      queueId: queue.queueId,
      commitOffset: offset,
      bname: queue.brokerName,
    });
  }

  /**
   * Pages of the queue from `fromOffset` until `limit` messages were returned or the queue's end. A start
   * below the queue's min offset (messages expired by the broker) begins at the min offset instead
   * (`movedFrom` tells); a start past the end gives no page.
   */
  async *pages(queue: MessageQueue, fromOffset: number, limit: number): AsyncGenerator<DeadLetterPage> {
    let offset = fromOffset;
    let left = limit;
    let movedFrom: number | undefined;
    while (left > 0) {
      const result: QueueReadResult = await this.#reader.read(queue, offset, {
        maxMessages: Math.min(DLQ_PAGE_SIZE, left),
      });
      const tooLarge = new Map((result.tooLarge ?? []).map((entry) => [entry.message.queueOffset, entry]));
      const read = [...result.messages, ...[...tooLarge.values()].map((entry) => entry.message)].sort(
        (a, b) => a.queueOffset - b.queueOffset,
      );
      if (result.decodeError !== undefined && read.length === 0) throw result.decodeError;
      if (result.status === 'OFFSET_ILLEGAL') {
        if (offset < result.minOffset && movedFrom === undefined) {
          movedFrom = offset;
          offset = result.minOffset;
          continue;
        }
        return;
      }
      if (result.status === 'NO_NEW_MSG') return;
      const messages = read.slice(0, left);
      left -= messages.length;
      const last = messages.at(-1);
      const nextOffset = last === undefined ? result.nextOffset : last.queueOffset + 1;
      yield {
        messages,
        tooLarge,
        nextOffset,
        minOffset: result.minOffset,
        maxOffset: result.maxOffset,
        movedFrom,
      };
      movedFrom = undefined;
      if (nextOffset <= offset) return;
      offset = nextOffset;
      if (offset >= result.maxOffset) return;
    }
  }
}
