/**
 * A small producer: round-robin over the topic's writable queues, UNIQ_KEY and WAIT on every message,
 * zlib for large bodies, retries on other queues for retriable errors. Used by tests, the demo and
 * the DLQ / retry fallback paths; not a full-featured Java `DefaultMQProducer`.
 */

import { RocketMQError } from '../errors.js';
import { CompressionType, compressZlib } from '../protocol/compression.js';
import { MAX_HEADER_BYTES } from '../protocol/header-limits.js';
import type { SendMessageRequestHeader } from '../protocol/headers.js';
import { javaStringHashCode } from '../protocol/java-hash.js';
import { type Message, MessageConst } from '../protocol/message.js';
import { encodeBatchBody } from '../protocol/message-encoder.js';
import { createUniqueId } from '../protocol/message-id.js';
import { encodeProperties } from '../protocol/message-properties.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { withCompression } from '../protocol/message-sys-flag.js';
import { ResponseCode } from '../protocol/response-code.js';
import { masterAddress, type TopicRouteData, writableQueues } from '../protocol/route-data.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { DEFAULT_TEMPLATE_TOPIC } from './admin-client.js';
import type { BrokerClient } from './broker-client.js';
import { BrokerError } from './broker-error.js';
import type { NameServerClient } from './name-server-client.js';
import type { SendStatus } from './send-result.js';

/**
 * Our producer group when none is given (Java's inner one is `CLIENT_INNER_PRODUCER`).
 */
export const DEFAULT_PRODUCER_GROUP = 'ROCKETMQ_LAMBDA_PRODUCER';
/**
 * Bodies of at least this many bytes are zlib-compressed (Java `compressMsgBodyOverHowmuch`).
 */
export const DEFAULT_COMPRESS_OVER_BYTES = 4096;
/**
 * Java's default zlib level for message bodies.
 */
export const DEFAULT_COMPRESS_LEVEL = 5;
/**
 * The broker's default `maxMessageSize`.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/**
 * Extra attempts on other queues after a retriable failure.
 */
export const DEFAULT_RETRIES = 2;
/**
 * Queues an auto-created topic gets (Java producer `defaultTopicQueueNums`).
 */
export const DEFAULT_TOPIC_QUEUE_NUMS = 4;
/**
 * What one message of a batch adds, at worst, to the header of the broker's answer: its `msgId` lists
 * the offset message id of every stored message, each the hex of the store host's address, port and
 * commit-log offset, comma-separated (RocketMQ's CommitLog builds it): 33 bytes on an IPv4 broker, 57 on
 * an IPv6 one (16 + 4 + 8 bytes, 56 hex digits and a comma), which we cannot know before it answers.
 */
export const BATCH_ANSWER_BYTES_PER_MESSAGE = (16 + 4 + 8) * 2 + 1;
/** Room kept in a batch answer's header for its fields besides `msgId` (a few dozen bytes in practice). */
const BATCH_ANSWER_OTHER_BYTES = 4096;
/**
 * Most messages one batch send may hold: the broker's answer to more could pass the cap on incoming
 * headers (MAX_HEADER_BYTES, header-limits.ts). The broker would store such a batch and we would refuse
 * its answer, so the send would fail and its retries store the messages again.
 */
export const MAX_BATCH_MESSAGES = Math.floor(
  (MAX_HEADER_BYTES - BATCH_ANSWER_OTHER_BYTES) / BATCH_ANSWER_BYTES_PER_MESSAGE,
);

/**
 * One message to send.
 *
 * @example
 * ```ts
 * const message: ProducerMessage = { topic: 'T', body: 'hi', tags: 'TagA', keys: ['k1'], properties: { a: 'b' } };
 * ```
 */
export interface ProducerMessage {
  topic: string;
  body: Buffer | string;
  tags?: string | undefined;
  /** Business keys (stored space-separated in KEYS). */
  keys?: readonly string[] | string | undefined;
  /** User properties. */
  properties?: Readonly<Record<string, string>> | undefined;
  /** User int flag. */
  flag?: number | undefined;
  /** Broker delay level (1 = 1 s, 2 = 5 s, ...). */
  delayLevel?: number | undefined;
  /**
   * The message id (UNIQ_KEY) to send under: a resend of a consumed message keeps its id, as Java's
   * producer keeps an id already set. @default a new id
   */
  uniqueKey?: string | undefined;
  /**
   * A body already compressed, sent as it is with its compression flag, never inflated here: a message
   * too large to inflate (a dead letter redriven) resent exactly as it was stored. `body` must then be
   * empty.
   */
  compressedBody?: { readonly bytes: Buffer; readonly compression: CompressionType } | undefined;
}

/**
 * The result of a send.
 *
 * @example
 * ```ts
 * const { msgId, queueId, queueOffset }: SendResult = await producer.send({ topic: 'T', body: 'hi' });
 * ```
 */
export interface SendResult {
  status: SendStatus;
  /** The client id (UNIQ_KEY) of the message; for batches, the messages' ids joined with commas (as Java). */
  msgId: string;
  /** The broker's offset message id; for batches, a comma-separated list. */
  offsetMsgId: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
}

/**
 * The result of a batch send.
 *
 * @example
 * ```ts
 * const { msgIds } = await producer.sendBatch([{ topic: 'T', body: 'a' }, { topic: 'T', body: 'b' }]);
 * ```
 */
export interface SendBatchResult extends SendResult {
  /** UNIQ_KEY of each message, in order. */
  msgIds: string[];
}

/**
 * Options of {@link Producer}.
 *
 * @example
 * ```ts
 * new Producer({ client, producerGroup: 'my-dlq-producer', retries: 0 });
 * ```
 */
export interface ProducerOptions {
  /** The name server and broker calls to use (a `RocketMQClient` has both). */
  client: { nameServer: NameServerClient; broker: BrokerClient };
  /** @default 'ROCKETMQ_LAMBDA_PRODUCER' */
  producerGroup?: string | undefined;
  /** @default 4096 */
  compressOverBytes?: number | undefined;
  /** @default 5 */
  compressLevel?: number | undefined;
  /** @default 4 MiB */
  maxMessageBytes?: number | undefined;
  /** @default 2 */
  retries?: number | undefined;
  logger?: Logger | undefined;
}

/**
 * Sends messages through SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE.
 *
 * @example
 * ```ts
 * const producer = new Producer({ client });
 * await producer.start();
 * const result = await producer.send({ topic: 'T', body: 'hello', tags: 'TagA', keys: ['order-1'] });
 * await producer.shutdown();
 * ```
 */
export class Producer {
  readonly producerGroup: string;
  private readonly client: ProducerOptions['client'];
  private readonly compressOverBytes: number;
  private readonly compressLevel: number;
  private readonly maxMessageBytes: number;
  private readonly retries: number;
  private readonly log: Logger;
  private readonly nextQueueIndex = new Map<string, number>();
  private running = false;

  constructor(options: ProducerOptions) {
    this.client = options.client;
    this.producerGroup = options.producerGroup ?? DEFAULT_PRODUCER_GROUP;
    this.compressOverBytes = options.compressOverBytes ?? DEFAULT_COMPRESS_OVER_BYTES;
    this.compressLevel = options.compressLevel ?? DEFAULT_COMPRESS_LEVEL;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.retries = Math.max(0, options.retries ?? DEFAULT_RETRIES);
    this.log = componentLogger('client.producer', options.logger);
  }

  /** Allows sends. Idempotent. */
  async start(): Promise<void> {
    this.running = true;
  }

  /** Refuses further sends. Idempotent; sends in progress finish. */
  async shutdown(): Promise<void> {
    this.running = false;
  }

  /**
   * Sends one message to a writable queue chosen round-robin, or to `queueId` on the first broker that
   * offers it, or by `shardingKey`: the same key always picks the same queue while the topic's queues stay
   * the same (Java's `SelectMessageQueueByHash`, so Java producers with that selector agree). Bodies of at
   * least `compressOverBytes` go zlib-compressed.
   */
  async send(
    message: ProducerMessage,
    options: { queueId?: number | undefined; shardingKey?: string | undefined } = {},
  ): Promise<SendResult> {
    this.assertRunning();
    const body = toBuffer(message.body);
    const compressed = message.compressedBody;
    if (compressed !== undefined && body.length > 0) {
      throw new RocketMQError(`a message for topic ${message.topic} has both a body and a compressedBody`);
    }
    this.checkBodySize(compressed?.bytes ?? body, message.topic);
    const properties = this.buildProperties(message);
    const msgId = properties[MessageConst.UNIQ_KEY] as string;
    let sysFlag = 0;
    let payload = body;
    if (compressed !== undefined) {
      payload = compressed.bytes;
      sysFlag = withCompression(sysFlag, compressed.compression);
    } else if (body.length >= this.compressOverBytes) {
      payload = compressZlib(body, this.compressLevel);
      sysFlag = withCompression(sysFlag, CompressionType.ZLIB);
    }
    const header = (queue: MessageQueue): SendMessageRequestHeader => {
      const h = this.baseHeader(queue, sysFlag, message.flag ?? 0);
      const moved = moveRetryCounters(queue.topic, properties);
      h.properties = encodeProperties(moved.properties);
      if (moved.reconsumeTimes !== undefined) h.reconsumeTimes = moved.reconsumeTimes;
      if (moved.maxReconsumeTimes !== undefined) h.maxReconsumeTimes = moved.maxReconsumeTimes;
      return h;
    };
    const pick: QueuePick =
      options.shardingKey === undefined ? options.queueId : { shardingKey: options.shardingKey };
    return this.withRetries(message.topic, pick, async (queue, address) => {
      const result = await this.client.broker.sendMessage(address, header(queue), payload);
      return { ...result, msgId, brokerName: queue.brokerName };
    });
  }

  /**
   * Sends messages of one topic as one SEND_BATCH_MESSAGE (not compressed, like Java). Each message keeps
   * its own UNIQ_KEY; the batch header carries only WAIT (see the comment inside on why not a batch id).
   * Refuses more than {@link MAX_BATCH_MESSAGES} messages before sending anything.
   */
  async sendBatch(
    messages: readonly ProducerMessage[],
    options: { queueId?: number } = {},
  ): Promise<SendBatchResult> {
    this.assertRunning();
    const first = messages[0];
    if (first === undefined) throw new RocketMQError('sendBatch needs at least one message');
    if (messages.length > MAX_BATCH_MESSAGES) {
      throw new RocketMQError(
        `a batch of ${messages.length} messages is too many: the broker's answer lists an id of up to ` +
          `${BATCH_ANSWER_BYTES_PER_MESSAGE} bytes per message, which could pass the ${MAX_HEADER_BYTES}-byte ` +
          `cap on incoming headers (MAX_HEADER_BYTES) after the broker stored the batch; send at most ` +
          `${MAX_BATCH_MESSAGES} messages per batch`,
      );
    }
    const topic = first.topic;
    const encoded: Message[] = messages.map((message) => {
      if (message.topic !== topic) {
        throw new RocketMQError(`a batch holds one topic: ${message.topic} differs from ${topic}`);
      }
      if (message.delayLevel !== undefined)
        throw new RocketMQError('batch messages cannot have a delay level');
      const body = toBuffer(message.body);
      if (message.compressedBody !== undefined) {
        throw new RocketMQError(`a batch cannot carry a compressedBody (topic ${topic}): send it alone`);
      }
      this.checkBodySize(body, topic);
      return { topic, body, flag: message.flag ?? 0, properties: this.buildProperties(message) };
    });
    const msgIds = encoded.map((m) => m.properties[MessageConst.UNIQ_KEY] as string);
    const batchBody = encodeBatchBody(encoded);
    this.checkBodySize(batchBody, topic);
    // Unlike Java we give the batch itself no UNIQ_KEY: the broker appends the batch's properties to every
    // stored message, so a batch UNIQ_KEY would replace each message's own id for every consumer.
    const properties = encodeProperties({ [MessageConst.WAIT]: 'true' });
    return this.withRetries(topic, options.queueId, async (queue, address) => {
      const header = { ...this.baseHeader(queue, 0, 0), properties };
      const result = await this.client.broker.sendBatchMessage(address, header, batchBody);
      return { ...result, msgId: msgIds.join(','), msgIds, brokerName: queue.brokerName };
    });
  }

  private async withRetries<T>(
    topic: string,
    pick: QueuePick,
    attempt: (queue: MessageQueue, address: string) => Promise<T>,
  ): Promise<T> {
    let lastError: unknown;
    let refresh = false;
    for (let i = 0; i <= this.retries; i++) {
      const route = await this.route(topic, refresh);
      const { queue, address } = this.selectQueue(topic, route, pick);
      try {
        return await attempt(queue, address);
      } catch (error) {
        lastError = error;
        if (!(error instanceof RocketMQError) || !error.retriable || i === this.retries) throw error;
        refresh = error instanceof BrokerError && error.staleRoute;
        this.log.warn({ topic, queue, address, attempt: i + 1, err: error }, 'send failed, retrying');
      }
    }
    throw lastError;
  }

  /** The topic's route, or the template topic's when the topic does not exist yet (auto-create). */
  private async route(topic: string, refresh: boolean): Promise<TopicRouteData> {
    try {
      return await this.client.nameServer.getRoute(topic, { refresh });
    } catch (error) {
      if (!(error instanceof BrokerError) || error.code !== ResponseCode.TOPIC_NOT_EXIST) throw error;
      const template = await this.client.nameServer.getRoute(DEFAULT_TEMPLATE_TOPIC, { refresh });
      this.log.info({ topic }, 'topic has no route yet, sending via the auto-create template');
      return {
        ...template,
        queueDatas: template.queueDatas.map((qd) => ({
          ...qd,
          readQueueNums: Math.min(qd.readQueueNums, DEFAULT_TOPIC_QUEUE_NUMS),
          writeQueueNums: Math.min(qd.writeQueueNums, DEFAULT_TOPIC_QUEUE_NUMS),
        })),
      };
    }
  }

  private selectQueue(
    topic: string,
    route: TopicRouteData,
    pick: QueuePick,
  ): { queue: MessageQueue; address: string } {
    const queues = writableQueues(topic, route);
    let queue: MessageQueue | undefined;
    if (typeof pick === 'object') {
      queue = queues[Math.abs(javaStringHashCode(pick.shardingKey)) % Math.max(1, queues.length)];
    } else if (pick !== undefined) {
      queue = queues.find((q) => q.queueId === pick);
      if (queue === undefined) throw new RocketMQError(`topic ${topic} has no writable queue ${pick}`);
    } else {
      const index = this.nextQueueIndex.get(topic) ?? 0;
      this.nextQueueIndex.set(topic, index + 1);
      queue = queues[index % Math.max(1, queues.length)];
    }
    const brokerData = route.brokerDatas.find((bd) => bd.brokerName === queue?.brokerName);
    const address = brokerData === undefined ? undefined : masterAddress(brokerData);
    if (queue === undefined || address === undefined) {
      throw new BrokerError({
        code: ResponseCode.SERVICE_NOT_AVAILABLE,
        remark: `no writable queue with a master for topic ${topic}`,
        requestCode: 0,
        address: 'route',
      });
    }
    return { queue, address };
  }

  private baseHeader(queue: MessageQueue, sysFlag: number, flag: number): SendMessageRequestHeader {
    return {
      producerGroup: this.producerGroup,
      topic: queue.topic,
      defaultTopic: DEFAULT_TEMPLATE_TOPIC,
      defaultTopicQueueNums: DEFAULT_TOPIC_QUEUE_NUMS,
      queueId: queue.queueId,
      sysFlag,
      bornTimestamp: Date.now(),
      flag,
      reconsumeTimes: 0,
      unitMode: false,
      bname: queue.brokerName,
    };
  }

  private buildProperties(message: ProducerMessage): Record<string, string> {
    const properties: Record<string, string> = { ...message.properties };
    if (message.tags !== undefined && message.tags !== '') properties[MessageConst.TAGS] = message.tags;
    const keys = typeof message.keys === 'string' ? message.keys : message.keys?.join(' ');
    if (keys !== undefined && keys !== '') properties[MessageConst.KEYS] = keys;
    if (message.delayLevel !== undefined && message.delayLevel > 0) {
      properties[MessageConst.DELAY] = String(message.delayLevel);
    }
    properties[MessageConst.WAIT] = 'true';
    properties[MessageConst.UNIQ_KEY] = message.uniqueKey ?? createUniqueId();
    return properties;
  }

  private checkBodySize(body: Buffer, topic: string): void {
    if (body.length === 0) throw new RocketMQError(`message body for topic ${topic} is empty`);
    if (body.length > this.maxMessageBytes) {
      throw new RocketMQError(
        `message body of ${body.length} bytes for topic ${topic} exceeds maxMessageBytes ${this.maxMessageBytes}`,
      );
    }
  }

  private assertRunning(): void {
    if (!this.running) throw new RocketMQError('producer is not started (call start()) or was shut down');
  }
}

/**
 * For `%RETRY%` topics Java moves RECONSUME_TIME / MAX_RECONSUME_TIMES from the properties into the
 * header fields `reconsumeTimes` / `maxReconsumeTimes`.
 */
function moveRetryCounters(
  topic: string,
  properties: Record<string, string>,
): { properties: Record<string, string>; reconsumeTimes?: number; maxReconsumeTimes?: number } {
  if (!topic.startsWith('%RETRY%')) return { properties };
  const {
    [MessageConst.RECONSUME_TIME]: RECONSUME_TIME,
    [MessageConst.MAX_RECONSUME_TIMES]: MAX_RECONSUME_TIMES,
    ...rest
  } = properties;
  const out: { properties: Record<string, string>; reconsumeTimes?: number; maxReconsumeTimes?: number } = {
    properties: rest,
  };
  if (RECONSUME_TIME !== undefined && /^\d+$/.test(RECONSUME_TIME))
    out.reconsumeTimes = Number(RECONSUME_TIME);
  if (MAX_RECONSUME_TIMES !== undefined && /^-?\d+$/.test(MAX_RECONSUME_TIMES)) {
    out.maxReconsumeTimes = Number(MAX_RECONSUME_TIMES);
  }
  return out;
}

/** A fixed queue id, a sharding key hashed onto the queues, or round-robin (undefined). */
type QueuePick = number | { readonly shardingKey: string } | undefined;

function toBuffer(body: Buffer | string): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}
