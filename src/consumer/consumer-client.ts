/**
 * The narrow slice of the client layer a consumer runtime uses. {@link RocketMQClient} satisfies it;
 * unit tests pass fakes.
 */
import type { BrokerClient } from '../client/broker-client.js';
import type { ClientRequestHandler } from '../client/client-request-handler.js';
import type { NameServerClient } from '../client/name-server-client.js';

/** Broker calls the consumer makes. */
export type ConsumerBrokerCalls = Pick<
  BrokerClient,
  | 'heartbeat'
  | 'unregisterClient'
  | 'getConsumerListByGroup'
  | 'pullMessage'
  | 'consumerSendMsgBack'
  | 'lockBatchMQ'
  | 'unlockBatchMQ'
  | 'unlockBatchMQOneway'
  | 'getMaxOffset'
  | 'getMinOffset'
  | 'firstOffsetAtOrAfter'
  | 'queryConsumerOffset'
  | 'queryConsumerOffsetAnswer'
  | 'getAllConsumerOffset'
  | 'checkClientConfig'
  | 'updateConsumerOffsetOneway'
>;

/**
 * What a consumer runtime needs from the client layer.
 */
export interface ConsumerClient {
  readonly clientId: string;
  /** `addresses` tells a 5.x proxy in cluster mode apart (topic-route-table.ts, `servedByProxy`). */
  readonly nameServer: Pick<NameServerClient, 'getRoute'> & Partial<Pick<NameServerClient, 'addresses'>>;
  readonly broker: ConsumerBrokerCalls;
  readonly requestHandler: Pick<ClientRequestHandler, 'onConsumerIdsChanged' | 'setRunningInfoProvider'>;
}
