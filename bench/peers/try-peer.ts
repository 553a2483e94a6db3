/**
 * A small driver for the drain peers until the harness (main.ts) runs DRAIN_PEERS itself: starts a local
 * broker (256 MiB heap), produces N 1 KiB messages to a fresh 8-queue topic with our Producer, prepares
 * each named peer, runs its child once on a fresh group and prints the result with the load average.
 *
 * Usage: npx tsx bench/peers/try-peer.ts [peer ids, comma-separated; default all] [messages; default 20000]
 */
import { loadavg } from 'node:os';
import { Producer, type ProducerMessage } from '../../src/client/producer.js';
import { RocketMQClient } from '../../src/client/rocketmq-client.js';
import { startLocalBroker } from '../../src/local-broker/local-broker.js';
import { rootLogger } from '../../src/util/logger.js';
import { createBenchTopic } from '../bench-topic.js';
import { numberField, runChild } from '../child-run.js';
import { DRAIN_PEERS } from '../drain-peers.js';
import { benchMessageBody } from '../message-body.js';

const QUEUES = 8;
const MESSAGE_BYTES = 1024;
const BROKER_HEAP_MB = 256;
const PRODUCE_BATCH_BYTES = 128 * 1024;
const RUN_TIMEOUT_MS = 180_000;

async function main(): Promise<void> {
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  const ids = (process.argv[2] ?? DRAIN_PEERS.map((peer) => peer.id).join(',')).split(',');
  const messages = Number(process.argv[3] ?? 20_000);
  const peers = DRAIN_PEERS.filter((peer) => ids.includes(peer.id));
  if (peers.length !== ids.length) throw new Error(`unknown peer among ${ids.join(', ')}`);

  // The C2 JIT as main.ts starts it: the launcher's C1-only default would slow the broker for every peer.
  const broker = await startLocalBroker({
    heapMb: BROKER_HEAP_MB,
    extraJvmOptions: ['-XX:TieredStopAtLevel=4'],
  });
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr });
  try {
    const topic = `PeerTryTopic-${Date.now()}`;
    await createBenchTopic(client, broker, topic, QUEUES);
    await produce(client, topic, messages);
    log(`produced ${messages} messages to ${topic} on ${broker.namesrvAddr}`);
    for (const peer of peers) {
      let prepared: Awaited<ReturnType<typeof peer.prepare>>;
      try {
        prepared = await peer.prepare({ namesrvAddr: broker.namesrvAddr, log });
      } catch (error) {
        log(
          `${peer.id}: prepare() failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        continue;
      }
      try {
        const group = `peer-try-${peer.id}-${Date.now()}`;
        const loadBefore = loadavg()[0] ?? 0;
        const { result, wallMs } = await runChild(
          prepared.command,
          prepared.args({ topic, group, expected: messages, timeoutMs: RUN_TIMEOUT_MS }),
          { timeoutMs: RUN_TIMEOUT_MS + 30_000 },
        );
        const startToLastMs = numberField(result, 'startToLastMs');
        const firstToLastMs = numberField(result, 'firstToLastMs');
        const { rssSeries, ...figures } = result;
        log(
          `${peer.id} ${peer.version}: ${Math.round(messages / (startToLastMs / 1000))} msgs/s start→all, ` +
            `${Math.round(messages / (firstToLastMs / 1000))} msgs/s first→all, ` +
            `peak RSS ${mib(numberField(result, 'peakRssBytes'))} MiB, heap ${mib(numberField(result, 'peakHeapUsedBytes'))} MiB, ` +
            `process wall ${Math.round(wallMs)} ms, load average ${loadBefore.toFixed(2)} → ${(loadavg()[0] ?? 0).toFixed(2)}`,
        );
        log(
          `${peer.id} result: ${JSON.stringify(figures)}; rssSeries: ${Array.isArray(rssSeries) ? rssSeries.length : 0} samples`,
        );
      } catch (error) {
        log(`${peer.id}: run failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await prepared.stop();
      }
    }
  } finally {
    await client.close();
    await broker.stop();
  }
}

async function produce(client: RocketMQClient, topic: string, messages: number): Promise<void> {
  const producer = new Producer({ client, producerGroup: 'rocketmq-lambda-peer-try', retries: 5 });
  await producer.start();
  try {
    const perBatch = Math.floor(PRODUCE_BATCH_BYTES / MESSAGE_BYTES);
    for (let queueId = 0; queueId < QUEUES; queueId++) {
      const mine = Math.floor(messages / QUEUES) + (queueId < messages % QUEUES ? 1 : 0);
      for (let sent = 0; sent < mine; sent += perBatch) {
        const batch: ProducerMessage[] = [];
        for (let i = sent; i < Math.min(mine, sent + perBatch); i++) {
          batch.push({ topic, body: benchMessageBody(queueId, i, MESSAGE_BYTES), tags: 'bench' });
        }
        await producer.sendBatch(batch, { queueId });
      }
    }
  } finally {
    await producer.shutdown();
  }
}

function log(line: string): void {
  console.error(`[${new Date().toISOString()}] ${line}`);
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
