/**
 * Where a POP mapping's consumption stands, queue by queue, as `status` prints it. A POP group's position
 * is the broker's, not the offset store's: the group's consumer offset of each queue at its master, which
 * the broker moves when messages are popped (docs/protocol.md, POP consumption). So the lag is the max
 * offset minus that consumer offset (what no poller has taken yet), measured as the pollers measure it
 * (measurePopBacklog); no poller holds a queue, so there is no holder, generation or commit time. Beside
 * the queues: how many pollers of the group the brokers know (GET_CONSUMER_LIST_BY_GROUP). After them, the
 * queues of the group's POP retry topic (`%RETRY%<group>_<topic>`) at each master that has one: failed
 * messages waiting for their next delivery, backlog all the same (pop-backlog.ts says why and how).
 *
 * Read-only, and failures are reported, not thrown (`brokerError`), as in queue-offsets.ts.
 */
import type { BrokerClient } from '../client/broker-client.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { QueueReader } from '../client/queue-reader.js';
import { measurePopBacklog } from '../consumer/pop/pop-backlog.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { masterAddress, readableQueues, type TopicRouteData } from '../protocol/route-data.js';
import { describeError } from '../util/describe-error.js';
import type { TargetMapping } from './command-target.js';
import { runningPollers } from './offset-reset-apply.js';
import { queueLabel } from './queue-offsets.js';

/**
 * One queue of a POP mapping.
 *
 * @example
 * ```ts
 * const row: PopQueueOffsets = { queue: { topic: 'Orders', brokerName: 'broker-a', queueId: 0 }, retry: false,
 *   minOffset: 0, maxOffset: 120, consumerOffset: 100, resumeOffset: 100, lag: 20,
 *   oldestUnconsumedAtMs: 1767225600000 };
 * ```
 */
export interface PopQueueOffsets {
  readonly queue: MessageQueue;
  /** A queue of the group's POP retry topic (`queue.topic` names it). */
  readonly retry: boolean;
  /** The smallest offset the broker still stores (undefined when the broker could not be asked). */
  readonly minOffset: number | undefined;
  /** The offset the queue's next message gets. */
  readonly maxOffset: number | undefined;
  /**
   * The group's consumer offset at the queue's master (QUERY_CONSUMER_OFFSET): where the next pop starts.
   * Undefined when the broker keeps none (the group never popped the queue) or could not be asked.
   */
  readonly consumerOffset: number | undefined;
  /** The consumer offset, else where the broker starts the queue (TRIM_HORIZON: min offset; LATEST: max). */
  readonly resumeOffset: number | undefined;
  /** Messages no poller has popped: the max offset minus `resumeOffset` (undefined: unknown). */
  readonly lag: number | undefined;
  /** The store time of the message at `resumeOffset` when lag > 0 (its age is the oldest not popped). */
  readonly oldestUnconsumedAtMs: number | undefined;
}

/**
 * A POP mapping's queues, its registered pollers, and what could not be read.
 *
 * @example
 * ```ts
 * const snapshot = await readPopMappingOffsets(target.client, mapping);
 * console.log(snapshot.pollers, snapshot.queues.map((q) => q.lag));
 * ```
 */
export interface PopMappingOffsets {
  readonly mapping: TargetMapping;
  readonly queues: readonly PopQueueOffsets[];
  /** The group's pollers the brokers know (0: none runs; undefined: no broker answered). */
  readonly pollers: number | undefined;
  /** Why the name server or a broker could not be asked (undefined: all answered). */
  readonly brokerError: string | undefined;
}

/** What {@link readPopMappingOffsets} needs of a client ({@link RocketMQClient} has it all). */
export interface PopOffsetsClient {
  readonly nameServer: Pick<NameServerClient, 'getRoute'>;
  readonly broker: Pick<
    BrokerClient,
    'getMaxOffset' | 'getMinOffset' | 'queryConsumerOffset' | 'getConsumerListByGroup' | 'pullMessage'
  >;
}

/** What {@link readPopMappingOffsets} reads beyond offsets. */
export interface ReadPopOffsetsOptions {
  /** Read the message at the consumer offset of lagging queues (its age). @default true */
  readonly messageAges?: boolean | undefined;
}

/**
 * Reads every readable queue of the POP `mapping`'s topic at its master, and the group's POP retry queue
 * at each master that has one: min/max offsets and the group's consumer offset (and the lag, with
 * measurePopBacklog), the store time of the first message not popped of each lagging queue, and the
 * group's registered pollers.
 *
 * @example
 * ```ts
 * const { queues, pollers } = await readPopMappingOffsets(target.client, mapping);
 * for (const q of queues) console.log(q.queue.queueId, q.consumerOffset, q.lag);
 * ```
 */
export async function readPopMappingOffsets(
  client: PopOffsetsClient,
  mapping: TargetMapping,
  options: ReadPopOffsetsOptions = {},
): Promise<PopMappingOffsets> {
  let route: TopicRouteData;
  try {
    route = await client.nameServer.getRoute(mapping.topic, { refresh: true });
  } catch (error) {
    return {
      mapping,
      queues: [],
      pollers: undefined,
      brokerError: `the route of topic ${mapping.topic}: ${describeError(error)}`,
    };
  }
  const routes = {
    readableQueues: (topic: string) => readableQueues(topic, route),
    masterAddress: (brokerName: string) => {
      const broker = route.brokerDatas.find((data) => data.brokerName === brokerName);
      return broker === undefined ? undefined : masterAddress(broker);
    },
  };
  // measurePopBacklog stands in the start position for a queue the broker keeps no offset of; the
  // operator is told which queues the group never popped, so the broker's own answers are kept here.
  // Asked with setZeroIfNotFound false: otherwise the broker answers 0 for a queue whose min offset is 0
  // and that the group never consumed, indistinguishable from a consumer offset of 0.
  const stored = new Map<string, number | undefined>();
  const broker = {
    getMaxOffset: client.broker.getMaxOffset.bind(client.broker),
    getMinOffset: client.broker.getMinOffset.bind(client.broker),
    getConsumerListByGroup: client.broker.getConsumerListByGroup.bind(client.broker),
    async queryConsumerOffset(
      address: string,
      header: Parameters<BrokerClient['queryConsumerOffset']>[1],
    ): Promise<number | undefined> {
      const offset = await client.broker.queryConsumerOffset(address, {
        ...header,
        setZeroIfNotFound: false,
      });
      stored.set(storedKey(address, header.topic, header.queueId), offset);
      return offset;
    },
  };
  const startingPosition = mapping.startingPosition === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON';
  const addresses = [
    ...new Set(
      routes
        .readableQueues(mapping.topic)
        .map((queue) => routes.masterAddress(queue.brokerName))
        .filter((address) => address !== undefined),
    ),
  ];
  const [backlog, running] = await Promise.all([
    measurePopBacklog({
      topic: mapping.topic,
      consumerGroup: mapping.consumerGroup,
      startingPosition,
      routes,
      broker,
    }),
    // measurePopBacklog counts the asking poller in (at least 1); the operator needs the brokers' own
    // count, and to know when no broker answered. A topic without a readable queue has no master to ask.
    addresses.length === 0 ? undefined : runningPollers(client.broker, mapping.consumerGroup, addresses),
  ]);
  let brokerError: string | undefined;
  // A POP retry topic lives at the masters of the topic, and the name server may not know it yet (the
  // broker registers it with its next heartbeat): its messages are read where the topic's route says.
  const retryTopics = new Set(backlog.queues.filter((q) => q.retry === true).map((q) => q.queue.topic));
  const reader = new QueueReader({
    client: {
      broker: client.broker,
      nameServer: {
        getRoute: (topic, options) =>
          retryTopics.has(topic) ? Promise.resolve(route) : client.nameServer.getRoute(topic, options),
      },
    },
    consumerGroup: mapping.consumerGroup,
  });
  const queues = await Promise.all(
    backlog.queues.map(
      async ({ queue, retry, maxOffset, consumedOffset, error }): Promise<PopQueueOffsets> => {
        if (error !== undefined) brokerError ??= `${queueLabel(queue)}: ${error}`;
        const address = routes.masterAddress(queue.brokerName);
        let minOffset: number | undefined;
        if (address !== undefined && error === undefined) {
          try {
            minOffset = await client.broker.getMinOffset(address, {
              topic: queue.topic,
              queueId: queue.queueId,
              bname: queue.brokerName,
            });
          } catch (failure) {
            brokerError ??= `${queueLabel(queue)}: ${describeError(failure)}`;
          }
        }
        const consumerOffset =
          address === undefined ? undefined : stored.get(storedKey(address, queue.topic, queue.queueId));
        const lag =
          maxOffset === undefined || consumedOffset === undefined
            ? undefined
            : Math.max(0, maxOffset - consumedOffset);
        let oldestUnconsumedAtMs: number | undefined;
        if ((options.messageAges ?? true) && lag !== undefined && lag > 0 && consumedOffset !== undefined) {
          // Below the min offset the first message not popped is the oldest still stored.
          const at = Math.max(consumedOffset, minOffset ?? consumedOffset);
          try {
            oldestUnconsumedAtMs = (await reader.readAt(queue, at))?.storeTimestamp;
          } catch (failure) {
            brokerError ??= `${queueLabel(queue)}: reading the message at offset ${at}: ${describeError(failure)}`;
          }
        }
        return {
          queue,
          retry: retry === true,
          minOffset,
          maxOffset,
          consumerOffset,
          resumeOffset: consumedOffset,
          lag,
          oldestUnconsumedAtMs,
        };
      },
    ),
  );
  if (running !== undefined && 'unknown' in running) {
    brokerError ??= `the pollers of group ${mapping.consumerGroup}: ${running.unknown}`;
  }
  return {
    mapping,
    queues,
    pollers: running !== undefined && 'ids' in running ? running.ids.length : undefined,
    brokerError,
  };
}

/** One queue at one master: of the mapping's topic or of its POP retry topic. */
function storedKey(address: string, topic: string, queueId: number): string {
  return `${address}#${topic}#${queueId}`;
}
