/**
 * Broker calls of a consumer and a producer, one method per request code. Every method takes the
 * broker's address first, checks the response code with {@link expectSuccess} and returns typed data.
 */

import { RocketMQError } from '../errors.js';
import type { RemotingRequest } from '../network/connection.js';
import {
  type CheckClientRequestBody,
  encodeCheckClientRequestBody,
  encodeHeartbeatData,
  encodeLockBatchRequestBody,
  type HeartbeatData,
  type LockBatchRequestBody,
  parseConsumerListBody,
  parseLockBatchResponseBody,
} from '../protocol/bodies.js';
import { type ConsumerConnection, parseConsumerConnection } from '../protocol/consumer-connection.js';
import { type ConsumerOffsetTable, parseConsumerOffsetTable } from '../protocol/consumer-offset-table.js';
import { parseOffsetResponseHeader } from '../protocol/header-parsers.js';
import {
  type ConsumerSendMsgBackRequestHeader,
  type GetConsumerConnectionListRequestHeader,
  type GetConsumerListByGroupRequestHeader,
  type GetMaxOffsetRequestHeader,
  type GetMinOffsetRequestHeader,
  type PullMessageRequestHeader,
  type QueryConsumerOffsetRequestHeader,
  type SearchOffsetRequestHeader,
  type SendMessageRequestHeader,
  toSendMessageV2ExtFields,
  type UnregisterClientRequestHeader,
  type UpdateConsumerOffsetRequestHeader,
} from '../protocol/headers.js';
import type { DecodeOptions } from '../protocol/message-decoder.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { isVersionCodeBefore5, type MQVersionCode } from '../protocol/mq-version.js';
import { toExtFields } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { expectSuccess } from './broker-error.js';
import { refineNearestOffset } from './nearest-offset-refinement.js';
import type { PullFrameTemplate } from './pull-frame-template.js';
import { type PullResult, toPullResult } from './pull-result.js';
import { readOnlyPullHeader } from './read-only-pull-header.js';
import { type BrokerSendResult, toSendResult } from './send-result.js';
import type { RemotingTransport } from './transport.js';

/**
 * RPC timeouts, Java's defaults.
 */
export interface BrokerTimeouts {
  /** Heartbeat, unregister, consumer list. @default 3000 */
  defaultMs: number;
  /** Pull RPC; must exceed the broker suspend time. @default 30000 */
  pullMs: number;
  /** CONSUMER_SEND_MSG_BACK. @default 5000 */
  sendBackMs: number;
  /** LOCK_BATCH_MQ / UNLOCK_BATCH_MQ. @default 1000 */
  lockMs: number;
  /** Offset queries and updates. @default 5000 */
  offsetMs: number;
  /** Sends. @default 3000 */
  sendMs: number;
}

/**
 * Java's RPC timeouts.
 */
export const DEFAULT_BROKER_TIMEOUTS: Readonly<BrokerTimeouts> = {
  defaultMs: 3000,
  pullMs: 30_000,
  sendBackMs: 5000,
  lockMs: 1000,
  offsetMs: 5000,
  sendMs: 3000,
};

/**
 * What QUERY_CONSUMER_OFFSET answered.
 */
export interface ConsumerOffsetAnswer {
  /** The stored offset, or undefined on QUERY_NOT_FOUND. */
  offset: number | undefined;
  /** The answering broker's version code ({@link MQVersionCode}); 0 when it did not say. */
  brokerVersion: number;
}

/**
 * What {@link BrokerClient.firstOffsetAtOrAfter} looks for: SEARCH_OFFSET_BY_TIMESTAMP's header without
 * a boundary (the first message is wanted), and the group that reads around a 4.x broker's answer.
 */
export type TimeSearchRequest = Omit<SearchOffsetRequestHeader, 'boundaryType'> & {
  /** The group named in the reads that refine a 4.x broker's answer; nothing is committed for it. */
  consumerGroup: string;
};

/**
 * Options of {@link BrokerClient}.
 */
export interface BrokerClientOptions {
  transport: RemotingTransport;
  timeouts?: Partial<BrokerTimeouts> | undefined;
}

/**
 * Typed broker calls over a {@link RemotingTransport}.
 */
export class BrokerClient {
  readonly timeouts: Readonly<BrokerTimeouts>;
  private readonly transport: RemotingTransport;

  constructor(options: BrokerClientOptions) {
    this.transport = options.transport;
    this.timeouts = { ...DEFAULT_BROKER_TIMEOUTS, ...options.timeouts };
  }

  /** HEART_BEAT (34): registers producer/consumer groups and subscriptions. */
  async heartbeat(address: string, data: HeartbeatData): Promise<void> {
    await this.call(address, RequestCode.HEART_BEAT, {}, this.timeouts.defaultMs, encodeHeartbeatData(data));
  }

  /** UNREGISTER_CLIENT (35): removes this client from the given groups. */
  async unregisterClient(address: string, header: UnregisterClientRequestHeader): Promise<void> {
    await this.call(address, RequestCode.UNREGISTER_CLIENT, toExtFields(header), this.timeouts.defaultMs);
  }

  /**
   * GET_CONSUMER_LIST_BY_GROUP (38): the client ids of the group's live consumers. A broker that knows no
   * consumer of the group answers SYSTEM_ERROR, which surfaces as a retriable {@link BrokerError}.
   */
  async getConsumerListByGroup(address: string, consumerGroup: string): Promise<string[]> {
    const header: GetConsumerListByGroupRequestHeader = { consumerGroup };
    const response = await this.call(
      address,
      RequestCode.GET_CONSUMER_LIST_BY_GROUP,
      toExtFields(header),
      this.timeouts.defaultMs,
    );
    return parseConsumerListBody(response.body);
  }

  /**
   * GET_CONSUMER_CONNECTION_LIST (203), an admin read: the group's clients connected to this broker, with
   * their address, language and version, and the group's consume type, message model and subscriptions
   * (`mqadmin consumerConnection`). A broker with no client of the group answers CONSUMER_NOT_ONLINE
   * (206), a {@link BrokerError}.
   */
  async getConsumerConnectionList(
    address: string,
    consumerGroup: string,
    options: { timeoutMs?: number | undefined } = {},
  ): Promise<ConsumerConnection> {
    const header: GetConsumerConnectionListRequestHeader = { consumerGroup };
    const response = await this.call(
      address,
      RequestCode.GET_CONSUMER_CONNECTION_LIST,
      toExtFields(header),
      options.timeoutMs ?? this.timeouts.defaultMs,
    );
    return parseConsumerConnection(response.body);
  }

  /**
   * PULL_MESSAGE (11). With the SUSPEND bit the broker holds the request up to `suspendTimeoutMillis`
   * (default 15 s) while the queue has nothing new; the RPC timeout defaults to 30 s. `template`: the
   * {@link PullFrameTemplate} of a loop that pulls the same queue again and again; the frame is made
   * from it when the header {@link PullFrameTemplate.fits | fits} it (the same request, encoded faster).
   */
  async pullMessage(
    address: string,
    header: PullMessageRequestHeader,
    options: {
      timeoutMs?: number;
      template?: PullFrameTemplate | undefined;
      /** Inflation limits of the body's messages (message-decoder.ts). @default the decoder's */
      decode?: DecodeOptions | undefined;
    } = {},
  ): Promise<PullResult> {
    const timeoutMs = options.timeoutMs ?? this.timeouts.pullMs;
    if (timeoutMs <= header.suspendTimeoutMillis) {
      throw new RocketMQError(
        `pull timeoutMs ${timeoutMs} must exceed suspendTimeoutMillis ${header.suspendTimeoutMillis}`,
      );
    }
    const template = options.template;
    const request: RemotingRequest =
      template?.fits(header) === true
        ? template.request(header)
        : { code: RequestCode.PULL_MESSAGE, extFields: toExtFields(header) };
    const response = await this.transport.request(address, request, timeoutMs);
    return toPullResult(response, address, options.decode);
  }

  /** CONSUMER_SEND_MSG_BACK (36): re-deliver later via `%RETRY%<group>`, or to `%DLQ%<group>`. */
  async consumerSendMsgBack(address: string, header: ConsumerSendMsgBackRequestHeader): Promise<void> {
    await this.call(
      address,
      RequestCode.CONSUMER_SEND_MSG_BACK,
      toExtFields(header),
      this.timeouts.sendBackMs,
    );
  }

  /** LOCK_BATCH_MQ (41): returns the subset of `mqSet` this client now holds. */
  async lockBatchMQ(address: string, body: LockBatchRequestBody): Promise<MessageQueue[]> {
    const response = await this.call(
      address,
      RequestCode.LOCK_BATCH_MQ,
      {},
      this.timeouts.lockMs,
      encodeLockBatchRequestBody(body),
    );
    return parseLockBatchResponseBody(response.body);
  }

  /** UNLOCK_BATCH_MQ (42), waiting for the broker's answer. */
  async unlockBatchMQ(address: string, body: LockBatchRequestBody): Promise<void> {
    await this.call(
      address,
      RequestCode.UNLOCK_BATCH_MQ,
      {},
      this.timeouts.lockMs,
      encodeLockBatchRequestBody(body),
    );
  }

  /** UNLOCK_BATCH_MQ (42), oneway: resolves once the frame is written. */
  async unlockBatchMQOneway(address: string, body: LockBatchRequestBody): Promise<void> {
    await this.transport.oneway(address, {
      code: RequestCode.UNLOCK_BATCH_MQ,
      extFields: {},
      body: encodeLockBatchRequestBody(body),
    });
  }

  /** GET_MAX_OFFSET (30): the next offset to be written in the queue. */
  async getMaxOffset(address: string, header: GetMaxOffsetRequestHeader): Promise<number> {
    return this.offsetCall(
      address,
      RequestCode.GET_MAX_OFFSET,
      { committed: true, ...header },
      'GET_MAX_OFFSET',
    );
  }

  /** GET_MIN_OFFSET (31): the smallest offset still stored in the queue. */
  async getMinOffset(address: string, header: GetMinOffsetRequestHeader): Promise<number> {
    return this.offsetCall(address, RequestCode.GET_MIN_OFFSET, header, 'GET_MIN_OFFSET');
  }

  /**
   * SEARCH_OFFSET_BY_TIMESTAMP (29), the broker's answer as it is: on 5.x the offset of the first (LOWER,
   * the default) / last (UPPER) message at `timestamp`; a broker before 5.0 ignores the boundary and answers
   * the message stored nearest the time. To position a queue use {@link firstOffsetAtOrAfter}.
   */
  async searchOffsetByTimestamp(address: string, header: SearchOffsetRequestHeader): Promise<number> {
    return this.offsetCall(
      address,
      RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      header,
      'SEARCH_OFFSET_BY_TIMESTAMP',
    );
  }

  /**
   * The offset of the first message of the queue stored at or after `request.timestamp`, or the queue's
   * max offset when every message is older, whatever the broker's version. A 5.x broker's
   * SEARCH_OFFSET_BY_TIMESTAMP answers exactly that. A broker before 5.0 answers the message stored
   * nearest the time, so its answer is refined by reading the store times of the messages around it
   * (PULL_MESSAGE of one message as `request.consumerGroup`, without commit or suspend): a few reads more.
   */
  async firstOffsetAtOrAfter(address: string, request: TimeSearchRequest): Promise<number> {
    const { consumerGroup, ...header } = request;
    const response = await this.call(
      address,
      RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      toExtFields(header),
      this.timeouts.offsetMs,
    );
    const searched = parseOffsetResponseHeader(response.extFields, 'SEARCH_OFFSET_BY_TIMESTAMP').offset;
    if (!isVersionCodeBefore5(response.version)) return searched;
    const { topic, queueId, bname } = header;
    const readOneAt = (queueOffset: number) =>
      this.pullMessage(
        address,
        readOnlyPullHeader({ consumerGroup, topic, queueId, bname, queueOffset, maxMsgNums: 1 }),
        { timeoutMs: this.timeouts.offsetMs },
      );
    return refineNearestOffset(readOneAt, searched, header.timestamp);
  }

  /**
   * QUERY_CONSUMER_OFFSET (14): the group's stored offset, or `undefined` on QUERY_NOT_FOUND. A broker
   * before 5.0 ignores `setZeroIfNotFound` and may answer 0 for a group without an offset: see
   * {@link queryConsumerOffsetAnswer}.
   */
  async queryConsumerOffset(
    address: string,
    header: QueryConsumerOffsetRequestHeader,
  ): Promise<number | undefined> {
    return (await this.queryConsumerOffsetAnswer(address, header)).offset;
  }

  /**
   * QUERY_CONSUMER_OFFSET (14) with the answering broker's version code (the response's `version`,
   * {@link MQVersionCode}), which says whether a 0 may stand for "no offset" (a broker before 5.0).
   */
  async queryConsumerOffsetAnswer(
    address: string,
    header: QueryConsumerOffsetRequestHeader,
  ): Promise<ConsumerOffsetAnswer> {
    const request = { code: RequestCode.QUERY_CONSUMER_OFFSET, extFields: toExtFields(header) };
    const response = expectSuccess(
      await this.transport.request(address, request, this.timeouts.offsetMs),
      request,
      address,
      [ResponseCode.SUCCESS, ResponseCode.QUERY_NOT_FOUND],
    );
    const offset =
      response.code === ResponseCode.QUERY_NOT_FOUND
        ? undefined
        : parseOffsetResponseHeader(response.extFields, 'QUERY_CONSUMER_OFFSET').offset;
    return { offset, brokerVersion: response.version };
  }

  /**
   * GET_ALL_CONSUMER_OFFSET (43): every group's committed offsets on the broker, whose absence for a
   * queue means the group never committed there. The body holds the broker's whole table: ask only when
   * QUERY_CONSUMER_OFFSET cannot tell.
   */
  async getAllConsumerOffset(address: string): Promise<ConsumerOffsetTable> {
    const response = await this.call(
      address,
      RequestCode.GET_ALL_CONSUMER_OFFSET,
      {},
      this.timeouts.offsetMs,
    );
    return parseConsumerOffsetTable(response.body);
  }

  /** UPDATE_CONSUMER_OFFSET (15), waiting for the broker's answer. */
  async updateConsumerOffset(address: string, header: UpdateConsumerOffsetRequestHeader): Promise<void> {
    await this.call(address, RequestCode.UPDATE_CONSUMER_OFFSET, toExtFields(header), this.timeouts.offsetMs);
  }

  /** UPDATE_CONSUMER_OFFSET (15), oneway (what Java's 5 s persist task sends). */
  async updateConsumerOffsetOneway(
    address: string,
    header: UpdateConsumerOffsetRequestHeader,
  ): Promise<void> {
    await this.transport.oneway(address, {
      code: RequestCode.UPDATE_CONSUMER_OFFSET,
      extFields: toExtFields(header),
    });
  }

  /** SEND_MESSAGE_V2 (310): one message; `body` is the (possibly compressed) message body. */
  async sendMessage(
    address: string,
    header: SendMessageRequestHeader,
    body: Buffer,
  ): Promise<BrokerSendResult> {
    const request = { code: RequestCode.SEND_MESSAGE_V2, extFields: toSendMessageV2ExtFields(header), body };
    return toSendResult(
      await this.transport.request(address, request, this.timeouts.sendMs),
      request,
      address,
    );
  }

  /** SEND_BATCH_MESSAGE (320) with header `m=true`; `body` is the batch encoding of the messages. */
  async sendBatchMessage(
    address: string,
    header: SendMessageRequestHeader,
    body: Buffer,
  ): Promise<BrokerSendResult> {
    const extFields = toSendMessageV2ExtFields({ ...header, batch: true });
    const request = { code: RequestCode.SEND_BATCH_MESSAGE, extFields, body };
    return toSendResult(
      await this.transport.request(address, request, this.timeouts.sendMs),
      request,
      address,
    );
  }

  /**
   * CHECK_CLIENT_CONFIG (46): asks the broker to compile a subscription's filter. Resolves for a TAG
   * subscription or a filter that compiles; a filter that does not throws a {@link BrokerError} with
   * code SUBSCRIPTION_PARSE_FAILED and the compiler's message as remark; a broker without
   * `enablePropertyFilter` answers SYSTEM_ERROR for any SQL92 filter.
   */
  async checkClientConfig(address: string, body: CheckClientRequestBody): Promise<void> {
    await this.call(
      address,
      RequestCode.CHECK_CLIENT_CONFIG,
      {},
      this.timeouts.defaultMs,
      encodeCheckClientRequestBody(body),
    );
  }

  private async offsetCall(address: string, code: number, header: object, name: string): Promise<number> {
    const response = await this.call(address, code, toExtFields(header), this.timeouts.offsetMs);
    return parseOffsetResponseHeader(response.extFields, name).offset;
  }

  private async call(
    address: string,
    code: number,
    extFields: Record<string, string>,
    timeoutMs: number,
    body?: Buffer,
  ) {
    const request = body === undefined ? { code, extFields } : { code, extFields, body };
    return expectSuccess(await this.transport.request(address, request, timeoutMs), request, address);
  }
}
