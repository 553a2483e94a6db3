/**
 * One consumer of near-limit-buffering.ts, as a child process of its own so that its memory is all its
 * own: a ConsumerRuntime (CLUSTERING, a fresh group, TRIM_HORIZON, memory offset store, every option at
 * its default but `pullThresholdSizeForTopic`) whose listener is a slow function (it holds every batch
 * `listenerMs`), run for `windowMs`. Measures:
 * - the peak RSS over the window, from a worker thread sampling about every millisecond
 *   (rss-peak-sampler.ts: a large inflate is synchronous and leaves the main thread no turn to sample);
 * - every `statusIntervalMs` on the main thread, RSS and the body bytes the process queues hold
 *   (`cachedMessageBytes` of `runtime.status()`): what they held at the highest of these samples, and
 *   the most they held at any;
 * - the messages delivered to the listener.
 * Prints one `BENCH_RESULT {json}` line (NearLimitChildResult) before its shutdown.
 *
 * Usage: node near-limit-child.js '{"namesrvAddr":"127.0.0.1:9876","topic":"T","group":"G","pullThresholdSizeForTopic":134217728,...}'
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { ConsumerRuntime } from '../src/consumer/consumer-runtime.js';
import { MemoryOffsetStore } from '../src/offsets/memory-offset-store.js';
import { RESULT_PREFIX } from './child-run.js';
import { RssPeakSampler } from './rss-peak-sampler.js';

/**
 * What the harness passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: NearLimitChildSpec = { namesrvAddr, topic, group: 'G-1', pullThresholdSizeForTopic: 128 * 1024 * 1024, windowMs: 30_000, listenerMs: 4000, statusIntervalMs: 250 };
 * ```
 */
export interface NearLimitChildSpec {
  namesrvAddr: string;
  topic: string;
  group: string;
  pullThresholdSizeForTopic: number;
  windowMs: number;
  listenerMs: number;
  statusIntervalMs: number;
}

/**
 * What the child reports.
 *
 * @example
 * ```ts
 * const r = result as unknown as NearLimitChildResult;
 * console.log(r.peakRssBytes / r.startRssBytes);
 * ```
 */
export interface NearLimitChildResult {
  /** RSS right before the runtime starts (client built, modules loaded). */
  startRssBytes: number;
  /** The largest RSS the worker thread saw over the window. */
  peakRssBytes: number;
  /** The highest RSS of the main thread's samples, and when it was taken (ms after the start). */
  sampledPeakRssBytes: number;
  sampledPeakAtMs: number;
  /** Body bytes and messages the process queues held at that sample. */
  cachedBytesAtPeak: number;
  cachedMessagesAtPeak: number;
  /** The most body bytes they held at any sample. */
  maxCachedBytes: number;
  delivered: number;
  /** Queues of the topic held at the end (the group's retry queue, also held, not counted). */
  queuesHeld: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as NearLimitChildSpec;
  const sampler = await RssPeakSampler.start();
  const client = new RocketMQClient({ nameServerAddresses: spec.namesrvAddr });
  let delivered = 0;
  const runtime = new ConsumerRuntime(
    {
      name: 'near-limit',
      topic: spec.topic,
      consumerGroup: spec.group,
      startingPosition: 'TRIM_HORIZON',
      pullThresholdSizeForTopic: spec.pullThresholdSizeForTopic,
    },
    {
      client,
      offsetStore: new MemoryOffsetStore(),
      listener: {
        async consume(messages) {
          delivered += messages.length;
          await sleep(spec.listenerMs);
          return { status: 'SUCCESS' };
        },
      },
    },
  );

  const startRssBytes = process.memoryUsage.rss();
  let sampledPeakRssBytes = 0;
  let sampledPeakAtMs = 0;
  let cachedBytesAtPeak = 0;
  let cachedMessagesAtPeak = 0;
  let maxCachedBytes = 0;
  sampler.begin();
  const startedAt = performance.now();
  await runtime.start();
  for (;;) {
    const status = await runtime.status();
    const rss = process.memoryUsage.rss();
    const atMs = performance.now() - startedAt;
    const cachedBytes = status.queues.reduce((sum, queue) => sum + queue.cachedMessageBytes, 0);
    maxCachedBytes = Math.max(maxCachedBytes, cachedBytes);
    if (rss > sampledPeakRssBytes) {
      sampledPeakRssBytes = rss;
      sampledPeakAtMs = atMs;
      cachedBytesAtPeak = cachedBytes;
      cachedMessagesAtPeak = status.queues.reduce((sum, queue) => sum + queue.cachedMessageCount, 0);
    }
    if (atMs >= spec.windowMs) break;
    await sleep(spec.statusIntervalMs);
  }
  const peakRssBytes = sampler.end();
  await sampler.close();
  const status = await runtime.status();
  const result: NearLimitChildResult = {
    startRssBytes,
    peakRssBytes,
    sampledPeakRssBytes,
    sampledPeakAtMs: Math.round(sampledPeakAtMs),
    cachedBytesAtPeak,
    cachedMessagesAtPeak,
    maxCachedBytes,
    delivered,
    queuesHeld: status.queues.filter((held) => held.queue.topic === spec.topic).length,
  };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
  await runtime.stop();
  await client.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
