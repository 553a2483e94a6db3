/**
 * Our consumer as a measured child process of `npm run bench` (compiled to plain JavaScript first, see
 * node-child-build.ts, so that no TypeScript loader sits in its memory). Modes:
 * - `ours`: a ConsumerRuntime whose listener counts the messages and answers SUCCESS, the same work
 *   as the Java consumer's MessageListenerConcurrently;
 * - `ours-function`: what users run, a FunctionMessageListener with the LocalInvoker calling the no-op
 *   handler in noop-handler.ts (Lambda events built, JSON round trip, response mapped);
 * - `ours-function-worker` (an experiment, only when `--consumers` names it): the same function path in
 *   a worker thread (worker-function-listener.ts).
 * All: CLUSTERING, a fresh group, TRIM_HORIZON (CONSUME_FROM_FIRST_OFFSET), memory offset store,
 * every other option at its default. Measures itself with DrainMeasurement (the peers' children do the
 * same), its buffered messages included, and prints one `BENCH_RESULT {json}` line, RSS series
 * included, before its shutdown.
 *
 * Usage: node consumer-child.js '{"mode":"ours","namesrvAddr":"127.0.0.1:9876","topic":"T","group":"G","expected":1000}'
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { ConsumerRuntime } from '../src/consumer/consumer-runtime.js';
import type { ConsumeResult, MessageListener } from '../src/consumer/message-listener.js';
import { MemoryOffsetStore } from '../src/offsets/memory-offset-store.js';
import { DrainMeasurement, printDrainResult } from './peers/drain-measurement.js';

/**
 * What the harness passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: ConsumerChildSpec = { mode: 'ours', namesrvAddr, topic, group: 'bench-1', expected: 100_000 };
 * ```
 */
export interface ConsumerChildSpec {
  mode: 'ours' | 'ours-function' | 'ours-function-worker';
  namesrvAddr: string;
  topic: string;
  group: string;
  expected: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as ConsumerChildSpec;
  const measurement = new DrainMeasurement(spec.expected);

  const client = new RocketMQClient({ nameServerAddresses: spec.namesrvAddr });
  const success: ConsumeResult = { status: 'SUCCESS' };
  const fn =
    spec.mode === 'ours-function'
      ? await functionListener(spec.group)
      : spec.mode === 'ours-function-worker'
        ? await workerFunctionListener(spec.group)
        : undefined;
  const listener: MessageListener =
    fn === undefined
      ? {
          async consume(messages) {
            measurement.count(messages.length);
            return success;
          },
        }
      : {
          async consume(messages, context) {
            const result = await fn.listener.consume(messages, context);
            if (result.status === 'SUCCESS') measurement.count(messages.length);
            return result;
          },
        };
  const runtime = new ConsumerRuntime(
    { name: 'bench', topic: spec.topic, consumerGroup: spec.group, startingPosition: 'TRIM_HORIZON' },
    { client, offsetStore: new MemoryOffsetStore(), listener },
  );

  measurement.trackBuffered(async () =>
    (await runtime.status()).queues.reduce((sum, queue) => sum + queue.cachedMessageCount, 0),
  );
  measurement.started();
  await runtime.start();
  await measurement.done;
  printDrainResult(measurement.finish());
  await runtime.stop();
  await fn?.close();
  await client.close();
}

/**
 * The FunctionMessageListener + LocalInvoker pair on the no-op handler next to this file; imported only
 * in `ours-function` mode so that the plain mode does not carry the invoke layer.
 */
async function functionListener(
  consumerGroup: string,
): Promise<{ listener: MessageListener; close: () => Promise<void> }> {
  const [{ FunctionMessageListener }, { LocalInvoker }] = await Promise.all([
    import('../src/invoke/function-listener.js'),
    import('../src/invoke/local-invoker.js'),
  ]);
  const invoker = new LocalInvoker({ baseDir: dirname(fileURLToPath(import.meta.url)) });
  const listener = new FunctionMessageListener({
    invoker,
    functionRef: 'local:./noop-handler.js#handler',
    consumerGroup,
  });
  return { listener, close: () => invoker.close() };
}

/** The experiment: the same pair on a worker thread (function-worker.js next to this file). */
async function workerFunctionListener(
  consumerGroup: string,
): Promise<{ listener: MessageListener; close: () => Promise<void> }> {
  const { WorkerFunctionListener } = await import('./worker-function-listener.js');
  const script = join(dirname(fileURLToPath(import.meta.url)), 'function-worker.js');
  const listener = new WorkerFunctionListener(script, consumerGroup);
  return { listener, close: () => listener.close() };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
