/**
 * A fresh topic for a bench run, created on the local broker and waited for until the name server
 * routes it (a producer's first send needs the route).
 */
import type { RocketMQClient } from '../src/client/rocketmq-client.js';
import type { LocalBroker } from '../src/local-broker/local-broker.js';

const ROUTE_WAIT_MS = 15_000;

/**
 * Creates `topic` with `queues` read and write queues and waits until the name server routes it.
 *
 * @example
 * ```ts
 * await createBenchTopic(client, broker, `BenchTopic-${Date.now()}`, 8);
 * ```
 */
export async function createBenchTopic(
  client: RocketMQClient,
  broker: LocalBroker,
  topic: string,
  queues: number,
): Promise<void> {
  await client.admin.createTopic(broker.brokerAddr, { topic, readQueueNums: queues });
  const deadline = Date.now() + ROUTE_WAIT_MS;
  for (;;) {
    const route = await client.nameServer.getRoute(topic, { refresh: true }).catch(() => undefined);
    if (route?.queueDatas[0]?.writeQueueNums === queues) return;
    if (Date.now() > deadline)
      throw new Error(`the name server did not route ${topic} within ${ROUTE_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
