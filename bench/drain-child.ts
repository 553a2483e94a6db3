/**
 * Our consumer draining a backlog, as a child process of the http-invoke and offset-writes scenarios:
 * a ConsumerRuntime (CLUSTERING, a fresh group from the first offset) whose listener is one of
 * - `count`: counts and answers SUCCESS (the drain race's `ours`);
 * - `local`: FunctionMessageListener + LocalInvoker calling noop-handler.ts (the drain race's `ours-function`);
 * - `lambda`: FunctionMessageListener + LambdaInvoker (`@aws-sdk/client-lambda`, keep-alive) against an
 *   Invoke API endpoint (the harness's test server) whose function answers `{batchItemFailures: []}`;
 * - `floor`: the same against the same endpoint, but each invoke is one SigV4-signed request over
 *   node:http keep-alive and nothing else (bench/floor-invoker.ts): the floor of the `lambda` path;
 * with the memory or the DynamoDB offset store (the latter through a client of ours whose middleware
 * notes the time of every call, so that the writes of the drain can be counted). Measures, besides the
 * drain race's times, the process CPU time (user + system, all threads) from the first to the last
 * message, and (bench/peers/drain-measurement.ts, as the drain race's children) peak RSS and GC pauses. Prints one `BENCH_RESULT {json}` line (DrainChildResult).
 *
 * Usage: node drain-child.js '{"namesrvAddr":"127.0.0.1:9876","topic":"T","group":"G","expected":5000,"listener":"lambda",...}'
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { ConsumerRuntime } from '../src/consumer/consumer-runtime.js';
import type { ConsumeResult, MessageListener } from '../src/consumer/message-listener.js';
import { FunctionMessageListener } from '../src/invoke/function-listener.js';
import type { Invoker } from '../src/invoke/invoker.js';
import { LambdaInvoker } from '../src/invoke/lambda-invoker.js';
import { LocalInvoker } from '../src/invoke/local-invoker.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, DynamoDbOffsetStore } from '../src/offsets/dynamodb-offset-store.js';
import { MemoryOffsetStore } from '../src/offsets/memory-offset-store.js';
import { DEFAULT_RESET_WATCH_INTERVAL_MS } from '../src/offsets/offset-reset-watch.js';
import type { OffsetStore } from '../src/offsets/offset-store.js';
import { RESULT_PREFIX } from './child-run.js';
import { FloorInvoker } from './floor-invoker.js';
import { DrainMeasurement, type GcPauseByKind, type PeakRssSample } from './peers/drain-measurement.js';

/** Credentials the local Invoke API and dynalite accept (they check none). */
const LOCAL_CREDENTIALS = { accessKeyId: 'bench', secretAccessKey: 'bench' } as const;
const LOCAL_REGION = 'us-east-1';

/**
 * What the scenario passes as the only argument (JSON).
 *
 * @example
 * ```ts
 * const spec: DrainChildSpec = { namesrvAddr, topic, group, expected: 5000, listener: 'count', offsetStore: 'memory' };
 * ```
 */
export interface DrainChildSpec {
  namesrvAddr: string;
  topic: string;
  group: string;
  expected: number;
  listener: 'count' | 'local' | 'lambda' | 'floor';
  /** The `lambda` and `floor` listeners' Invoke API and function name. */
  lambda?: { endpoint: string; functionName: string };
  /** @default the consumer's (100) */
  batchSize?: number;
  offsetStore: 'memory' | 'dynamodb';
  /** The `dynamodb` store's endpoint and table (created when missing). */
  dynamodb?: { endpoint: string; table: string };
  /** @default the consumer's (5000) */
  persistIntervalMs?: number;
}

/**
 * What the child prints. Times in ms; `callsAtMs` relative to the first message.
 *
 * @example
 * ```ts
 * const result = outcome.result as unknown as DrainChildResult;
 * ```
 */
export interface DrainChildResult {
  received: number;
  startToFirstMs: number;
  firstToLastMs: number;
  startToLastMs: number;
  /** Process CPU time (user + system) from the first to the last message. */
  cpuFirstToLastMs: number;
  /** The same from the consumer's start() to the last message (the drain race's interval). */
  cpuStartToLastMs: number;
  /** The kernel's high-water mark of the process's resident set (VmHWM) at the last message. */
  peakRssBytes: number;
  /** Where the RSS was at the sample with the most of it (V8 heap committed, Buffers outside it). */
  peakSample: PeakRssSample;
  /** The main thread's GC pauses (Node's `gc` performance entries) from start() to the last message. */
  gcPauseMs: number;
  gcMinorCount: number;
  gcMajorCount: number;
  /** `gcPauseMs` split by kind (scavenges, mark-compacts, incremental marking, weak callbacks). */
  gcPauseMsByKind: GcPauseByKind;
  /** Function invokes (`local`, `lambda`, `floor`); 0 for `count`. */
  invokes: number;
  /** Queues held at the end (the topic's and the retry topic's). */
  heldQueues: number;
  /** DynamoDB calls by command name over the whole run (start-up and stop included). */
  dynamoDbCalls: Record<string, number>;
  /** When each UpdateItem was sent, relative to the first message (negative: before it). */
  updateItemAtMs: number[];
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as DrainChildSpec;
  const client = new RocketMQClient({ nameServerAddresses: spec.namesrvAddr });
  const calls = new Map<string, number>();
  const updateItemAt: number[] = [];
  let dynamoClient: DynamoDBClient | undefined;
  let offsetStore: OffsetStore;
  if (spec.offsetStore === 'dynamodb') {
    if (spec.dynamodb === undefined) throw new Error('the dynamodb store needs spec.dynamodb');
    // Configured as DynamoDbOffsetStore configures the client it creates itself; ours only adds a counter.
    dynamoClient = new DynamoDBClient({
      region: LOCAL_REGION,
      endpoint: spec.dynamodb.endpoint,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
      requestHandler: { requestTimeout: DEFAULT_REQUEST_TIMEOUT_MS },
    });
    dynamoClient.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? 'unknown';
        calls.set(command, (calls.get(command) ?? 0) + 1);
        if (command === 'UpdateItemCommand') updateItemAt.push(performance.now());
        return next(args);
      },
      { step: 'initialize', name: 'benchCallCounter' },
    );
    offsetStore = new DynamoDbOffsetStore({
      client: dynamoClient,
      table: spec.dynamodb.table,
      group: spec.group,
      clientId: client.clientId,
      createTableIfMissing: true,
      resetWatchIntervalMs: DEFAULT_RESET_WATCH_INTERVAL_MS,
    });
  } else {
    offsetStore = new MemoryOffsetStore();
  }

  // The memory and GC figures as the drain race's children measure them; CPU also from the first message.
  const measurement = new DrainMeasurement(spec.expected);
  let firstAtMs: number | undefined;
  let cpuAtFirst: NodeJS.CpuUsage | undefined;
  let cpuFirstToLast: NodeJS.CpuUsage | undefined;
  const count = (messages: number): void => {
    firstAtMs ??= performance.now();
    cpuAtFirst ??= process.cpuUsage();
    measurement.count(messages);
    if (measurement.received >= spec.expected) cpuFirstToLast ??= process.cpuUsage(cpuAtFirst);
  };

  const invoker = createInvoker(spec);
  const fn =
    invoker === undefined
      ? undefined
      : new FunctionMessageListener({
          invoker,
          functionRef:
            spec.listener === 'lambda' || spec.listener === 'floor'
              ? (spec.lambda?.functionName ?? '')
              : 'local:./noop-handler.js#handler',
          consumerGroup: spec.group,
        });
  const success: ConsumeResult = { status: 'SUCCESS' };
  const listener: MessageListener =
    fn === undefined
      ? {
          async consume(messages) {
            count(messages.length);
            return success;
          },
        }
      : {
          async consume(messages, context) {
            const result = await fn.consume(messages, context);
            if (result.status === 'SUCCESS') count(messages.length);
            return result;
          },
        };
  const runtime = new ConsumerRuntime(
    {
      name: 'bench-drain',
      topic: spec.topic,
      consumerGroup: spec.group,
      startingPosition: 'TRIM_HORIZON',
      ...(spec.batchSize === undefined ? {} : { batchSize: spec.batchSize }),
      ...(spec.persistIntervalMs === undefined ? {} : { persistIntervalMs: spec.persistIntervalMs }),
    },
    { client, offsetStore, listener },
  );

  measurement.started();
  await runtime.start();
  await measurement.done;
  const drained = measurement.finish();
  const heldQueues = (await runtime.status()).queues.length;
  await runtime.stop();
  await offsetStore.close();
  await invoker?.close();
  dynamoClient?.destroy();
  await client.close();
  const cpu = cpuFirstToLast ?? { user: 0, system: 0 };
  const result: DrainChildResult = {
    received: drained.received,
    startToFirstMs: drained.startToFirstMs,
    firstToLastMs: drained.firstToLastMs,
    startToLastMs: drained.startToLastMs,
    cpuFirstToLastMs: round((cpu.user + cpu.system) / 1000),
    cpuStartToLastMs: drained.cpuMsStartToLast,
    peakRssBytes: drained.peakRssBytes,
    peakSample: drained.peakSample,
    gcPauseMs: drained.gcPauseMs,
    gcMinorCount: drained.gcMinorCount,
    gcMajorCount: drained.gcMajorCount,
    gcPauseMsByKind: drained.gcPauseMsByKind,
    invokes: fn?.stats().invokes ?? 0,
    heldQueues,
    dynamoDbCalls: Object.fromEntries(calls),
    updateItemAtMs: updateItemAt.map((at) => round(at - (firstAtMs ?? 0))),
  };
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

function createInvoker(spec: DrainChildSpec): Invoker | undefined {
  switch (spec.listener) {
    case 'count':
      return undefined;
    case 'local':
      return new LocalInvoker({ baseDir: dirname(fileURLToPath(import.meta.url)) });
    case 'lambda':
      if (spec.lambda === undefined) throw new Error('the lambda listener needs spec.lambda');
      return new LambdaInvoker({
        endpoint: spec.lambda.endpoint,
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
      });
    case 'floor':
      if (spec.lambda === undefined) throw new Error('the floor listener needs spec.lambda');
      return new FloorInvoker({
        endpoint: spec.lambda.endpoint,
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
      });
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
