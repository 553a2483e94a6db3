/**
 * Where a POP mapping's consumption stands, queue by queue (queue-position.ts). A POP group's position
 * is the broker's, not the offset store's: the group's consumer offset of each queue at its master, which
 * the broker moves when messages are popped (docs/protocol.md, POP consumption). So the lag is the max
 * offset minus that consumer offset (what no poller has taken yet), measured as the pollers measure it
 * (measurePopBacklog, popLag); no poller holds a queue, so there is no holder, generation or commit time.
 * Beside the queues: how many pollers of the group the brokers know (GET_CONSUMER_LIST_BY_GROUP). After
 * them, the queues of the group's POP retry topic (`%RETRY%<group>_<topic>`) at each master that has one:
 * failed messages waiting for their next delivery, backlog all the same (pop-backlog.ts says why and how).
 *
 * Read-only, and failures are reported, not thrown (`brokerError`).
 */
import type { BrokerClient } from '../client/broker-client.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { QueueReader } from '../client/queue-reader.js';
import { measurePopBacklog } from '../consumer/pop/pop-backlog.js';
import { popLag } from '../metrics/queue-lag.js';
import { masterAddress, readableQueues, type TopicRouteData } from '../protocol/route-data.js';
import { brokerProblemOf } from './broker-problem.js';
import {
  FirstBrokerProblem,
  type MappingPositions,
  oldestUnconsumedAt,
  type QueuePosition,
  queueLabel,
  type ReadPositionsOptions,
} from './queue-position.js';
import { runningPollers } from './running-pollers.js';
import type { TargetMapping } from './target.js';

/** What {@link readPopQueuePositions} needs of a client (a `RocketMQClient` has it all). */
export interface PopPositionsClient {
  readonly nameServer: Pick<NameServerClient, 'getRoute'>;
  readonly broker: Pick<
    BrokerClient,
    'getMaxOffset' | 'getMinOffset' | 'queryConsumerOffset' | 'getConsumerListByGroup' | 'pullMessage'
  >;
}

/**
 * Reads every readable queue of the POP `mapping`'s topic at its master, and the group's POP retry queue
 * at each master that has one: min/max offsets and the group's consumer offset (and the lag, with
 * measurePopBacklog), the store time of the first message not popped of each lagging queue, and the
 * group's registered pollers.
 */
export async function readPopQueuePositions(
  client: PopPositionsClient,
  mapping: TargetMapping,
  options: Pick<ReadPositionsOptions, 'messageAges'> = {},
): Promise<MappingPositions> {
  let route: TopicRouteData;
  try {
    route = await client.nameServer.getRoute(mapping.topic, { refresh: true });
  } catch (error) {
    const problem = brokerProblemOf(error, {
      what: `the route of topic ${mapping.topic}`,
      topic: mapping.topic,
    });
    return {
      mapping,
      queues: [],
      pollers: undefined,
      brokerError: problem.message,
      brokerErrorKind: problem.kind,
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
  const problem = new FirstBrokerProblem();
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
  // The lag of each queue as the pollers measure it (metrics/queue-lag.ts): the same rule, the same rows.
  const lags = popLag(mapping, backlog).queues;
  const queues = await Promise.all(
    lags.map(async ({ queue, retry, maxOffset, consumedOffset, lag, error }): Promise<QueuePosition> => {
      if (error !== undefined) problem.noteText(`${queueLabel(queue)}: ${error}`);
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
          problem.note(
            brokerProblemOf(failure, {
              what: queueLabel(queue),
              topic: queue.topic,
              group: mapping.consumerGroup,
            }),
          );
        }
      }
      const consumerOffset =
        address === undefined ? undefined : stored.get(storedKey(address, queue.topic, queue.queueId));
      let oldestUnconsumedAtMs: number | undefined;
      if ((options.messageAges ?? true) && lag !== undefined && lag > 0 && consumedOffset !== undefined) {
        const oldest = await oldestUnconsumedAt(reader, queue, consumedOffset, minOffset);
        oldestUnconsumedAtMs = oldest.atMs;
        problem.noteText(oldest.error);
      }
      return {
        queue,
        retry,
        minOffset,
        maxOffset,
        consumerOffset,
        resumeOffset: consumedOffset,
        lag,
        oldestUnconsumedAtMs,
      };
    }),
  );
  if (running !== undefined && 'unknown' in running) {
    problem.noteText(`the pollers of group ${mapping.consumerGroup}: ${running.unknown}`);
  }
  return {
    mapping,
    queues,
    pollers: running !== undefined && 'ids' in running ? running.ids.length : undefined,
    ...problem.fields(),
  };
}

/** One queue at one master: of the mapping's topic or of its POP retry topic. */
function storedKey(address: string, topic: string, queueId: number): string {
  return `${address}#${topic}#${queueId}`;
}
