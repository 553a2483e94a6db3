/**
 * How many dead letters a consumer group's `%DLQ%<group>` topic stores: for every queue of its route,
 * the broker's max offset minus its min offset (GET_MAX_OFFSET / GET_MIN_OFFSET to the master of the
 * queue's broker group). Nothing is pulled and nothing committed: the read leaves every position where it
 * was. RocketMQ creates the topic with the group's first dead letter, so a topic no name server knows is
 * a depth of 0 (the group never dead-lettered), not an error.
 *
 * The depth counts what the brokers store, redriven dead letters included (RocketMQ cannot delete a
 * message): it falls only when the brokers' retention removes old commit-log files.
 */

import { RocketMQError } from '../errors.js';
import { dlqTopicOf } from '../protocol/group-topics.js';
import { ResponseCode } from '../protocol/response-code.js';
import { masterAddress } from '../protocol/route-data.js';
import type { BrokerClient } from './broker-client.js';
import { BrokerError } from './broker-error.js';
import type { NameServerClient } from './name-server-client.js';
import { NoMasterError } from './no-master-error.js';

/**
 * What {@link readDeadLetterDepth} needs of a client (a `RocketMQClient` has it).
 */
export interface DeadLetterDepthClient {
  nameServer: Pick<NameServerClient, 'getRoute'>;
  broker: Pick<BrokerClient, 'getMaxOffset' | 'getMinOffset'>;
}

/**
 * A group's dead-letter depth at one moment.
 */
export interface DeadLetterDepth {
  /** Dead letters stored over every queue of `%DLQ%<group>` (0 when the topic does not exist). */
  readonly depth: number;
  /** Queues of the topic's route (0 when the topic does not exist). */
  readonly queues: number;
}

/**
 * Reads the group's dead-letter depth. Rejects with the first failure of a queue (a broker not answering,
 * a broker group without a master), never with a partial sum: a depth lower than the truth would read as
 * dead letters redriven.
 */
export async function readDeadLetterDepth(
  client: DeadLetterDepthClient,
  consumerGroup: string,
): Promise<DeadLetterDepth> {
  const topic = dlqTopicOf(consumerGroup);
  let route: Awaited<ReturnType<NameServerClient['getRoute']>>;
  try {
    route = await client.nameServer.getRoute(topic, { refresh: true });
  } catch (error) {
    if (error instanceof BrokerError && error.code === ResponseCode.TOPIC_NOT_EXIST) {
      return { depth: 0, queues: 0 };
    }
    throw error;
  }
  const reads: Promise<number>[] = [];
  for (const queueData of route.queueDatas) {
    const brokerData = route.brokerDatas.find((data) => data.brokerName === queueData.brokerName);
    const address = brokerData === undefined ? undefined : masterAddress(brokerData);
    if (address === undefined) throw new NoMasterError(queueData.brokerName, topic);
    for (let queueId = 0; queueId < queueData.readQueueNums; queueId++) {
      const header = { topic, queueId, bname: queueData.brokerName };
      reads.push(
        Promise.all([
          client.broker.getMaxOffset(address, header),
          client.broker.getMinOffset(address, header),
        ]).then(([max, min]) => {
          if (!(Number.isSafeInteger(max) && Number.isSafeInteger(min) && max >= min && min >= 0)) {
            throw new RocketMQError(
              `${topic} queue ${queueData.brokerName}@${queueId} on ${address}: offsets out of order (min ${min}, max ${max})`,
            );
          }
          return max - min;
        }),
      );
    }
  }
  const depths = await Promise.all(reads);
  return { depth: depths.reduce((sum, depth) => sum + depth, 0), queues: depths.length };
}
