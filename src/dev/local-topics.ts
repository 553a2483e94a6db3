/**
 * Topics on the dev local broker: created up front with a fixed queue count so producers and the poller
 * agree on the queues (auto-created topics would get the broker's default count on first send).
 */

import { RocketMQClient } from '../client/rocketmq-client.js';
import { RocketMQError } from '../errors.js';
import { abortableSleep } from '../util/abortable-sleep.js';
import type { Logger } from '../util/logger.js';

/** Queues per topic created by dev. */
export const DEV_TOPIC_QUEUES = 4;
const ROUTE_WAIT_MS = 15_000;
/** The route follows the creation within milliseconds on loopback: polled often, it is seen at once. */
const ROUTE_POLL_MS = 25;

/**
 * A topic to create.
 */
export interface LocalTopic {
  readonly topic: string;
  readonly orderly: boolean;
}

/**
 * Creates `topics` on the broker at `brokerAddr` ({@link DEV_TOPIC_QUEUES} queues each) and waits until
 * the name server routes each of them.
 */
export async function createLocalTopics(
  nameServer: string,
  brokerAddr: string,
  topics: readonly LocalTopic[],
  log: Logger,
): Promise<void> {
  const client = new RocketMQClient({ nameServerAddresses: nameServer, logger: log });
  try {
    // All at once: each creation registers the topic with the name server, whose routes then follow.
    await Promise.all(
      topics.map(async ({ topic, orderly }) => {
        await client.admin.createTopic(brokerAddr, {
          topic,
          readQueueNums: DEV_TOPIC_QUEUES,
          writeQueueNums: DEV_TOPIC_QUEUES,
          order: orderly,
        });
        await waitForRoute(client, topic);
        log.info({ topic, queues: DEV_TOPIC_QUEUES }, 'topic created on the local broker');
      }),
    );
  } finally {
    await client.close();
  }
}

async function waitForRoute(client: RocketMQClient, topic: string): Promise<void> {
  const deadline = Date.now() + ROUTE_WAIT_MS;
  for (;;) {
    try {
      const route = await client.nameServer.getRoute(topic, { refresh: true });
      if (route.queueDatas.length > 0) return;
    } catch (error) {
      if (Date.now() >= deadline) {
        throw new RocketMQError(`topic ${topic} has no route ${ROUTE_WAIT_MS} ms after creating it`, {
          cause: error,
        });
      }
    }
    if (Date.now() >= deadline) throw new RocketMQError(`topic ${topic} has no queues in its route`);
    await abortableSleep(ROUTE_POLL_MS);
  }
}
