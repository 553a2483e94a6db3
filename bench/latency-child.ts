/**
 * Our side of the latency scenario (latency-scenario.ts) as a child process: what users run, a
 * ConsumerRuntime with a FunctionMessageListener and the LocalInvoker calling latency-handler.ts, which
 * notes every measured message's latency. CLUSTERING, a fresh group on a fresh topic from its first
 * offset, memory offset store, the batching window of the spec, every other option at its default.
 * Prints `BENCH_READY` once it holds every queue of the topic, then `BENCH_RESULT {json}` once the
 * handler has seen every measured message: `{measured, sentToHandlerMs: [...], storeToHandlerMs: [...]}`.
 *
 * Usage: node latency-child.js '{"namesrvAddr":"127.0.0.1:9876","topic":"T","group":"G","queues":8,"expectedMeasured":20000,"maximumBatchingWindowMs":0,"timeoutMs":120000}'
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { ConsumerRuntime } from '../src/consumer/consumer-runtime.js';
import { FunctionMessageListener } from '../src/invoke/function-listener.js';
import { LocalInvoker } from '../src/invoke/local-invoker.js';
import { MemoryOffsetStore } from '../src/offsets/memory-offset-store.js';
import { RESULT_PREFIX } from './child-run.js';
import { onLatencyRecorded, recordedLatencies } from './latency-handler.js';
import { READY_LINE } from './ready-child.js';

const HELD_POLL_MS = 50;

/**
 * What the scenario passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: LatencyChildSpec = { namesrvAddr, topic, group, queues: 8, expectedMeasured: 20_000, maximumBatchingWindowMs: 0, timeoutMs: 120_000 };
 * ```
 */
export interface LatencyChildSpec {
  namesrvAddr: string;
  topic: string;
  group: string;
  queues: number;
  /** Measured messages the producer sends: the child reports once the handler saw them all. */
  expectedMeasured: number;
  maximumBatchingWindowMs: number;
  /** From start to the last measured message at most. */
  timeoutMs: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as LatencyChildSpec;
  const deadline = Date.now() + spec.timeoutMs;
  const client = new RocketMQClient({ nameServerAddresses: spec.namesrvAddr });
  const invoker = new LocalInvoker({ baseDir: dirname(fileURLToPath(import.meta.url)) });
  const listener = new FunctionMessageListener({
    invoker,
    functionRef: 'local:./latency-handler.js#handler',
    consumerGroup: spec.group,
  });
  const runtime = new ConsumerRuntime(
    {
      name: 'bench-latency',
      topic: spec.topic,
      consumerGroup: spec.group,
      startingPosition: 'TRIM_HORIZON',
      maximumBatchingWindowMs: spec.maximumBatchingWindowMs,
    },
    { client, offsetStore: new MemoryOffsetStore(), listener },
  );
  const done = new Promise<void>((resolve) =>
    onLatencyRecorded((count) => {
      if (count >= spec.expectedMeasured) resolve();
    }),
  );
  await runtime.start();
  for (;;) {
    const held = (await runtime.status()).queues.filter((queue) => queue.queue.topic === spec.topic);
    if (held.length >= spec.queues) break;
    if (Date.now() > deadline)
      throw new Error(`held ${held.length} of ${spec.queues} queues at the deadline`);
    await new Promise((resolve) => setTimeout(resolve, HELD_POLL_MS));
  }
  process.stdout.write(`${READY_LINE}\n`);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the handler saw ${recordedLatencies().sentToHandlerMs.length} of ${spec.expectedMeasured} measured messages within ${spec.timeoutMs} ms`,
          ),
        ),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    await Promise.race([done, timedOut]);
  } finally {
    clearTimeout(timer);
  }
  const { sentToHandlerMs, storeToHandlerMs } = recordedLatencies();
  const result = { measured: sentToHandlerMs.length, sentToHandlerMs, storeToHandlerMs };
  await runtime.stop();
  await invoker.close();
  await client.close();
  // Every sample goes out (~1 MB at 5,000 msg/s): on a pipe stdout writes are asynchronous, and
  // process.exit() right after the write would cut the line; exit only once it is flushed.
  await new Promise<void>((resolve) =>
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`, () => resolve()),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
