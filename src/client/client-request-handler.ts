/**
 * Answers the requests brokers send to this client: NOTIFY_CONSUMER_IDS_CHANGED (oneway, dispatched to
 * the listeners the consumer layer registers) and GET_CONSUMER_RUNNING_INFO (answered from a provider the
 * consumer registers per group). Anything else returns `undefined`, which the network layer answers with
 * 3 REQUEST_CODE_NOT_SUPPORTED.
 *
 * A broker sends these when it likes, and a hostile or broken one floods them: the lines they cause are
 * throttled (src/util/throttled-log.ts), one per group and interval with the count held back, and keyed only
 * by the groups this client runs (any other group shares one key), so a peer cannot multiply them.
 */
import type { RemotingResponse } from '../network/connection.js';
import { type ConsumerRunningInfo, encodeConsumerRunningInfo } from '../protocol/bodies.js';
import { requireStringField } from '../protocol/header-parsers.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { echoedText } from '../util/echoed-value.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { DEFAULT_LOG_INTERVAL_MS, ThrottledLog } from '../util/throttled-log.js';

/**
 * Called with the group whose membership changed; the consumer should rebalance now.
 */
export type ConsumerIdsChangedListener = (consumerGroup: string) => void;

/**
 * What a running-info provider is asked.
 */
export interface ConsumerRunningInfoRequest {
  consumerGroup: string;
  clientId: string;
  jstackEnable: boolean;
}

/**
 * Builds the running info of one consumer group of this client.
 */
export type ConsumerRunningInfoProvider = (
  request: ConsumerRunningInfoRequest,
) => ConsumerRunningInfo | Promise<ConsumerRunningInfo>;

/**
 * Dispatches broker-initiated requests. Pass {@link ClientRequestHandler.handle} to the connection pool
 * as its `requestHandler`.
 */
export class ClientRequestHandler {
  private readonly idsChangedListeners = new Set<ConsumerIdsChangedListener>();
  private readonly runningInfoProviders = new Map<string, ConsumerRunningInfoProvider>();
  private readonly lines: ThrottledLog;

  /** `logIntervalMs`: at most one line per kind and group this often (tests shorten it). */
  constructor(options: { logger?: Logger | undefined; logIntervalMs?: number | undefined } = {}) {
    this.lines = new ThrottledLog(
      componentLogger('client.request-handler', options.logger),
      options.logIntervalMs ?? DEFAULT_LOG_INTERVAL_MS,
    );
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

  /** Writes the counts held back now (at shutdown, or in tests). */
  flushLogs(): void {
    this.lines.flush();
  }

  private consumerIdsChanged(request: RemotingCommand): void {
    const group = requireStringField(request.extFields, 'consumerGroup', 'NOTIFY_CONSUMER_IDS_CHANGED');
    const ours = this.runningInfoProviders.has(group);
    // Our groups by name; any other group (a broker has no reason to name one) under one key.
    const key = ours ? `group:${group}` : 'other group';
    // A group we do not run is whatever the peer wrote: quoted cut short.
    const fields = { consumerGroup: ours ? group : echoedText(group) };
    this.lines.info(`ids changed:${key}`, fields, 'consumer ids changed');
    for (const listener of this.idsChangedListeners) {
      try {
        listener(group);
      } catch (error) {
        this.lines.error(
          `listener failed:${key}`,
          { ...fields, err: error },
          'consumer ids changed listener failed',
        );
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
