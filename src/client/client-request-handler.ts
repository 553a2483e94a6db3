/**
 * Answers the requests brokers send to this client: NOTIFY_CONSUMER_IDS_CHANGED (oneway, dispatched to
 * the listeners the consumer layer registers) and GET_CONSUMER_RUNNING_INFO (answered from a provider the
 * consumer registers per group). Anything else returns `undefined`, which the network layer answers with
 * 3 REQUEST_CODE_NOT_SUPPORTED.
 */
import type { RemotingResponse } from '../network/connection.js';
import { type ConsumerRunningInfo, encodeConsumerRunningInfo } from '../protocol/bodies.js';
import { requireStringField } from '../protocol/header-parsers.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { componentLogger, type Logger } from '../util/logger.js';

/**
 * Called with the group whose membership changed; the consumer should rebalance now.
 *
 * @example
 * ```ts
 * const listener: ConsumerIdsChangedListener = (group) => rebalancer.rebalanceNow(group);
 * ```
 */
export type ConsumerIdsChangedListener = (consumerGroup: string) => void;

/**
 * What a running-info provider is asked.
 *
 * @example
 * ```ts
 * handler.setRunningInfoProvider('G', (req: ConsumerRunningInfoRequest) => runtime.runningInfo(req.clientId));
 * ```
 */
export interface ConsumerRunningInfoRequest {
  consumerGroup: string;
  clientId: string;
  jstackEnable: boolean;
}

/**
 * Builds the running info of one consumer group of this client.
 *
 * @example
 * ```ts
 * const provider: ConsumerRunningInfoProvider = () => ({ properties: {}, subscriptionSet: [], mqTable: [] });
 * ```
 */
export type ConsumerRunningInfoProvider = (
  request: ConsumerRunningInfoRequest,
) => ConsumerRunningInfo | Promise<ConsumerRunningInfo>;

/**
 * Dispatches broker-initiated requests. Pass {@link ClientRequestHandler.handle} to the connection pool
 * as its `requestHandler`.
 *
 * @example
 * ```ts
 * const handler = new ClientRequestHandler();
 * const pool = new ConnectionPool({ requestHandler: handler.handle });
 * const stop = handler.onConsumerIdsChanged((group) => rebalancer.rebalanceNow(group));
 * handler.setRunningInfoProvider('G', () => runtime.runningInfo());
 * ```
 */
export class ClientRequestHandler {
  private readonly idsChangedListeners = new Set<ConsumerIdsChangedListener>();
  private readonly runningInfoProviders = new Map<string, ConsumerRunningInfoProvider>();
  private readonly log: Logger;

  constructor(options: { logger?: Logger | undefined } = {}) {
    this.log = componentLogger('client.request-handler', options.logger);
  }

  /** Registers a NOTIFY_CONSUMER_IDS_CHANGED listener; returns its unregister function. */
  onConsumerIdsChanged(listener: ConsumerIdsChangedListener): () => void {
    this.idsChangedListeners.add(listener);
    return () => {
      this.idsChangedListeners.delete(listener);
    };
  }

  /** Sets the running-info provider of a group; returns a function that removes it. */
  setRunningInfoProvider(consumerGroup: string, provider: ConsumerRunningInfoProvider): () => void {
    this.runningInfoProviders.set(consumerGroup, provider);
    return () => {
      if (this.runningInfoProviders.get(consumerGroup) === provider)
        this.runningInfoProviders.delete(consumerGroup);
    };
  }

  /** The request handler (arrow function: safe to pass around unbound). */
  readonly handle = async (request: RemotingCommand): Promise<RemotingResponse | undefined> => {
    switch (request.code) {
      case RequestCode.NOTIFY_CONSUMER_IDS_CHANGED:
        this.consumerIdsChanged(request);
        return { code: ResponseCode.SUCCESS };
      case RequestCode.GET_CONSUMER_RUNNING_INFO:
        return this.runningInfo(request);
      default:
        return undefined;
    }
  };

  private consumerIdsChanged(request: RemotingCommand): void {
    const group = requireStringField(request.extFields, 'consumerGroup', 'NOTIFY_CONSUMER_IDS_CHANGED');
    this.log.info({ consumerGroup: group }, 'consumer ids changed');
    for (const listener of this.idsChangedListeners) {
      try {
        listener(group);
      } catch (error) {
        this.log.error({ consumerGroup: group, err: error }, 'consumer ids changed listener failed');
      }
    }
  }

  private async runningInfo(request: RemotingCommand): Promise<RemotingResponse> {
    const consumerGroup = requireStringField(request.extFields, 'consumerGroup', 'GET_CONSUMER_RUNNING_INFO');
    const provider = this.runningInfoProviders.get(consumerGroup);
    if (provider === undefined) {
      return {
        code: ResponseCode.SYSTEM_ERROR,
        remark: `The Consumer Group <${consumerGroup}> not exist in this consumer`,
      };
    }
    const info = await provider({
      consumerGroup,
      clientId: request.extFields.clientId ?? '',
      jstackEnable: request.extFields.jstackEnable === 'true',
    });
    return { code: ResponseCode.SUCCESS, body: encodeConsumerRunningInfo(info) };
  }
}
