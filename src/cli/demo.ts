/**
 * `npm run demo`: what the product does today, for real, in one command. Starts a local RocketMQ
 * (namesrv + broker from Apache's jars), parks long-polling pulls on every queue of a demo topic, sends a
 * few messages with our producer and prints each one as the broker hands it back. Ctrl-C stops everything.
 */

import { Producer } from '../client/producer.js';
import { RocketMQClient } from '../client/rocketmq-client.js';
import { type LocalBroker, startLocalBroker } from '../local-broker/local-broker.js';
import type { MessageExt } from '../protocol/message.js';
import { buildPullSysFlag } from '../protocol/pull-sys-flag.js';
import { readableQueues } from '../protocol/route-data.js';
import { rootLogger } from '../util/logger.js';

const TOPIC = 'DemoTopic';
const GROUP = 'DemoGroup';
const QUEUES = 4;
const MESSAGES = [
  { tags: 'order', keys: ['order-1001'], body: JSON.stringify({ orderId: 1001, total: 42.5 }) },
  { tags: 'order', keys: ['order-1002'], body: JSON.stringify({ orderId: 1002, total: 7 }) },
  { tags: 'refund', keys: ['refund-17'], body: JSON.stringify({ refundId: 17, orderId: 1001 }) },
  { tags: 'order', keys: ['order-1003'], body: '订单 1003 ✓' },
  { tags: 'audit', keys: [], body: 'x'.repeat(10_000) },
];

function describe(message: MessageExt): string {
  const body = message.body.length > 60 ? `${message.body.length} bytes` : message.body.toString('utf8');
  return `queue ${message.queueId} offset ${message.queueOffset}  msgId ${message.msgId}  tags ${message.tags ?? '-'}  keys ${message.keys.join(',') || '-'}  body ${body}`;
}

async function main(): Promise<void> {
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  const stopping = new AbortController();
  let broker: LocalBroker | undefined;
  let client: RocketMQClient | undefined;
  const shutdown = () => stopping.abort();
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  try {
    console.log('Starting a local RocketMQ 5.3.3 (the first run downloads its jars through Maven)...');
    const startedAt = Date.now();
    broker = await startLocalBroker();
    console.log(
      `  name server ${broker.namesrvAddr}, broker ${broker.brokerAddr} (${Date.now() - startedAt} ms)`,
    );

    client = new RocketMQClient({ nameServerAddresses: [broker.namesrvAddr] });
    await client.admin.createTopic(broker.brokerAddr, { topic: TOPIC, readQueueNums: QUEUES });
    const route = await waitForRoute(client, TOPIC);
    const queues = readableQueues(TOPIC, route);

    console.log(
      `Long-polling ${queues.length} queues of ${TOPIC} (the broker holds each pull until a message arrives)`,
    );
    const received: MessageExt[] = [];
    const brokerAddr = broker.brokerAddr;
    const pulling = queues.map(async (queue) => {
      let offset = await client?.broker.getMaxOffset(brokerAddr, { topic: TOPIC, queueId: queue.queueId });
      while (
        !stopping.signal.aborted &&
        received.length < MESSAGES.length &&
        client &&
        offset !== undefined
      ) {
        const result = await client.broker.pullMessage(brokerAddr, {
          consumerGroup: GROUP,
          topic: TOPIC,
          queueId: queue.queueId,
          queueOffset: offset,
          maxMsgNums: 32,
          sysFlag: buildPullSysFlag({ suspend: true, subscription: true }),
          commitOffset: 0,
          suspendTimeoutMillis: 15_000,
          subscription: '*',
          expressionType: 'TAG',
          subVersion: 0,
          bname: queue.brokerName,
        });
        if (result.status === 'FOUND') {
          for (const message of result.messages) {
            received.push(message);
            console.log(`  received  ${describe(message)}`);
          }
        }
        offset = result.nextBeginOffset;
      }
    });

    const producer = new Producer({ client });
    await producer.start();
    for (const message of MESSAGES) {
      const result = await producer.send({ topic: TOPIC, ...message, body: Buffer.from(message.body) });
      console.log(`  sent      queue ${result.queueId} offset ${result.queueOffset}  msgId ${result.msgId}`);
    }
    await producer.shutdown();
    await Promise.race([Promise.all(pulling), abortPromise(stopping.signal)]);
    console.log(`Done: ${received.length} of ${MESSAGES.length} messages came back through long polling.`);
  } finally {
    await client?.close();
    await broker?.stop();
  }
}

async function waitForRoute(client: RocketMQClient, topic: string) {
  for (let attempt = 0; ; attempt++) {
    const route = await client.nameServer.getRoute(topic, { refresh: true }).catch((error: unknown) => {
      if (attempt > 50) throw error;
      return undefined;
    });
    if (route && route.queueDatas.length > 0) return route;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function abortPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
