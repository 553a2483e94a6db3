/**
 * Client registration of one consumer group (docs/protocol.md, "Heartbeats and membership"): HEART_BEAT
 * to every address of every known broker, with the topic's subscription and, in clustering,
 * `%RETRY%<group>` (`*`), so the broker lets us pull the retry queues; UNREGISTER_CLIENT to every broker
 * on shutdown.
 */
import type { ConsumerData, HeartbeatData } from '../../protocol/bodies.js';
import type { SubscriptionData } from '../../protocol/subscription.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import { consumeFromWhere, type NormalizedConsumerOptions } from '../consumer-options.js';
import type { RefusalWatch } from '../refusal-watch.js';
import type { TopicRouteTable } from './topic-route-table.js';

/** Options of {@link ConsumerHeartbeat}. */
export interface ConsumerHeartbeatOptions {
  clientId: string;
  broker: Pick<ConsumerBrokerCalls, 'heartbeat' | 'unregisterClient'>;
  routes: Pick<TopicRouteTable, 'allBrokerAddresses'>;
  options: Pick<NormalizedConsumerOptions, 'consumerGroup' | 'messageModel' | 'startingPosition'>;
  /** How the group consumes: a pull consumer is CONSUME_PASSIVELY (the default), a POP consumer CONSUME_POP. */
  consumeType?: ConsumerData['consumeType'] | undefined;
  /** The subscriptions to register (topic, and retry topic in clustering). */
  subscriptions: readonly SubscriptionData[];
  log: Logger;
  /** Told of every heartbeat's outcome (permanent refusals stop the consumer). */
  outcomes?: Pick<RefusalWatch, 'succeeded' | 'failed'> | undefined;
}

/**
 * Heartbeats and unregistration.
 */
export class ConsumerHeartbeat {
  private readonly warnings: ThrottledLog;
  /** The addresses whose last heartbeat was accepted. */
  private readonly registered = new Set<string>();

  constructor(private readonly o: ConsumerHeartbeatOptions) {
    this.warnings = new ThrottledLog(o.log);
  }

  /**
   * Whether the last heartbeat sent to `address` was accepted (false before the first): a broker that
   * did not take it may not know us, and membership-recovery.ts sends it another soon.
   */
  isRegistered(address: string): boolean {
    return this.registered.has(address);
  }

  /** The HEART_BEAT body. */
  data(): HeartbeatData {
    const { options } = this.o;
    return {
      clientID: this.o.clientId,
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: options.consumerGroup,
          consumeType: this.o.consumeType ?? 'CONSUME_PASSIVELY',
          messageModel: options.messageModel,
          consumeFromWhere: consumeFromWhere(options.startingPosition),
          unitMode: false,
          subscriptionDataSet: this.o.subscriptions,
        },
      ],
    };
  }

  /**
   * Sends a heartbeat to every known broker address; resolves with how many accepted it and the
   * failures of the others.
   */
  async sendToAll(): Promise<{ accepted: number; failures: unknown[] }> {
    const addresses = this.o.routes.allBrokerAddresses();
    const current = new Set(addresses);
    for (const address of this.registered) if (!current.has(address)) this.registered.delete(address);
    return this.sendTo(addresses);
  }

  /**
   * Sends a heartbeat to each of `addresses`; resolves with how many accepted it and the failures of the
   * others.
   */
  async sendTo(addresses: readonly string[]): Promise<{ accepted: number; failures: unknown[] }> {
    const data = this.data();
    const results = await Promise.allSettled(
      addresses.map((address) => this.o.broker.heartbeat(address, data)),
    );
    let accepted = 0;
    const failures: unknown[] = [];
    results.forEach((result, index) => {
      const address = addresses[index] ?? '?';
      const key = `heartbeat:${address}`;
      if (result.status === 'fulfilled') {
        accepted++;
        this.registered.add(address);
        this.warnings.clear(key);
        this.o.outcomes?.succeeded();
      } else {
        this.registered.delete(address);
        failures.push(result.reason);
        this.o.outcomes?.failed(result.reason);
        this.warnings.warn(key, { err: result.reason, broker: address }, 'heartbeat failed');
      }
    });
    return { accepted, failures };
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
