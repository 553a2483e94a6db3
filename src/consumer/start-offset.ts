/**
 * Where a queue starts when it is (re)assigned (Java `RebalancePushImpl.computePullFromWhereWithException`,
 * doc 11.6): the stored offset if there is one, else the mapping's starting position.
 */

import { NO_OFFSET, type OffsetStore } from '../offsets/offset-store.js';
import { RocketMQError } from '../protocol/errors.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import type { ConsumerBrokerCalls } from './consumer-client.js';
import type { StartingPosition } from './consumer-options.js';

/** What {@link StartOffsetResolver} needs. */
export interface StartOffsetResolverOptions {
  offsetStore: Pick<OffsetStore, 'readOffset'>;
  broker: Pick<ConsumerBrokerCalls, 'getMaxOffset' | 'getMinOffset' | 'searchOffsetByTimestamp'>;
  /** The master address of a broker group (undefined while unknown). */
  masterAddress: (brokerName: string) => string | undefined;
  startingPosition: StartingPosition;
  startingPositionTimestamp: number | undefined;
  /** `%RETRY%<group>`. */
  retryTopic: string;
}

/**
 * Computes start offsets. Errors (store unreadable, broker unreachable) propagate: the caller must not
 * guess, it skips the queue and tries again at the next rebalance.
 *
 * | position | stored | none, topic | none, retry topic |
 * |---|---|---|---|
 * | LATEST | stored | GET_MAX_OFFSET | 0 |
 * | TRIM_HORIZON | stored | GET_MIN_OFFSET | 0 |
 * | AT_TIMESTAMP | stored | SEARCH_OFFSET_BY_TIMESTAMP | GET_MAX_OFFSET |
 *
 * TRIM_HORIZON asks for the min offset directly (Java uses 0 and lets the first pull's OFFSET_ILLEGAL
 * correct it): one round trip less, and no backwards-looking correction in the logs.
 *
 * @example
 * ```ts
 * const resolver = new StartOffsetResolver({ offsetStore, broker: client.broker,
 *   masterAddress: (b) => routes.masterAddress(b), startingPosition: 'LATEST',
 *   startingPositionTimestamp: undefined, retryTopic: '%RETRY%G' });
 * const offset = await resolver.startOffset({ topic: 'T', brokerName: 'broker-a', queueId: 0 });
 * ```
 */
export class StartOffsetResolver {
  constructor(private readonly options: StartOffsetResolverOptions) {}

  async startOffset(queue: MessageQueue): Promise<number> {
    const stored = await this.options.offsetStore.readOffset(queue, 'STORE');
    if (stored >= 0) return stored;
    if (stored !== NO_OFFSET) {
      throw new RocketMQError(`offset store returned ${stored} for ${queue.topic}#${queue.queueId}`, {
        retriable: true,
      });
    }
    const isRetryTopic = queue.topic === this.options.retryTopic;
    switch (this.options.startingPosition) {
      case 'LATEST':
        return isRetryTopic ? 0 : this.maxOffset(queue);
      case 'TRIM_HORIZON':
        return isRetryTopic ? 0 : this.minOffset(queue);
      case 'AT_TIMESTAMP':
        return isRetryTopic ? this.maxOffset(queue) : this.offsetAt(queue);
    }
  }

  private address(queue: MessageQueue): string {
    const address = this.options.masterAddress(queue.brokerName);
    if (address === undefined) {
      throw new RocketMQError(`no master address known for broker ${queue.brokerName}`, { retriable: true });
    }
    return address;
  }

  /**
   * The broker's max offset of `queue` (the offset its next message gets), asked at its master; rejects
   * when no master address is known.
   */
  maxOffset(queue: MessageQueue): Promise<number> {
    return this.options.broker.getMaxOffset(this.address(queue), {
      topic: queue.topic,
      queueId: queue.queueId,
      bname: queue.brokerName,
    });
  }

  private minOffset(queue: MessageQueue): Promise<number> {
    return this.options.broker.getMinOffset(this.address(queue), {
      topic: queue.topic,
      queueId: queue.queueId,
      bname: queue.brokerName,
    });
  }

  private offsetAt(queue: MessageQueue): Promise<number> {
    const timestamp = this.options.startingPositionTimestamp;
    if (timestamp === undefined) {
      throw new RocketMQError('startingPosition AT_TIMESTAMP needs startingPositionTimestamp');
    }
    return this.options.broker.searchOffsetByTimestamp(this.address(queue), {
      topic: queue.topic,
      queueId: queue.queueId,
      timestamp,
      bname: queue.brokerName,
    });
  }
}
