/**
 * Client registration of one consumer group (doc 4.1 / 4.2): HEART_BEAT to every address of every
 * known broker, with the topic's subscription and, in clustering, `%RETRY%<group>` (`*`), so the broker
 * lets us pull the retry queues; UNREGISTER_CLIENT to every broker on shutdown.
 */
import type { HeartbeatData } from '../protocol/bodies.js';
import type { SubscriptionData } from '../protocol/subscription.js';
import type { Logger } from '../util/logger.js';
import type { ConsumerBrokerCalls } from './consumer-client.js';
import { consumeFromWhere, type NormalizedConsumerOptions } from './consumer-options.js';
import type { TopicRouteTable } from './topic-route-table.js';

/** Options of {@link ConsumerHeartbeat}. */
export interface ConsumerHeartbeatOptions {
  clientId: string;
  broker: Pick<ConsumerBrokerCalls, 'heartbeat' | 'unregisterClient'>;
  routes: Pick<TopicRouteTable, 'allBrokerAddresses'>;
  options: NormalizedConsumerOptions;
  /** The subscriptions to register (topic, and retry topic in clustering). */
  subscriptions: readonly SubscriptionData[];
  log: Logger;
}

/**
 * Heartbeats and unregistration.
 *
 * @example
 * ```ts
 * const heartbeat = new ConsumerHeartbeat({ clientId, broker, routes, options, subscriptions, log });
 * await heartbeat.sendToAll();
 * await heartbeat.unregisterFromAll();
 * ```
 */
export class ConsumerHeartbeat {
  constructor(private readonly o: ConsumerHeartbeatOptions) {}

  /** The HEART_BEAT body. */
  data(): HeartbeatData {
    const { options } = this.o;
    return {
      clientID: this.o.clientId,
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: options.consumerGroup,
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: options.messageModel,
          consumeFromWhere: consumeFromWhere(options.startingPosition),
          unitMode: false,
          subscriptionDataSet: this.o.subscriptions,
        },
      ],
    };
  }

  /** Sends a heartbeat to every known broker address; resolves true when at least one accepted it. */
  async sendToAll(): Promise<boolean> {
    const data = this.data();
    const results = await Promise.allSettled(
      this.o.routes.allBrokerAddresses().map((address) => this.o.broker.heartbeat(address, data)),
    );
    let ok = false;
    for (const result of results) {
      if (result.status === 'fulfilled') ok = true;
      else this.o.log.warn({ err: result.reason }, 'heartbeat failed');
    }
    return ok;
  }

  /** Sends UNREGISTER_CLIENT to every known broker address (failures are logged). */
  async unregisterFromAll(): Promise<void> {
    const header = { clientID: this.o.clientId, consumerGroup: this.o.options.consumerGroup };
    const results = await Promise.allSettled(
      this.o.routes.allBrokerAddresses().map((address) => this.o.broker.unregisterClient(address, header)),
    );
    for (const result of results) {
      if (result.status === 'rejected') this.o.log.warn({ err: result.reason }, 'unregister failed');
    }
  }
}
