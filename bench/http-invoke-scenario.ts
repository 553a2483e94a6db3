/**
 * The `http-invoke` scenario: the Lambda path over HTTP. Our consumer drains a backlog through
 * FunctionMessageListener + LambdaInvoker (`@aws-sdk/client-lambda`, keep-alive) against the project's
 * Invoke API test server (test/support/lambda-api-server.ts, in the harness process, a fresh one per
 * run), at batch sizes 100 and 1,000; and through the LocalInvoker at the same sizes in the same run.
 * Reports invokes/s, msgs/s and the CPU time of our process per invoke, and saves one `--cpu-prof`
 * profile of a Lambda-path run. See bench/README.md, "The Lambda path over HTTP".
 */
import { join } from 'node:path';
import { LambdaApiServer } from '../test/support/lambda-api-server.js';
import type { ConsumerResult, RatioResult, ScenarioResult } from './bench-results.js';
import { ratio, stats } from './bench-results.js';
import type { BenchScenario, ScenarioContext } from './bench-scenario.js';
import { createBenchTopic } from './bench-topic.js';
import { runChild } from './child-run.js';
import { cpuProfileFlags, writeProfileTop } from './cpu-profile-top.js';
import type { DrainChildResult, DrainChildSpec } from './drain-child.js';
import { benchNode, imageNodeDescription, imageNodeEnv } from './image-node-env.js';
import { benchChildren } from './node-child-build.js';
import { produceBacklog } from './produce-backlog.js';
import { scenarioScale } from './scenario-scale.js';

const BATCH_SIZES = [100, 1000] as const;
const QUEUES = 8;
const MESSAGE_BYTES = 1024;
const MESSAGES = { full: 100_000, quick: 2000 } as const;
const FUNCTION_NAME = 'bench-noop';
const RUN_TIMEOUT_MS = 300_000;
const PROFILE_BATCH_SIZE = 100;
const PROFILE_TOP_FRAMES = 15;

/** The listener's invoker: LambdaInvoker over HTTP, the floor's signed request, the LocalInvoker. */
export type InvokePath = 'lambda' | 'floor' | 'local';
const PATHS: readonly InvokePath[] = ['lambda', 'floor', 'local'];

const LABELS: Record<InvokePath, string> = {
  lambda:
    'ours: FunctionMessageListener + LambdaInvoker (@aws-sdk/client-lambda, keep-alive) -> local Invoke API over HTTP',
  floor:
    'floor: FunctionMessageListener + one SigV4-signed request per invoke over node:http keep-alive (bench/floor-invoker.ts) -> the same Invoke API',
  local: 'ours: FunctionMessageListener + LocalInvoker, no-op handler in-process',
};
/** The consumer ids of the results; bench-summary.ts reads them. */
export const HTTP_INVOKE_CONSUMER_IDS: Record<InvokePath, string> = {
  lambda: 'ours-lambda-http',
  floor: 'floor-signed-http',
  local: 'ours-function',
};
const CONSUMER_IDS = HTTP_INVOKE_CONSUMER_IDS;

/**
 * The http-invoke scenario.
 *
 * @example
 * ```ts
 * const [batch100, batch1000] = await httpInvokeScenario.run(context);
 * ```
 */
export const httpInvokeScenario: BenchScenario = {
  id: 'http-invoke',
  description:
    'the Lambda path over HTTP (LambdaInvoker -> local Invoke API) vs. the LocalInvoker on a backlog, batch 100 and 1,000: invokes/s, msgs/s, CPU per invoke, a CPU profile',
  needsJava: false,
  async run(context: ScenarioContext): Promise<ScenarioResult[]> {
    const messages = context.quick ? MESSAGES.quick : Math.round(MESSAGES.full * scenarioScale());
    const rounds = context.quick ? 1 : context.rounds;
    const warmupRounds = context.quick ? 0 : 1;
    const script = join((await benchChildren()).benchDir, 'drain-child.js');
    const topic = `BenchHttpInvoke-${Date.now()}`;
    await createBenchTopic(context.client, context.broker, topic, QUEUES);
    await produceBacklog(context.client, { topic, queues: QUEUES, messages, messageBytes: MESSAGE_BYTES });
    context.log(`http-invoke: ${messages} messages produced to ${topic}`);

    const configs = BATCH_SIZES.flatMap((batchSize) => PATHS.map((path) => ({ batchSize, path })));
    const runs = new Map<string, Record<string, number>[]>();
    const errors = new Map<string, string>();
    for (let index = 0; index < warmupRounds + rounds; index++) {
      const warmup = index < warmupRounds;
      for (const { batchSize, path } of rotate(configs, index)) {
        const key = `${batchSize}/${path}`;
        if (errors.has(key)) continue;
        await sleep(context.pauseBetweenRunsMs);
        try {
          const metrics = drainMetrics(
            await drainThrough(context, { script, topic, messages, batchSize, path }),
          );
          if (!warmup) runs.set(key, [...(runs.get(key) ?? []), metrics]);
          context.log(
            `http-invoke ${warmup ? 'warm-up' : `round ${index - warmupRounds + 1}`} ${path} batch ${batchSize}: ${Math.round(metrics.msgsPerSecFirstToAll ?? 0)} msgs/s, ${Math.round(metrics.invokesPerSec ?? 0)} invokes/s, ${metrics.cpuMsPerInvoke?.toFixed(3)} CPU ms/invoke`,
          );
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (!warmup) errors.set(key, message);
          context.log(`http-invoke ${path} batch ${batchSize} failed: ${message}`);
        }
      }
    }

    let profileNote = '';
    try {
      profileNote = await profiledRun(context, { script, topic, messages });
    } catch (error) {
      profileNote = `; the profiled run failed: ${error instanceof Error ? error.message : String(error)}`;
      context.log(`http-invoke profile failed: ${profileNote}`);
    }

    return BATCH_SIZES.map((batchSize) => {
      const consumers: ConsumerResult[] = PATHS.map((path) => {
        const key = `${batchSize}/${path}`;
        const pathRuns = runs.get(key) ?? [];
        const error = errors.get(key);
        if (pathRuns.length === 0)
          return { id: CONSUMER_IDS[path], label: LABELS[path], metrics: {}, error: error ?? 'no run' };
        const metrics: Record<string, ReturnType<typeof stats>> = {};
        for (const name of Object.keys(pathRuns[0] ?? {})) {
          metrics[name] = stats(pathRuns.map((run) => run[name] as number));
        }
        return {
          id: CONSUMER_IDS[path],
          label: LABELS[path],
          metrics,
          ...(error === undefined ? {} : { error }),
        };
      });
      const scenario = { consumers };
      const ratios = [
        ratio(scenario, 'msgsPerSecFirstToAll', CONSUMER_IDS.lambda, CONSUMER_IDS.local, true),
        ratio(scenario, 'cpuMsPerInvoke', CONSUMER_IDS.lambda, CONSUMER_IDS.local, false),
        ratio(scenario, 'cpuMsPerInvoke', CONSUMER_IDS.lambda, CONSUMER_IDS.floor, false),
      ].filter((value): value is RatioResult => value !== undefined);
      return {
        id: `http-invoke-batch-${batchSize}`,
        title: `Lambda path over HTTP vs. in-process, batch size ${batchSize.toLocaleString('en-US')}`,
        workload:
          `${messages.toLocaleString('en-US')} messages of ${MESSAGE_BYTES} B on ${QUEUES} queues drained from the first offset by a fresh group per run, ` +
          `batchSize ${batchSize}, other options default (10 batches in flight, 500 ms window), memory offset store; ` +
          `lambda: LambdaInvoker with keep-alive against test/support/lambda-api-server.ts in the harness process (a no-op function); ` +
          `floor: one SigV4-signed request per invoke (bench/floor-invoker.ts) against the same server; ` +
          `CPU = process.cpuUsage() of the consumer process from first to last message, per invoke (cpuMsPer1000Msgs: per 1,000 messages, i.e. µs per message); ` +
          `GC pauses (Node's gc performance entries) in % of start() to the last message; peak RSS = VmHWM; the child runs ${imageNodeDescription()}` +
          (warmupRounds > 0 ? `; ${warmupRounds} unreported warm-up round` : '') +
          profileNote,
        runs: Math.max(
          0,
          ...consumers.map((consumer) => consumer.metrics.msgsPerSecFirstToAll?.values.length ?? 0),
        ),
        consumers,
        ratios,
      };
    });
  },
};

/**
 * How a drain's child is started: node flags before the script, a command it runs under (`taskset -c 1`),
 * its environment (default: the image's, image-node-env.ts) and the node executable (default: the image's
 * line, `benchNode`).
 */
export interface DrainLaunch {
  readonly nodeFlags?: readonly string[];
  readonly wrapper?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly node?: string;
}

/**
 * One drain of `run.topic` by drain-child.js in a fresh group; the `lambda` and `floor` paths get a fresh
 * Invoke API server in this process (it keeps every call it saw) whose function answers no failures.
 *
 * @example
 * ```ts
 * const result = await drainThrough(context, { script, topic, messages: 20_000, batchSize: 100, path: 'lambda' });
 * ```
 */
export async function drainThrough(
  context: Pick<ScenarioContext, 'broker'>,
  run: { script: string; topic: string; messages: number; batchSize: number; path: InvokePath },
  launch: DrainLaunch = {},
): Promise<DrainChildResult> {
  const server = run.path === 'local' ? undefined : await LambdaApiServer.start();
  try {
    server?.register(FUNCTION_NAME, (event) => {
      if (!Array.isArray((event as { Records?: unknown }).Records))
        throw new Error('the event has no Records');
      return { batchItemFailures: [] };
    });
    const spec: DrainChildSpec = {
      namesrvAddr: context.broker.namesrvAddr,
      topic: run.topic,
      group: `bench-http-${run.path}-${run.batchSize}-${Date.now()}`,
      expected: run.messages,
      listener: run.path,
      batchSize: run.batchSize,
      offsetStore: 'memory',
      ...(server === undefined ? {} : { lambda: { endpoint: server.endpoint, functionName: FUNCTION_NAME } }),
    };
    const node = launch.node ?? (await benchNode()).path;
    const [command = node, ...wrapperArgs] = [...(launch.wrapper ?? []), node];
    const { result } = await runChild(
      command,
      [...wrapperArgs, ...(launch.nodeFlags ?? []), run.script, JSON.stringify(spec)],
      { timeoutMs: RUN_TIMEOUT_MS, env: launch.env ?? imageNodeEnv() },
    );
    return result as unknown as DrainChildResult;
  } finally {
    await server?.close();
  }
}

/**
 * A drain's figures: msgs/s and invokes/s first to last, CPU per invoke and per 1,000 messages (first
 * to last), CPU µs per message start to last (the drain race's measure), GC pauses in % of start to
 * last (all, and scavenges, mark-compacts and incremental marking apart) with their counts, the peak RSS.
 *
 * @example
 * ```ts
 * drainMetrics(result).gcPausePercentStartToLast;
 * ```
 */
export function drainMetrics(result: DrainChildResult): Record<string, number> {
  const seconds = result.firstToLastMs / 1000;
  const share = (ms: number): number => (ms / Math.max(result.startToLastMs, 1)) * 100;
  return {
    msgsPerSecFirstToAll: result.received / seconds,
    invokesPerSec: result.invokes / seconds,
    cpuMsPerInvoke: result.cpuFirstToLastMs / result.invokes,
    cpuMsPer1000Msgs: (result.cpuFirstToLastMs / result.received) * 1000,
    cpuUsPerMsgStartToLast: (result.cpuStartToLastMs / result.received) * 1000,
    gcPausePercentStartToLast: share(result.gcPauseMs),
    gcMinorCount: result.gcMinorCount,
    gcMajorCount: result.gcMajorCount,
    gcScavengePausePercent: share(result.gcPauseMsByKind.minor),
    gcMarkCompactPausePercent: share(result.gcPauseMsByKind.major),
    gcIncrementalMarkingPausePercent: share(result.gcPauseMsByKind.incremental),
    peakRssMiB: result.peakRssBytes / 2 ** 20,
    peakSampleV8HeapMiB: result.peakSample.heapTotalBytes / 2 ** 20,
    peakSampleArrayBuffersMiB: result.peakSample.arrayBuffersBytes / 2 ** 20,
    invokes: result.invokes,
  };
}

/**
 * One more Lambda-path drain at batch {@link PROFILE_BATCH_SIZE} under `node --cpu-prof` (not in the
 * figures: profiling slows it); saves the profile and its top self-time frames under bench/results/profiles/.
 */
async function profiledRun(
  context: ScenarioContext,
  run: { script: string; topic: string; messages: number },
): Promise<string> {
  const name = `http-invoke-batch-${PROFILE_BATCH_SIZE}${context.quick ? '-quick' : ''}`;
  await drainThrough(
    context,
    { ...run, batchSize: PROFILE_BATCH_SIZE, path: 'lambda' },
    { nodeFlags: await cpuProfileFlags(name) },
  );
  const { profile, text, top, areas } = await writeProfileTop(name, PROFILE_TOP_FRAMES);
  context.log(
    `http-invoke: CPU profile of a lambda run at batch ${PROFILE_BATCH_SIZE} in ${profile}\n${text}`,
  );
  const sdkPercent = areas
    .filter((area) => area.frame.startsWith('@aws-sdk/') || area.frame.startsWith('@smithy/'))
    .reduce((sum, area) => sum + area.percent, 0);
  const top5 = top
    .filter((entry) => !entry.frame.startsWith('(idle)') && !entry.frame.startsWith('(program)'))
    .slice(0, 5)
    .map((entry) => `${entry.frame} ${entry.percent} %`)
    .join(', ');
  return (
    `; CPU profile of one extra lambda run at batch ${PROFILE_BATCH_SIZE} (start-up included): bench/results/profiles/${name}.cpuprofile, ` +
    `@aws-sdk/* and @smithy/* code ${sdkPercent.toFixed(1)} % of its self time (hashing and sockets they use show as node: and native frames); top self time: ${top5}`
  );
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
