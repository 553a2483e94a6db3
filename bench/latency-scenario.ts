/**
 * The `latency` scenario: how long a message takes from the producer to the handler at a steady rate,
 * for our function path (FunctionMessageListener + LocalInvoker, batching window 0 and 500 ms) and for
 * Apache's Java DefaultMQPushConsumer (no batching window: its rows are those of window 0). See
 * bench/README.md, "Latency at a steady rate".
 */
import { join } from 'node:path';
import { Producer } from '../src/client/producer.js';
import type { ConsumerResult, RatioResult, ScenarioResult } from './bench-results.js';
import { ratio, stats } from './bench-results.js';
import type { BenchScenario, ScenarioContext } from './bench-scenario.js';
import { createBenchTopic } from './bench-topic.js';
import type { ChildOutcome } from './child-run.js';
import { benchNode, imageNodeEnv } from './image-node-env.js';
import type { LatencyChildSpec } from './latency-child.js';
import { latencyPeerArgs } from './latency-java-peer.js';
import { benchChildren } from './node-child-build.js';
import { percentile } from './percentile.js';
import { type ReadyChild, startReadyChild } from './ready-child.js';
import { scenarioScale } from './scenario-scale.js';
import { produceSteadily } from './steady-producer.js';

const RATES_PER_SEC = [1000, 5000] as const;
const WINDOWS_MS = [0, 500] as const;
const QUEUES = 8;
const MESSAGE_BYTES = 1024;
const PLAN = {
  full: { warmupMs: 5000, measureMs: 20_000 },
  quick: { warmupMs: 300, measureMs: 700 },
} as const;
/** Start-up until the consumer holds every queue (JVM start and first rebalance included). */
const READY_TIMEOUT_MS = 90_000;
/** After the last measured send, how long the last measured message may take to arrive. */
const DRAIN_GRACE_MS = 60_000;
/** A busy broker answers a send SYSTEM_BUSY now and then; the measured count must still arrive whole. */
const PRODUCE_RETRIES = 5;

/** One consumer setup of the scenario. */
interface LatencyConsumer {
  readonly id: 'ours-function' | 'java';
  /** The batching window; Java has none (0). */
  readonly windowMs: number;
}

const CONSUMERS: readonly LatencyConsumer[] = [
  ...WINDOWS_MS.map((windowMs) => ({ id: 'ours-function' as const, windowMs })),
  { id: 'java', windowMs: 0 },
];

/** One measured run's figures (ms). */
interface LatencyRun {
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * The latency scenario.
 *
 * @example
 * ```ts
 * const results = await latencyScenario.run(context); // latency-1000-window-0, latency-1000-window-500, ...
 * ```
 */
export const latencyScenario: BenchScenario = {
  id: 'latency',
  description:
    'delivery latency producer -> handler at 1,000 and 5,000 msg/s, batching window 0 and 500 ms (ours-function) and Java',
  needsJava: true,
  async run(context: ScenarioContext): Promise<ScenarioResult[]> {
    const plan = context.quick
      ? PLAN.quick
      : { ...PLAN.full, measureMs: Math.round(PLAN.full.measureMs * scenarioScale()) };
    const rounds = context.quick ? 1 : context.rounds;
    // --quick exercises the path once (one rate, every consumer); its figures mean nothing.
    const rates = context.quick ? RATES_PER_SEC.slice(0, 1) : RATES_PER_SEC;
    const [{ benchDir: childrenDir }, { path: node }] = await Promise.all([benchChildren(), benchNode()]);
    const producer = new Producer({
      client: context.client,
      producerGroup: 'rocketmq-lambda-bench-latency',
      retries: PRODUCE_RETRIES,
    });
    await producer.start();
    /** rate -> consumer key -> runs, or the error that stopped it. */
    const runs = new Map<string, LatencyRun[]>();
    const errors = new Map<string, string>();
    try {
      for (let round = 0; round < rounds; round++) {
        // --quick exercises the path once (one rate, every consumer); the figures mean nothing there.
        for (const ratePerSec of rates) {
          for (const consumer of rotate(CONSUMERS, round)) {
            const key = runKey(ratePerSec, consumer);
            if (errors.has(key)) continue;
            await sleep(context.pauseBetweenRunsMs);
            try {
              const run = await runOnce(context, { consumer, ratePerSec, plan, childrenDir, node, producer });
              runs.set(key, [...(runs.get(key) ?? []), run]);
              context.log(
                `latency round ${round + 1} ${consumer.id} window ${consumer.windowMs} ms at ${ratePerSec}/s: p50 ${run.metrics.latencyP50Ms} ms, p99 ${run.metrics.latencyP99Ms} ms, max ${run.metrics.latencyMaxMs} ms (sent ${Math.round(run.metrics.sentMsgsPerSec ?? 0)}/s)`,
              );
            } catch (error) {
              const message = error instanceof Error ? error.message : String(error);
              errors.set(key, message);
              context.log(
                `latency ${consumer.id} window ${consumer.windowMs} ms at ${ratePerSec}/s failed: ${message}`,
              );
            }
          }
        }
      }
    } finally {
      await producer.shutdown();
    }
    return summarize(runs, errors, plan, rates);
  },
};

async function runOnce(
  context: ScenarioContext,
  setup: {
    consumer: LatencyConsumer;
    ratePerSec: number;
    plan: { warmupMs: number; measureMs: number };
    childrenDir: string;
    /** The node our latency child runs under (the image's: image-node-env.ts). */
    node: string;
    producer: Producer;
  },
): Promise<LatencyRun> {
  const { consumer, ratePerSec, plan, childrenDir, node, producer } = setup;
  const topic = `BenchLatency-${ratePerSec}-${Date.now()}`;
  const group = `bench-latency-${consumer.id}-${consumer.windowMs}-${Date.now()}`;
  await createBenchTopic(context.client, context.broker, topic, QUEUES);
  const expectedMeasured = Math.floor((ratePerSec * plan.measureMs) / 1000);
  const timeoutMs = READY_TIMEOUT_MS + plan.warmupMs + plan.measureMs + DRAIN_GRACE_MS;
  let child: ReadyChild;
  if (consumer.id === 'java') {
    if (context.java === undefined) throw new Error('the Java peer was not built for this run');
    const args = [
      'latency',
      context.broker.namesrvAddr,
      topic,
      group,
      String(QUEUES),
      String(expectedMeasured),
    ];
    child = startReadyChild(
      'java',
      latencyPeerArgs(context.java, context.javaHeapMb, [...args, String(timeoutMs)]),
      { timeoutMs: timeoutMs + 30_000 },
    );
  } else {
    const spec: LatencyChildSpec = {
      namesrvAddr: context.broker.namesrvAddr,
      topic,
      group,
      queues: QUEUES,
      expectedMeasured,
      maximumBatchingWindowMs: consumer.windowMs,
      timeoutMs,
    };
    child = startReadyChild(node, [join(childrenDir, 'latency-child.js'), JSON.stringify(spec)], {
      timeoutMs: timeoutMs + 30_000,
      env: imageNodeEnv(),
    });
  }
  let sentMsgsPerSec: number;
  try {
    await child.ready;
    const produced = await produceSteadily(producer, {
      topic,
      ratePerSec,
      warmupMs: plan.warmupMs,
      measureMs: plan.measureMs,
      messageBytes: MESSAGE_BYTES,
    });
    sentMsgsPerSec = produced.measuredRatePerSec;
  } catch (error) {
    child.kill();
    await child.result.catch(() => undefined);
    throw error;
  }
  const outcome: ChildOutcome = await child.result;
  const sent = numbers(outcome.result, 'sentToHandlerMs');
  const stored = numbers(outcome.result, 'storeToHandlerMs');
  return {
    metrics: {
      latencyP50Ms: percentile(sent, 50),
      latencyP90Ms: percentile(sent, 90),
      latencyP99Ms: percentile(sent, 99),
      latencyMaxMs: percentile(sent, 100),
      storeToHandlerP50Ms: percentile(stored, 50),
      storeToHandlerP99Ms: percentile(stored, 99),
      sentMsgsPerSec,
    },
  };
}

function summarize(
  runs: ReadonlyMap<string, readonly LatencyRun[]>,
  errors: ReadonlyMap<string, string>,
  plan: { warmupMs: number; measureMs: number },
  rates: readonly number[],
): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const ratePerSec of rates) {
    for (const windowMs of WINDOWS_MS) {
      const consumers: ConsumerResult[] = CONSUMERS.filter((consumer) => consumer.windowMs === windowMs).map(
        (consumer) =>
          consumerResult(
            consumer,
            runs.get(runKey(ratePerSec, consumer)) ?? [],
            errors.get(runKey(ratePerSec, consumer)),
          ),
      );
      const scenario = { consumers };
      const ratios: RatioResult[] = ['latencyP50Ms', 'latencyP99Ms']
        .map((metric) => ratio(scenario, metric, 'ours-function', 'java', false))
        .filter((value): value is RatioResult => value !== undefined);
      results.push({
        id: `latency-${ratePerSec}-window-${windowMs}`,
        title: `Latency at ${ratePerSec.toLocaleString('en-US')} msg/s, batching window ${windowMs} ms`,
        workload:
          `${ratePerSec.toLocaleString('en-US')} msg/s of ${MESSAGE_BYTES} B, one send each, round-robin over ${QUEUES} queues of a fresh topic, ` +
          `${plan.warmupMs / 1000} s warm-up then ${plan.measureMs / 1000} s measured; latency = handler entry (µs since the epoch: performance.timeOrigin + now() / Instant.now()) ` +
          `minus the producer's send time carried in a user property, every measured message; ours: FunctionMessageListener + LocalInvoker, ` +
          `maximumBatchingWindowMs ${windowMs}, other options default` +
          (windowMs === 0
            ? '; Java DefaultMQPushConsumer has no batching window: its rows are here (window 0)'
            : ''),
        runs: Math.max(0, ...consumers.map((consumer) => consumer.metrics.latencyP50Ms?.values.length ?? 0)),
        consumers,
        ratios,
      });
    }
  }
  return results;
}

function consumerResult(
  consumer: LatencyConsumer,
  consumerRuns: readonly LatencyRun[],
  error: string | undefined,
): ConsumerResult {
  const label =
    consumer.id === 'java'
      ? 'Java DefaultMQPushConsumer 5.3.3 (20 threads, 1 message per call), latency-noting listener'
      : `ours: FunctionMessageListener + LocalInvoker, latency-noting handler, window ${consumer.windowMs} ms`;
  if (consumerRuns.length === 0) return { id: consumer.id, label, metrics: {}, error: error ?? 'no run' };
  const metrics: Record<string, ReturnType<typeof stats>> = {};
  for (const name of Object.keys(consumerRuns[0]?.metrics ?? {})) {
    metrics[name] = stats(consumerRuns.map((run) => run.metrics[name] as number));
  }
  return { id: consumer.id, label, metrics, ...(error === undefined ? {} : { error }) };
}

function runKey(ratePerSec: number, consumer: LatencyConsumer): string {
  return `${ratePerSec}/${consumer.id}/${consumer.windowMs}`;
}

function numbers(result: Record<string, unknown>, field: string): number[] {
  const value = result[field];
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'number')) {
    throw new Error(`the child's result has no samples ${field}`);
  }
  return value as number[];
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
