/**
 * The backlog of a POP consumer group: what the group has not popped yet, per readable queue of the topic,
 * and how many pollers share it. A POP poller holds no queue, so the lag of "its" queues (what a PUSH
 * poller reports) does not exist; what it can answer for is its share of the group's backlog.
 *
 * The broker keeps a POP group's position as the group's consumer offset of each queue and moves it when
 * messages are popped (not when they are acked: a popped, unacked message is tracked by its checkpoint and
 * comes back through the revive). So max offset minus consumer offset is what no poller has taken yet.
 *
 * A message whose invisible time ran out unacked (a failure: its retry delay) is written by the broker's
 * revive (`PopReviveService.reviveRetry`) to the group's POP retry topic at the same broker,
 * `%RETRY%<group>_<topic>` (`%RETRY%<group>+<topic>` with `enableRetryTopicV2`), a 1-queue topic the
 * revive creates on its first retry while committing the group's offset 0 of it (`initPopRetryOffset`).
 * The pops take it from there, so those queues are backlog too, counted with the same rule. The name
 * server learns of the retry topic only at the broker's next registration, so each master of the topic
 * is asked directly; a retry topic the group's offset is not found for was never created (no retry yet).
 */
import type { MessageQueue } from '../../protocol/message-queue.js';
import { popRetryTopic } from '../../protocol/pop-extra-info.js';
import { describeError } from '../../util/describe-error.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import type { TopicRouteTable } from '../membership/topic-route-table.js';

/**
 * The queue of a POP retry topic: the revive writes every retry to queue 0 (`PopAckConstants.retryQueueNum`
 * is 1 and no broker setting changes it).
 */
const POP_RETRY_QUEUE_ID = 0;

/**
 * The backlog of one queue; `consumedOffset` and `maxOffset` are undefined when they could not be read
 * (`error` says why).
 */
export interface PopQueueBacklog {
  readonly queue: MessageQueue;
  /** True for a queue of the group's POP retry topic: failed messages waiting for their next delivery. */
  readonly retry?: boolean | undefined;
  readonly maxOffset: number | undefined;
  readonly consumedOffset: number | undefined;
  readonly error: string | undefined;
}

/**
 * The group's backlog (the topic's queues, then the POP retry queues that exist) and the pollers
 * registered in the group (at least 1: the one asking).
 */
export interface PopBacklog {
  readonly queues: readonly PopQueueBacklog[];
  readonly pollers: number;
}

/** What {@link measurePopBacklog} reads. */
export interface PopBacklogSources {
  readonly topic: string;
  readonly consumerGroup: string;
  /** Where a group that never popped a queue starts it (the broker's rule, mirrored here). */
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
  readonly routes: Pick<TopicRouteTable, 'readableQueues' | 'masterAddress'>;
  readonly broker: Pick<
    ConsumerBrokerCalls,
    'getMaxOffset' | 'getMinOffset' | 'queryConsumerOffset' | 'getConsumerListByGroup'
  >;
}

/**
 * Reads the backlog of every readable queue of the topic at its master (the consumer offset lives
 * there), of the group's POP retry queue at each of those masters where the broker created one, and the
 * group's member count from one master. Never throws: a queue that cannot be read carries its error; a
 * member list no master answers counts as 1 (this poller: its share is then the whole).
 */
export async function measurePopBacklog(sources: PopBacklogSources): Promise<PopBacklog> {
  const queues = sources.routes.readableQueues(sources.topic) ?? [];
  const brokerNames = [...new Set(queues.map((queue) => queue.brokerName))];
  const [measured, retries, pollers] = await Promise.all([
    Promise.all(queues.map((queue) => measureQueue(sources, queue))),
    Promise.all(brokerNames.map((brokerName) => measureRetryQueues(sources, brokerName))),
    countPollers(sources, queues),
  ]);
  return { queues: [...measured, ...retries.flat()], pollers };
}

/**
 * The POP retry queues of the group at one broker group's master, both namings (a broker switched to V2
 * still drains what V1 holds), each only when the broker keeps the group's offset of it: the revive
 * commits offset 0 when it creates the retry topic, so no offset means no retry topic. When the master
 * cannot be asked the topic's own queues there already carry the error.
 */
async function measureRetryQueues(
  sources: PopBacklogSources,
  brokerName: string,
): Promise<PopQueueBacklog[]> {
  const address = sources.routes.masterAddress(brokerName);
  if (address === undefined) return [];
  const measured = await Promise.all(
    [false, true].map(async (v2): Promise<PopQueueBacklog | undefined> => {
      const queue = {
        topic: popRetryTopic(sources.topic, sources.consumerGroup, v2),
        brokerName,
        queueId: POP_RETRY_QUEUE_ID,
      };
      const at = { topic: queue.topic, queueId: queue.queueId };
      let consumedOffset: number | undefined;
      try {
        consumedOffset = await sources.broker.queryConsumerOffset(address, {
          ...at,
          consumerGroup: sources.consumerGroup,
          setZeroIfNotFound: false,
        });
      } catch {
        // The master cannot be asked: the topic's own queues there carry the error.
        return undefined;
      }
      if (consumedOffset === undefined) return undefined;
      try {
        const maxOffset = await sources.broker.getMaxOffset(address, at);
        return { queue, retry: true, maxOffset, consumedOffset, error: undefined };
      } catch (error) {
        return { queue, retry: true, maxOffset: undefined, consumedOffset, error: describeError(error) };
      }
    }),
  );
  return measured.filter((backlog) => backlog !== undefined);
}

async function measureQueue(sources: PopBacklogSources, queue: MessageQueue): Promise<PopQueueBacklog> {
  const address = sources.routes.masterAddress(queue.brokerName);
  if (address === undefined) {
    return {
      queue,
      retry: false,
      maxOffset: undefined,
      consumedOffset: undefined,
      error: `no master address for ${queue.brokerName}`,
    };
  }
  const at = { topic: queue.topic, queueId: queue.queueId };
  try {
    const [maxOffset, stored] = await Promise.all([
      sources.broker.getMaxOffset(address, at),
      // Without setZeroIfNotFound: false the broker answers 0 for a never-consumed queue whose min offset
      // is 0, and a LATEST group's untouched queue would count whole.
      sources.broker.queryConsumerOffset(address, {
        ...at,
        consumerGroup: sources.consumerGroup,
        setZeroIfNotFound: false,
      }),
    ]);
    if (stored !== undefined)
      return { queue, retry: false, maxOffset, consumedOffset: stored, error: undefined };
    // Never popped: the broker would start at the first message (TRIM_HORIZON) or the end (LATEST).
    const consumedOffset =
      sources.startingPosition === 'LATEST' ? maxOffset : await sources.broker.getMinOffset(address, at);
    return { queue, retry: false, maxOffset, consumedOffset, error: undefined };
  } catch (error) {
    return {
      queue,
      retry: false,
      maxOffset: undefined,
      consumedOffset: undefined,
      error: describeError(error),
    };
  }
}

async function countPollers(sources: PopBacklogSources, queues: readonly MessageQueue[]): Promise<number> {
  const addresses = [
    ...new Set(queues.map((queue) => sources.routes.masterAddress(queue.brokerName))),
  ].filter((address) => address !== undefined);
  // Every poller heartbeats every master of the topic, so the first master to answer knows them all.
  const members = await Promise.any(
    addresses.map((address) => sources.broker.getConsumerListByGroup(address, sources.consumerGroup)),
  ).catch(() => [] as string[]);
  return Math.max(1, members.length);
}
