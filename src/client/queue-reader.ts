/**
 * Reading the messages of one queue from an offset, without a consumer: no heartbeat, no rebalance, no
 * long polling and nothing committed. For tools that look at a queue (the message at a committed offset,
 * the content of a DLQ) and must leave every group's position exactly where it was.
 *
 * API:
 * - `new QueueReader({ client, consumerGroup })`: `client` gives the name server and the broker calls
 *   (a {@link RocketMQClient} does); `consumerGroup` is the group the broker sees pulling (it checks the
 *   group's subscription config; with the broker's default `autoCreateSubscriptionGroup` any name works,
 *   nothing of that group's offsets changes).
 * - `reader.queues(topic)`: every queue of the topic's route (ids `0..readQueueNums-1` per broker group),
 *   each with `readable` (the route's READ permission); throws BrokerError TOPIC_NOT_EXIST
 *   (`retriable: false`) when no name server knows the topic.
 * - `reader.read(queue, offset, { maxMessages })`: one PULL_MESSAGE (no SUSPEND bit, so it answers at
 *   once; no COMMIT_OFFSET bit; SUBSCRIPTION `*`) to the master of the queue's broker group. Resolves to
 *   `{ status, messages, nextOffset, minOffset, maxOffset }`: status `FOUND` (messages from `offset`
 *   on), `NO_NEW_MSG` (`offset` is the queue's end), `NO_MATCHED_MSG` (rare with `*`; read on at
 *   `nextOffset`) or `OFFSET_ILLEGAL` (`offset` is outside `[minOffset, maxOffset]`; `nextOffset` is the
 *   broker's suggestion where to read instead). Other refusals are BrokerErrors (NO_PERMISSION: the topic
 *   is not readable, `permanent`); a route without a master for the broker group is looked up again once.
 * - `reader.readAt(queue, offset)`: the one message stored at `offset`, or undefined when there is none.
 * - `reader.masterAddress(queue)`: the master of the queue's broker group (for offset queries/updates).
 */

import { RocketMQError } from '../errors.js';
import type { MessageExt } from '../protocol/message.js';
import type { TooLargeMessage } from '../protocol/message-decoder.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { compareMessageQueues } from '../protocol/message-queue.js';
import { masterAddress, PermName, type TopicRouteData } from '../protocol/route-data.js';
import type { BrokerClient } from './broker-client.js';
import type { NameServerClient } from './name-server-client.js';
import { NoMasterError } from './no-master-error.js';
import type { PullResult } from './pull-result.js';
import { readOnlyPullHeader } from './read-only-pull-header.js';

/** Messages per PULL_MESSAGE unless the caller asks otherwise (Java's `pullBatchSize`). */
export const DEFAULT_READ_BATCH = 32;
/** Most messages one read asks for: the broker caps a pull by its own limits anyway. */
export const MAX_READ_BATCH = 1024;
/** RPC timeout of a read: a pull without SUSPEND is answered at once. */
const READ_TIMEOUT_MS = 10_000;

/**
 * What {@link QueueReader} needs of a client ({@link RocketMQClient} has both).
 */
export interface QueueReaderClient {
  nameServer: Pick<NameServerClient, 'getRoute'>;
  broker: Pick<BrokerClient, 'pullMessage'>;
}

/**
 * Options of {@link QueueReader}.
 */
export interface QueueReaderOptions {
  client: QueueReaderClient;
  /** The group named in the pull requests. Nothing is committed for it. */
  consumerGroup: string;
}

/**
 * One queue of a topic's route and whether the route lets clients read it.
 */
export interface RoutedQueue {
  queue: MessageQueue;
  /** The queue data's READ permission bit (a pull of an unreadable topic is refused with NO_PERMISSION). */
  readable: boolean;
}

/**
 * The outcome of one {@link QueueReader.read}.
 */
export interface QueueReadResult {
  status: PullResult['status'];
  /** Empty unless `status` is FOUND. */
  messages: MessageExt[];
  /** Where the next read starts; for OFFSET_ILLEGAL the broker's suggestion. */
  nextOffset: number;
  /** The smallest offset the queue still stores. */
  minOffset: number;
  /** The offset the next message written to the queue gets (the queue's end). */
  maxOffset: number;
  /** Set when the pull body held a malformed record: `messages` are the records before it. */
  decodeError?: Error | undefined;
  /**
   * Messages of the read whose body would inflate past the decoder's limit: not in `messages`, body empty,
   * each with its stored (compressed) body. A reader that pages on must not pass them by unseen.
   */
  tooLarge?: TooLargeMessage[] | undefined;
}

/**
 * Reads queues by offset without a consumer (see the file header for the API).
 */
export class QueueReader {
  readonly #client: QueueReaderClient;
  readonly #consumerGroup: string;

  constructor(options: QueueReaderOptions) {
    this.#client = options.client;
    this.#consumerGroup = options.consumerGroup;
  }

  /** Every queue of the topic's route, sorted like Java's `MessageQueue.compareTo`. */
  async queues(topic: string): Promise<RoutedQueue[]> {
    const route = await this.#client.nameServer.getRoute(topic, { refresh: true });
    const queues = new Map<string, RoutedQueue>();
    for (const qd of route.queueDatas) {
      const readable = (qd.perm & PermName.READ) !== 0;
      for (let queueId = 0; queueId < qd.readQueueNums; queueId++) {
        queues.set(`${qd.brokerName}@${queueId}`, {
          queue: { topic, brokerName: qd.brokerName, queueId },
          readable,
        });
      }
    }
    return [...queues.values()].sort((a, b) => compareMessageQueues(a.queue, b.queue));
  }

  /** Up to `maxMessages` (default 32, at most 1024) messages of `queue` from `offset` on. */
  async read(
    queue: MessageQueue,
    offset: number,
    options: { maxMessages?: number } = {},
  ): Promise<QueueReadResult> {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new RocketMQError(`read offset ${offset} is not a non-negative integer`);
    }
    const maxMessages = Math.min(MAX_READ_BATCH, Math.max(1, options.maxMessages ?? DEFAULT_READ_BATCH));
    const address = await this.masterAddress(queue);
    const pulled = await this.#client.broker.pullMessage(
      address,
      readOnlyPullHeader({
        consumerGroup: this.#consumerGroup,
        topic: queue.topic,
        queueId: queue.queueId,
        bname: queue.brokerName,
        queueOffset: offset,
        maxMsgNums: maxMessages,
      }),
      { timeoutMs: READ_TIMEOUT_MS },
    );
    const result: QueueReadResult = {
      status: pulled.status,
      messages: pulled.status === 'FOUND' ? pulled.messages : [],
      // Past the inflation budget the records were not read: the next read starts at the first of them.
      nextOffset: (pulled.status === 'FOUND' ? pulled.deferredFrom : undefined) ?? pulled.nextBeginOffset,
      minOffset: pulled.minOffset,
      maxOffset: pulled.maxOffset,
    };
    if (pulled.status === 'FOUND' && pulled.decodeError !== undefined)
      result.decodeError = pulled.decodeError;
    if (pulled.status === 'FOUND' && pulled.tooLarge !== undefined) result.tooLarge = pulled.tooLarge;
    return result;
  }

  /**
   * The message stored at `offset` of `queue` (one too large to inflate comes with an empty body), or
   * undefined when the queue has none there.
   */
  async readAt(queue: MessageQueue, offset: number): Promise<MessageExt | undefined> {
    const result = await this.read(queue, offset, { maxMessages: 1 });
    const tooLarge = result.tooLarge?.map((entry) => entry.message) ?? [];
    return [...result.messages, ...tooLarge].find((message) => message.queueOffset === offset);
  }

  /**
   * The master of the queue's broker group (where reads go, and where a group's offset of the queue is
   * queried and updated); the route is looked up again once when the cached one has no master.
   */
  async masterAddress(queue: MessageQueue): Promise<string> {
    const cached = findMaster(await this.#client.nameServer.getRoute(queue.topic), queue.brokerName);
    if (cached !== undefined) return cached;
    // A master may have been elected since the route was cached.
    const fresh = await this.#client.nameServer.getRoute(queue.topic, { refresh: true });
    const address = findMaster(fresh, queue.brokerName);
    if (address === undefined) {
      throw new NoMasterError(queue.brokerName, queue.topic);
    }
    return address;
  }
}

function findMaster(route: TopicRouteData, brokerName: string): string | undefined {
  const brokerData = route.brokerDatas.find((bd) => bd.brokerName === brokerName);
  return brokerData === undefined ? undefined : masterAddress(brokerData);
}
