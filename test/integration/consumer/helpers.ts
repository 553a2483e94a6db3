import { onTestFinished } from 'vitest';
import { Producer, type ProducerMessage } from '../../../src/client/producer.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import type { ConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import type {
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from '../../../src/consumer/message-listener.js';
import { PopConsumer } from '../../../src/consumer/pop/pop-consumer.js';
import type { PopConsumerOptions } from '../../../src/consumer/pop/pop-consumer-options.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import type { OffsetStore } from '../../../src/offsets/offset-store.js';
import { MessageConst } from '../../../src/protocol/message.js';
import { encodeProperties } from '../../../src/protocol/message-properties.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';
import { testBroker } from '../../support/broker.js';
import { createTopic, newClient, waitFor } from '../client/helpers.js';

export { createTopic, newClient, waitFor };

/** Every delivery seen by a listener, by message id. */
export class Ledger {
  readonly deliveries: ConsumedMessage[] = [];
  readonly counts = new Map<string, number>();

  record(messages: readonly ConsumedMessage[]): void {
    for (const m of messages) {
      this.deliveries.push(m);
      this.counts.set(m.message.msgId, (this.counts.get(m.message.msgId) ?? 0) + 1);
    }
  }

  missing(sent: Iterable<string>): string[] {
    return [...sent].filter((id) => !this.counts.has(id));
  }

  duplicates(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c - 1;
    return n;
  }
}

/** A listener that records into `ledger` and answers with `decide` (SUCCESS by default). */
export function recordingListener(
  ledger: Ledger,
  decide: (messages: readonly ConsumedMessage[]) => ConsumeResult | Promise<ConsumeResult> = () => ({
    status: 'SUCCESS',
  }),
): MessageListener {
  return {
    async consume(messages) {
      ledger.record(messages);
      return decide(messages);
    },
  };
}

/** A started producer, shut down with the test. */
export async function newProducer(client: RocketMQClient): Promise<Producer> {
  const producer = new Producer({ client });
  await producer.start();
  onTestFinished(() => producer.shutdown());
  return producer;
}

/** Sends `count` messages spread over `queues` queues in batches; returns their ids in send order. */
export async function produce(
  producer: Producer,
  topic: string,
  count: number,
  options: { queues?: number; batch?: number; message?: (i: number) => Partial<ProducerMessage> } = {},
): Promise<string[]> {
  const queues = options.queues ?? 1;
  const batch = options.batch ?? 100;
  const ids: string[] = [];
  const perQueue: ProducerMessage[][] = Array.from({ length: queues }, () => []);
  for (let i = 0; i < count; i++) {
    perQueue[i % queues]?.push({ topic, body: `m${i}`, ...options.message?.(i) });
  }
  await Promise.all(
    perQueue.map(async (messages, queueId) => {
      for (let i = 0; i < messages.length; i += batch) {
        const result = await producer.sendBatch(messages.slice(i, i + batch), { queueId });
        ids.push(...result.msgIds);
      }
    }),
  );
  return ids;
}

/** Fast timers for tests; the production defaults are much slower. */
export const FAST: Partial<ConsumerOptions> = {
  maximumBatchingWindowMs: 50,
  rebalanceIntervalMs: 2000,
  routeRefreshIntervalMs: 2000,
  persistIntervalMs: 500,
  shutdownTimeoutMs: 5000,
};

/**
 * A runtime on its own client (its own client id), stopped and closed with the test. `store` may be a
 * function of the client id, for stores that name their writer (DynamoDB: the hand-over needs it).
 */
export function newRuntime(
  options: Omit<ConsumerOptions, 'name'> & { name?: string },
  listener: MessageListener,
  store: OffsetStore | ((clientId: string) => OffsetStore) = new MemoryOffsetStore(),
): { runtime: ConsumerRuntime; client: RocketMQClient; offsetStore: OffsetStore } {
  const client = newClient();
  const offsetStore = typeof store === 'function' ? store(client.clientId) : store;
  const runtime = new ConsumerRuntime({ name: 'it', ...FAST, ...options }, { client, offsetStore, listener });
  onTestFinished(async () => {
    await runtime.stop();
    await client.close();
  });
  return { runtime, client, offsetStore };
}

/**
 * A started POP consumer on its own client, stopped and closed with the test: from the start of the
 * queues, with short polls, unless `options` say other. The client asks the test broker's name server
 * unless `client` names others.
 */
export async function startPopConsumer(
  options: Omit<PopConsumerOptions, 'name'> & { name?: string },
  listener: MessageListener,
  client: { nameServerAddresses?: string[] } = {},
): Promise<PopConsumer> {
  const consumerClient = newClient(client);
  const consumer = new PopConsumer(
    { name: 'it', startingPosition: 'TRIM_HORIZON', pollTimeMs: 2000, shutdownTimeoutMs: 5000, ...options },
    { client: consumerClient, listener },
  );
  onTestFinished(async () => {
    await consumer.stop();
    await consumerClient.close();
  });
  await consumer.start();
  return consumer;
}

/**
 * Sends a message whose stored body is `stored`, flagged compressed (zlib unless `sysFlag` says other),
 * straight to the test broker: what any producer allowed to write the topic can store, since the broker
 * never inflates a body. `id` is its UNIQ_KEY; `properties` are added.
 */
export async function sendStoredBody(
  client: RocketMQClient,
  topic: string,
  options: {
    id: string;
    stored: Buffer;
    queueId?: number;
    sysFlag?: number;
    properties?: Record<string, string>;
  },
) {
  return client.broker.sendMessage(
    testBroker().brokerAddr,
    {
      producerGroup: 'stored-body-test',
      topic,
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: options.queueId ?? 0,
      sysFlag: options.sysFlag ?? MessageSysFlag.COMPRESSED | MessageSysFlag.COMPRESSION_ZLIB,
      bornTimestamp: Date.now(),
      flag: 0,
      properties: encodeProperties({ ...options.properties, [MessageConst.UNIQ_KEY]: options.id }),
    },
    options.stored,
  );
}
