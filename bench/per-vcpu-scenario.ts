/**
 * The `per-vcpu` scenario: what one vCPU of poller buys, the figure a Fargate task is sized by. The
 * production path (FunctionMessageListener + LambdaInvoker over HTTP to the Invoke API test server)
 * drains a backlog of 1 KiB messages with its child pinned to core 1 (`taskset -c 1`), while the broker's
 * JVMs and the harness (which serves the Invoke API) are pinned to core 0, at batch 100 and 1,000; the
 * child runs as the image runs the poller (image-node-env.ts), with the memory of the task the sizing
 * gives one vCPU ({@link TASK_MEMORY_MIB} MiB: V8 sizes its heap from it, memory-limit.ts). Reports msgs/s
 * of that one core, the CPU it used (so that a run that waited for the broker is told from one that was
 * CPU-bound), and the peak RSS. See bench/README.md, "Per vCPU"; docs/deploying.md sizes tasks from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConsumerResult, ScenarioResult } from './bench-results.js';
import { stats } from './bench-results.js';
import type { BenchScenario, ScenarioContext } from './bench-scenario.js';
import { createBenchTopic } from './bench-topic.js';
import { childPids, pinnedPrefix, pinProcesses, requireTaskset } from './cpu-affinity.js';
import { drainMetrics, drainThrough } from './http-invoke-scenario.js';
import { imageNodeDescription } from './image-node-env.js';
import { memoryLimitWrapper } from './memory-limit.js';
import { benchChildren } from './node-child-build.js';
import { produceBacklog } from './produce-backlog.js';
import { scenarioScale } from './scenario-scale.js';

const BATCH_SIZES = [100, 1000] as const;
const QUEUES = 8;
const MESSAGE_BYTES = 1024;
// CPU per message (the per-vCPU figure) settles within tens of thousands of messages; a smaller backlog keeps the
// full run short on a loaded machine, where the pinned child delivers ~1,000 msgs/s in wall time.
const MESSAGES = { full: 40_000, quick: 2000 } as const;
/** The core the poller runs on, and the one everything else of the bench runs on. */
const POLLER_CORE = '1';
const REST_CORE = '0';
/**
 * The memory of the poller's child: Fargate's least with 1 vCPU, which docs/deploying.md's sizing gives a
 * 1-vCPU task. V8 sizes the old generation and the semi-spaces from it, and the CPU per message follows.
 */
export const TASK_MEMORY_MIB = 2048;
/** The consumer id of the results; bench-summary.ts reads it. */
export const PER_VCPU_CONSUMER_ID = 'ours-lambda-http-1-vcpu';

/**
 * The per-vcpu scenario.
 *
 * @example
 * ```ts
 * const [batch100, batch1000] = await perVcpuScenario.run(context);
 * ```
 */
export const perVcpuScenario: BenchScenario = {
  id: 'per-vcpu',
  description:
    'the production path (LambdaInvoker over HTTP) pinned to one core (taskset -c 1), broker and Invoke API on the other, batch 100 and 1,000: msgs/s per vCPU, peak RSS',
  needsJava: false,
  async run(context: ScenarioContext): Promise<ScenarioResult[]> {
    await requireTaskset(2);
    const messages = context.quick ? MESSAGES.quick : Math.round(MESSAGES.full * scenarioScale());
    const rounds = context.quick ? 1 : context.rounds;
    const warmupRounds = context.quick ? 0 : 1;
    const script = join((await benchChildren()).benchDir, 'drain-child.js');
    const topic = `BenchPerVcpu-${Date.now()}`;
    await createBenchTopic(context.client, context.broker, topic, QUEUES);
    await produceBacklog(context.client, { topic, queues: QUEUES, messages, messageBytes: MESSAGE_BYTES });
    context.log(`per-vcpu: ${messages} messages produced to ${topic}`);

    // The broker's JVMs (namesrv and broker) when they are this process's children; an external broker is not ours to pin.
    const jvms = childPids(process.pid).filter((pid) => commandOf(pid) === 'java');
    const wrapper = [...pinnedPrefix(POLLER_CORE), ...(await memoryLimitWrapper(TASK_MEMORY_MIB))];
    const restore = await pinProcesses([process.pid, ...jvms], REST_CORE);
    const runs = new Map<number, Record<string, number>[]>();
    const errors = new Map<number, string>();
    try {
      for (let index = 0; index < warmupRounds + rounds; index++) {
        const warmup = index < warmupRounds;
        for (const batchSize of index % 2 === 0 ? BATCH_SIZES : [...BATCH_SIZES].reverse()) {
          if (errors.has(batchSize)) continue;
          await sleep(context.pauseBetweenRunsMs);
          try {
            const result = await drainThrough(
              context,
              { script, topic, messages, batchSize, path: 'lambda' },
              { wrapper },
            );
            const metrics = drainMetrics(result);
            const cpuPercentOfCore = (result.cpuFirstToLastMs / Math.max(result.firstToLastMs, 1)) * 100;
            const figures = {
              msgsPerSecFirstToAll: metrics.msgsPerSecFirstToAll as number,
              cpuPercentOfCore,
              cpuUsPerMsg: metrics.cpuMsPer1000Msgs as number,
              msgsPerCpuSec: 1e6 / (metrics.cpuMsPer1000Msgs as number),
              peakRssMiB: metrics.peakRssMiB as number,
              gcPausePercentStartToLast: metrics.gcPausePercentStartToLast as number,
              invokesPerSec: metrics.invokesPerSec as number,
            };
            if (!warmup) runs.set(batchSize, [...(runs.get(batchSize) ?? []), figures]);
            context.log(
              `per-vcpu ${warmup ? 'warm-up' : `round ${index - warmupRounds + 1}`} batch ${batchSize}: ${Math.round(figures.msgsPerSecFirstToAll)} msgs/s on one core (${figures.cpuPercentOfCore.toFixed(0)} % of it), ${figures.peakRssMiB.toFixed(0)} MiB peak RSS`,
            );
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            if (!warmup) errors.set(batchSize, message);
            context.log(`per-vcpu batch ${batchSize} failed: ${message}`);
          }
        }
      }
    } finally {
      await restore();
    }

    return BATCH_SIZES.map((batchSize) => {
      const batchRuns = runs.get(batchSize) ?? [];
      const error = errors.get(batchSize);
      const label = `ours: FunctionMessageListener + LambdaInvoker -> local Invoke API, pinned to core ${POLLER_CORE}`;
      const consumer: ConsumerResult =
        batchRuns.length === 0
          ? { id: PER_VCPU_CONSUMER_ID, label, metrics: {}, error: error ?? 'no run' }
          : {
              id: PER_VCPU_CONSUMER_ID,
              label,
              metrics: Object.fromEntries(
                Object.keys(batchRuns[0] ?? {}).map((name) => [
                  name,
                  stats(batchRuns.map((run) => run[name] as number)),
                ]),
              ),
              ...(error === undefined ? {} : { error }),
            };
      return {
        id: `per-vcpu-batch-${batchSize}`,
        title: `One vCPU of poller: the Lambda path over HTTP pinned to one core, batch size ${batchSize.toLocaleString('en-US')}`,
        workload:
          `${messages.toLocaleString('en-US')} messages of ${MESSAGE_BYTES} B on ${QUEUES} queues drained from the first offset by a fresh group per run, ` +
          `batchSize ${batchSize}, other options default, memory offset store; the child (drain-child.js, LambdaInvoker with keep-alive) under taskset -c ${POLLER_CORE} in a memory cgroup of ${TASK_MEMORY_MIB} MiB (a 1-vCPU Fargate task's), ` +
          `the harness (serving test/support/lambda-api-server.ts, a no-op function) and ${jvms.length > 0 ? `the broker's ${jvms.length} JVMs` : 'no broker JVM (an external broker: not pinned)'} on core ${REST_CORE}; ` +
          `msgsPerSecFirstToAll = what the one core delivered; cpuPercentOfCore = the child's CPU (all its threads) over that time (near 100: CPU-bound); ` +
          `msgsPerCpuSec = 1e6 / CPU µs per message (the rate a fully used vCPU would give); peak RSS = VmHWM; the child runs ${imageNodeDescription()}` +
          (warmupRounds > 0 ? `; ${warmupRounds} unreported warm-up round` : ''),
        runs: batchRuns.length,
        consumers: [consumer],
        ratios: [],
      };
    });
  },
};

/** The command name of a process (`java`, `node`), or '' once it is gone. */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
