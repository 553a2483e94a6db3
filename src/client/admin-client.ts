/**
 * Admin broker calls: create topics and subscription groups (tests that need N queues, the operator
 * CLI) and ask a broker to query one of its consumers' running info.
 */
import {
  encodeSubscriptionGroupConfig,
  parseConsumerRunningInfo,
  type SubscriptionGroupConfig,
} from '../protocol/bodies.js';
import type { CreateTopicRequestHeader, GetConsumerRunningInfoRequestHeader } from '../protocol/headers.js';
import { toExtFields } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { PermName } from '../protocol/route-data.js';
import { expectSuccess } from './broker-error.js';
import type { RemotingTransport } from './transport.js';

/**
 * Admin RPC timeout (Java's `MQClientAPIImpl` admin calls use 3-5 s).
 */
export const DEFAULT_ADMIN_TIMEOUT_MS = 5000;

/**
 * The auto-create template topic.
 */
export const DEFAULT_TEMPLATE_TOPIC = 'TBW102';

/**
 * What {@link BrokerAdminClient.createTopic} needs; the rest gets mqadmin's defaults.
 */
export interface CreateTopicOptions {
  topic: string;
  /** @default 8 */
  readQueueNums?: number | undefined;
  /** @default readQueueNums */
  writeQueueNums?: number | undefined;
  /** @default 6 (read + write) */
  perm?: number | undefined;
  /** @default false */
  order?: boolean | undefined;
  /** e.g. `+message.type=NORMAL` */
  attributes?: string | undefined;
}

/**
 * Admin calls to one broker.
 */
export class BrokerAdminClient {
  private readonly transport: RemotingTransport;
  private readonly timeoutMs: number;

  constructor(options: { transport: RemotingTransport; timeoutMs?: number | undefined }) {
    this.transport = options.transport;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ADMIN_TIMEOUT_MS;
  }

  /** UPDATE_AND_CREATE_TOPIC (17): creates or updates a topic on this broker (it then registers it with the name servers). */
  async createTopic(address: string, options: CreateTopicOptions): Promise<void> {
    const readQueueNums = options.readQueueNums ?? 8;
    const header: CreateTopicRequestHeader = {
      topic: options.topic,
      defaultTopic: DEFAULT_TEMPLATE_TOPIC,
      readQueueNums,
      writeQueueNums: options.writeQueueNums ?? readQueueNums,
      perm: options.perm ?? PermName.READ | PermName.WRITE,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: options.order ?? false,
      attributes: options.attributes,
    };
    const request = { code: RequestCode.UPDATE_AND_CREATE_TOPIC, extFields: toExtFields(header) };
    expectSuccess(await this.transport.request(address, request, this.timeoutMs), request, address);
  }

  /** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): creates or updates a consumer group on this broker. */
  async createSubscriptionGroup(address: string, config: SubscriptionGroupConfig): Promise<void> {
    const request = {
      code: RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
      extFields: {},
      body: encodeSubscriptionGroupConfig(config),
    };
    expectSuccess(await this.transport.request(address, request, this.timeoutMs), request, address);
  }

  /**
   * GET_CONSUMER_RUNNING_INFO (307) sent to a broker: the broker forwards it to the consumer `clientId`
   * of `consumerGroup` and relays its answer (what `mqadmin consumerStatus` does). `timeoutMs` bounds the
   * wait for a client that does not answer (default: the admin timeout).
   */
  async getConsumerRunningInfo(
    address: string,
    header: GetConsumerRunningInfoRequestHeader,
    options: { timeoutMs?: number | undefined } = {},
  ): Promise<ReturnType<typeof parseConsumerRunningInfo>> {
    const request = { code: RequestCode.GET_CONSUMER_RUNNING_INFO, extFields: toExtFields(header) };
    const response = expectSuccess(
      await this.transport.request(address, request, options.timeoutMs ?? this.timeoutMs),
      request,
      address,
    );
    return parseConsumerRunningInfo(response.body);
  }
}
