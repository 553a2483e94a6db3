/**
 * The `offset-writes` scenario: how many DynamoDB writes our consumer makes while it drains a backlog
 * with the DynamoDB offset store (against dynalite in the harness process), next to the bound the
 * design promises (at most one write per changed queue per persist interval), and what the store costs
 * in throughput against the memory store. See bench/README.md, "DynamoDB offset writes".
 */
import { join } from 'node:path';
import { startDynalite } from '../test/support/dynalite.js';
import type { ConsumerResult, RatioResult, ScenarioResult } from './bench-results.js';
import { ratio, stats } from './bench-results.js';
import type { BenchScenario, ScenarioContext } from './bench-scenario.js';
import { createBenchTopic } from './bench-topic.js';
import { runChild } from './child-run.js';
import type { DrainChildResult, DrainChildSpec } from './drain-child.js';
import { benchNode, imageNodeEnv } from './image-node-env.js';
import { benchChildren } from './node-child-build.js';
import { produceBacklog } from './produce-backlog.js';
import { scenarioScale } from './scenario-scale.js';

const QUEUES = 8;
const MESSAGE_BYTES = 1024;
/** Enough for a drain of several persist intervals on a fast machine (~2 s at 230,000 msgs/s). */
const MESSAGES = { full: 500_000, quick: 2000 } as const;
/**
 * Much shorter than the default 5 s: a drain of the full backlog takes a few seconds, and the rate is
 * only seen over several persists (at 1 s, a 200,000-message drain of 0.9 s saw none). The bound scales
 * with it (queues / interval).
 */
const PERSIST_INTERVAL_MS = 250;
/** Fewer persist intervals than this in a drain make its write rate say little: the log says so. */
const MIN_PERSISTS_PER_DRAIN = 4;
const TABLE = 'rocketmq-lambda-bench-offsets';
const RUN_TIMEOUT_MS = 300_000;

type StoreKind = 'dynamodb' | 'memory';

const CONSUMER_IDS: Record<StoreKind, string> = { dynamodb: 'ours-dynamodb', memory: 'ours-memory' };
const LABELS: Record<StoreKind, string> = {
  dynamodb: 'ours: ConsumerRuntime, counting listener, DynamoDbOffsetStore (dynalite)',
  memory: 'ours: ConsumerRuntime, counting listener, MemoryOffsetStore',
};

/**
 * The offset-writes scenario.
 *
 * @example
 * ```ts
 * const [result] = await offsetWritesScenario.run(context); // id 'offset-writes'
 * ```
 */
export const offsetWritesScenario: BenchScenario = {
  id: 'offset-writes',
  description:
    'DynamoDB offset writes per second during a drain (dynalite) against the bound queues / persist interval, and msgs/s vs. the memory store',
  needsJava: false,
  async run(context: ScenarioContext): Promise<ScenarioResult[]> {
    const messages = context.quick ? MESSAGES.quick : Math.round(MESSAGES.full * scenarioScale());
    const rounds = context.quick ? 1 : context.rounds;
    const [{ benchDir }, { path: node }] = await Promise.all([benchChildren(), benchNode()]);
    const script = join(benchDir, 'drain-child.js');
    const topic = `BenchOffsetWrites-${Date.now()}`;
    await createBenchTopic(context.client, context.broker, topic, QUEUES);
    await produceBacklog(context.client, { topic, queues: QUEUES, messages, messageBytes: MESSAGE_BYTES });
    context.log(`offset-writes: ${messages} messages produced to ${topic}`);
    const dynalite = await startDynalite();
    const runs = new Map<StoreKind, Record<string, number>[]>();
    const errors = new Map<StoreKind, string>();
    let series: [number, number][] | undefined;
    try {
      for (let round = 0; round < rounds; round++) {
        for (const store of rotate<StoreKind>(['dynamodb', 'memory'], round)) {
          if (errors.has(store)) continue;
          await sleep(context.pauseBetweenRunsMs);
          const spec: DrainChildSpec = {
            namesrvAddr: context.broker.namesrvAddr,
            topic,
            group: `bench-offsets-${store}-${round}-${Date.now()}`,
            expected: messages,
            listener: 'count',
            offsetStore: store,
            persistIntervalMs: PERSIST_INTERVAL_MS,
            ...(store === 'dynamodb' ? { dynamodb: { endpoint: dynalite.endpoint, table: TABLE } } : {}),
          };
          try {
            const { result } = await runChild(node, [script, JSON.stringify(spec)], {
              timeoutMs: RUN_TIMEOUT_MS,
              env: imageNodeEnv(),
            });
            const drained = result as unknown as DrainChildResult;
            const metrics = metricsOf(store, drained);
            runs.set(store, [...(runs.get(store) ?? []), metrics]);
            if (store === 'dynamodb') series = writesPerSecond(drained);
            if (
              store === 'dynamodb' &&
              drained.firstToLastMs < MIN_PERSISTS_PER_DRAIN * PERSIST_INTERVAL_MS
            ) {
              context.log(
                `offset-writes: the drain took ${drained.firstToLastMs} ms, fewer than ${MIN_PERSISTS_PER_DRAIN} persist intervals of ${PERSIST_INTERVAL_MS} ms: its write rate says little`,
              );
            }
            context.log(
              `offset-writes round ${round + 1} ${store}: ${Math.round(metrics.msgsPerSecFirstToAll ?? 0)} msgs/s` +
                (store === 'dynamodb'
                  ? `, ${metrics.updateItemsDuringDrain} UpdateItem in the ${(drained.firstToLastMs / 1000).toFixed(1)} s drain (${metrics.updateItemsPerSecDuringDrain?.toFixed(2)}/s, bound ${metrics.boundWritesPerSec}/s), ${metrics.updateItemsTotal} in the whole run; calls ${JSON.stringify(drained.dynamoDbCalls)}`
                  : ''),
            );
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            errors.set(store, message);
            context.log(`offset-writes ${store} failed: ${message}`);
          }
        }
      }
    } finally {
      await dynalite.close();
    }

    const consumers: ConsumerResult[] = (['dynamodb', 'memory'] as const).map((store) => {
      const storeRuns = runs.get(store) ?? [];
      const error = errors.get(store);
      if (storeRuns.length === 0)
        return { id: CONSUMER_IDS[store], label: LABELS[store], metrics: {}, error: error ?? 'no run' };
      const metrics: Record<string, ReturnType<typeof stats>> = {};
      for (const name of Object.keys(storeRuns[0] ?? {})) {
        metrics[name] = stats(storeRuns.map((run) => run[name] as number));
      }
      return {
        id: CONSUMER_IDS[store],
        label: LABELS[store],
        metrics,
        ...(store === 'dynamodb' && series !== undefined
          ? { series: { updateItemsPerSecondOfDrain: series } }
          : {}),
        ...(error === undefined ? {} : { error }),
      };
    });
    const ratios = [
      ratio({ consumers }, 'msgsPerSecFirstToAll', CONSUMER_IDS.dynamodb, CONSUMER_IDS.memory, true),
    ].filter((value): value is RatioResult => value !== undefined);
    return [
      {
        id: 'offset-writes',
        title: 'DynamoDB offset writes during a drain',
        workload:
          `${messages.toLocaleString('en-US')} messages of ${MESSAGE_BYTES} B on ${QUEUES} queues drained from the first offset by a fresh group per run, ` +
          `counting listener, persistIntervalMs ${PERSIST_INTERVAL_MS} (default 5000), other options default; DynamoDbOffsetStore as the poller builds it ` +
          `(reset watch every 5 s) on its own DynamoDBClient whose middleware counts the calls, dynalite in the harness process; ` +
          `UpdateItem calls between the first and the last message per second of that drain, against the bound held queues ` +
          `(${QUEUES} + the retry queue, whose offset never changes here) / persist interval; the whole run's count adds the claims at start and the final persist and release at stop`,
        runs: Math.max(
          0,
          ...consumers.map((consumer) => consumer.metrics.msgsPerSecFirstToAll?.values.length ?? 0),
        ),
        consumers,
        ratios,
      },
    ];
  },
};

function metricsOf(store: StoreKind, result: DrainChildResult): Record<string, number> {
  const seconds = result.firstToLastMs / 1000;
  const throughput = { msgsPerSecFirstToAll: result.received / seconds };
  if (store === 'memory') return throughput;
  const duringDrain = result.updateItemAtMs.filter((at) => at >= 0 && at <= result.firstToLastMs).length;
  return {
    ...throughput,
    updateItemsDuringDrain: duringDrain,
    updateItemsPerSecDuringDrain: duringDrain / seconds,
    boundWritesPerSec: result.heldQueues / (PERSIST_INTERVAL_MS / 1000),
    updateItemsTotal: result.updateItemAtMs.length,
    dynamoDbCallsTotal: Object.values(result.dynamoDbCalls).reduce((sum, count) => sum + count, 0),
  };
}

/** UpdateItem calls in each whole second of the drain: `[second, calls]`. */
function writesPerSecond(result: DrainChildResult): [number, number][] {
  const seconds = Math.ceil(result.firstToLastMs / 1000);
  const counts = Array.from({ length: seconds }, () => 0);
  for (const at of result.updateItemAtMs) {
    if (at < 0 || at > result.firstToLastMs) continue;
    const second = Math.min(seconds - 1, Math.floor(at / 1000));
    counts[second] = (counts[second] ?? 0) + 1;
  }
  return counts.map((count, second) => [second, count]);
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
