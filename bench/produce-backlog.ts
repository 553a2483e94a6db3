/**
 * The backlog the drain scenarios (http-invoke, offset-writes) consume: N JSON bodies sent in batches
 * of ~128 KiB, queue by queue, two queues at a time, as main.ts fills the drain race's topic.
 */
import { Producer, type ProducerMessage } from '../src/client/producer.js';
import type { RocketMQClient } from '../src/client/rocketmq-client.js';
import { benchMessageBody } from './message-body.js';

const BATCH_BYTES = 128 * 1024;
/** More streams make a cold broker answer SYSTEM_BUSY. */
const STREAMS = 2;
const RETRIES = 5;

/**
 * Sends `messages` bodies of `messageBytes` spread evenly over `queues` queues of `topic`.
 *
 * @example
 * ```ts
 * await produceBacklog(client, { topic, queues: 8, messages: 100_000, messageBytes: 1024 });
 * ```
 */
export async function produceBacklog(
  client: RocketMQClient,
  plan: { topic: string; queues: number; messages: number; messageBytes: number },
): Promise<void> {
  const producer = new Producer({ client, producerGroup: 'rocketmq-lambda-bench', retries: RETRIES });
  await producer.start();
  try {
    const perBatch = Math.max(1, Math.floor(BATCH_BYTES / plan.messageBytes));
    const pending = Array.from({ length: plan.queues }, (_, queueId) => queueId);
    const stream = async (): Promise<void> => {
      for (let queueId = pending.shift(); queueId !== undefined; queueId = pending.shift()) {
        const mine =
          Math.floor(plan.messages / plan.queues) + (queueId < plan.messages % plan.queues ? 1 : 0);
        for (let sent = 0; sent < mine; sent += perBatch) {
          const batch: ProducerMessage[] = [];
          for (let i = sent; i < Math.min(mine, sent + perBatch); i++) {
            batch.push({
              topic: plan.topic,
              body: benchMessageBody(queueId, i, plan.messageBytes),
              tags: 'bench',
            });
          }
          await producer.sendBatch(batch, { queueId });
        }
      }
    };
    await Promise.all(Array.from({ length: STREAMS }, stream));
  } finally {
    await producer.shutdown();
  }
}
