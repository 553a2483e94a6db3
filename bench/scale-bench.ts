/**
 * `npm run bench -- --only scale`: one poller with many mappings and topics with many queues, on a local
 * cluster of two broker groups (masters only: replication is not what is measured, and slaves would
 * only add JVMs to a shared 2-core machine). Creates the plan's topics (scale-plan.ts), then runs every
 * case of the plan as its own poller child (scale-child.ts) `--rounds` times, and writes the Markdown
 * and JSON reports (scale-report.ts) to bench/results/.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LocalCluster, startLocalCluster } from '../src/local-broker/local-cluster.js';
import { ensureRocketMQJars, ROCKETMQ_VERSION } from '../src/local-broker/rocketmq-jars.js';
import { runCommand } from '../src/local-broker/run-command.js';
import { forEachConcurrently } from '../src/util/for-each-concurrently.js';
import type { BenchOptions } from './bench-options.js';
import { runChild } from './child-run.js';
import { benchChildren } from './node-child-build.js';
import type { BenchEnvironment } from './report.js';
import type { ScaleChildResult, ScaleChildSpec } from './scale-child.js';
import { type ScaleCase, type ScalePlan, scaleCases, scalePlan } from './scale-plan.js';
import { renderScaleReport, type ScaleClusterInfo, type ScaleReportDocument } from './scale-report.js';
import { type ScaleRun, summarizeScale } from './scale-summary.js';

const TOPIC_CREATE_CONCURRENCY = 4;
/** Above this 1-minute load average the harness waits before a run (idle CPU figures need a quiet machine). */
const MAX_LOAD_AVG = 8;
const LOAD_WAIT_MS = 5 * 60_000;
const LOAD_POLL_MS = 10_000;
const PAUSE_BETWEEN_CHILDREN_MS = 1000;
/** A child's own start, stop and measuring on top of its plan's waits. */
const CHILD_SLACK_MS = 120_000;

/**
 * Runs the scale bench and writes its reports; returns the process exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runScaleBench(options, { environment, log: (line) => console.error(line) });
 * ```
 */
export async function runScaleBench(
  options: BenchOptions,
  context: { environment: BenchEnvironment; log: (line: string) => void },
): Promise<number> {
  const { log } = context;
  const plan = scalePlan(options.quick);
  const cases = scaleCases(plan);
  const startedAt = Date.now();
  log(
    `scale: ${plan.brokerGroups} broker groups (masters only), cases ${cases.map((c) => c.id).join(', ')}, ${options.rounds} run(s)`,
  );
  await ensureRocketMQJars();
  const [clusterResult, buildResult] = await Promise.allSettled([
    startLocalCluster({ brokerGroups: plan.brokerGroups, slavesPerGroup: 0, heapMb: options.brokerHeapMb }),
    benchChildren(),
  ]);
  const cluster = clusterResult.status === 'fulfilled' ? clusterResult.value : undefined;
  if (clusterResult.status === 'rejected' || buildResult.status === 'rejected' || cluster === undefined) {
    await cluster?.stop();
    throw clusterResult.status === 'rejected'
      ? clusterResult.reason
      : buildResult.status === 'rejected'
        ? buildResult.reason
        : new Error('unreachable: no cluster');
  }
  const workDir = await mkdtemp(join(tmpdir(), 'rocketmq-lambda-bench-scale-'));
  try {
    log(`cluster ready at ${cluster.namesrvAddr} (${secondsSince(startedAt)} s)`);
    const stamp = Date.now();
    const smallTopics = Array.from(
      { length: Math.max(...plan.mappingCounts) },
      (_, i) => `ScaleSmall-${stamp}-${String(i).padStart(2, '0')}`,
    );
    const wideTopic = `ScaleWide-${stamp}`;
    await createTopics(cluster, plan, smallTopics, wideTopic);
    log(`created ${smallTopics.length} small topics and ${wideTopic} (${secondsSince(startedAt)} s)`);

    const childScript = join(buildResult.value.benchDir, 'scale-child.js');
    const handlerRef = `local:${join(buildResult.value.benchDir, 'noop-handler.js')}#handler`;
    const runs: ScaleRun[] = [];
    const loadAvgBeforeRuns: number[] = [];
    const peers = peerLabels(cluster);
    const clusterInfo: ScaleClusterInfo = {
      rocketmqVersion: ROCKETMQ_VERSION,
      brokerGroups: plan.brokerGroups,
      slavesPerGroup: 0,
      brokerHeapMb: options.brokerHeapMb,
      peers,
    };
    const revision = await gitRevision();
    const jsonFile = `${options.outFile.replace(/\.md$/, '')}.json`;
    await mkdir(dirname(options.outFile), { recursive: true });
    // Written after every run, so that a later run's failure or a stop keeps what was measured.
    const writeReports = async (): Promise<string> => {
      const doc: ScaleReportDocument = {
        version: 1,
        quick: options.quick,
        gitRevision: revision,
        environment: context.environment,
        cluster: clusterInfo,
        plan,
        cases: cases.map(({ id, queues, idle, drain }) => ({ id, queues, idle, drain })),
        loadAvgBeforeRuns,
        runs,
        summary: summarizeScale(runs, cases, peers),
      };
      const markdown = renderScaleReport(doc);
      await writeFile(options.outFile, markdown, 'utf8');
      await writeFile(jsonFile, `${JSON.stringify(doc, null, 2)}\n`, 'utf8');
      return markdown;
    };
    for (let run = 1; run <= options.rounds; run++) {
      // A quick run is a smoke test of the harness: it notes the load but does not wait for a quiet machine.
      loadAvgBeforeRuns.push(options.quick ? (loadavg()[0] ?? 0) : await waitForQuietMachine(log));
      const results: ScaleChildResult[] = [];
      const failures: { caseId: string; error: string }[] = [];
      for (const scaleCase of cases) {
        await sleep(PAUSE_BETWEEN_CHILDREN_MS);
        const groupPrefix = `scale-${stamp}-r${run}-${scaleCase.id}`;
        const configFile =
          scaleCase.mappings.length === 0
            ? undefined
            : await writeConfig(workDir, groupPrefix, scaleCase, {
                namesrvAddr: cluster.namesrvAddr,
                smallTopics,
                wideTopic,
                handlerRef,
              });
        const spec: ScaleChildSpec = {
          caseId: scaleCase.id,
          configFile,
          expectedQueues: scaleCase.queues,
          settleMs: plan.settleMs,
          idleMs: scaleCase.idle ? plan.idleMs : 0,
          holdTimeoutMs: plan.holdTimeoutMs,
          drain: scaleCase.drain
            ? {
                namesrvAddr: cluster.namesrvAddr,
                topics: smallTopics,
                messagesPerTopic: plan.drainMessagesPerTopic,
              }
            : undefined,
        };
        try {
          const { result } = await runChild(
            process.execPath,
            ['--expose-gc', childScript, JSON.stringify(spec)],
            {
              timeoutMs: plan.holdTimeoutMs + plan.settleMs + plan.idleMs + CHILD_SLACK_MS,
              env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
            },
          );
          const childResult = result as unknown as ScaleChildResult;
          results.push(childResult);
          log(`run ${run} ${scaleCase.id}: ${describe(childResult)}`);
        } catch (error) {
          // A case that fails is a finding, not a reason to lose the other cases: it is listed in the report.
          const message = error instanceof Error ? error.message : String(error);
          failures.push({ caseId: scaleCase.id, error: message });
          log(`run ${run} ${scaleCase.id} FAILED: ${message}`);
        }
      }
      runs.push({ run, results, failures });
      await writeReports();
      log(`run ${run} written to ${options.outFile} and ${jsonFile}`);
    }

    const markdown = await writeReports();
    process.stdout.write(`\n${markdown}`);
    const failed = runs.reduce((sum, run) => sum + run.failures.length, 0);
    log(`written to ${options.outFile} and ${jsonFile} (whole run ${secondsSince(startedAt)} s)`);
    return failed === 0 ? 0 : 1;
  } finally {
    await rm(workDir, { recursive: true, force: true });
    await cluster.stop();
  }
}

async function createTopics(
  cluster: LocalCluster,
  plan: ScalePlan,
  smallTopics: readonly string[],
  wideTopic: string,
): Promise<void> {
  await cluster.createTopic(wideTopic, plan.wideQueuesPerGroup);
  await forEachConcurrently(smallTopics, TOPIC_CREATE_CONCURRENCY, (topic) =>
    cluster.createTopic(topic, plan.smallQueuesPerGroup),
  );
}

/** A run config as a user writes it: one mapping per entry, each its own consumer group, offsets in memory. */
async function writeConfig(
  workDir: string,
  groupPrefix: string,
  scaleCase: ScaleCase,
  target: { namesrvAddr: string; smallTopics: readonly string[]; wideTopic: string; handlerRef: string },
): Promise<string> {
  const config = {
    nameServer: target.namesrvAddr,
    offsets: { store: 'memory' },
    mappings: scaleCase.mappings.map((mapping, i) => {
      const topic =
        mapping.topic.kind === 'wide'
          ? target.wideTopic
          : (target.smallTopics[mapping.topic.index] as string);
      return { name: `m${i}`, topic, consumerGroup: `${groupPrefix}-${i}`, function: target.handlerRef };
    }),
  };
  const file = join(workDir, `${groupPrefix}.json`);
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, 'utf8');
  return file;
}

/** `host:port` → `namesrv` / the broker group name (masters only in this bench). */
function peerLabels(cluster: LocalCluster): Record<string, string> {
  const labels: Record<string, string> = { [cluster.namesrvAddr]: 'namesrv' };
  for (const node of cluster.nodes) {
    labels[node.address] = node.brokerId === 0 ? node.brokerName : `${node.brokerName}-${node.brokerId}`;
  }
  return labels;
}

/** Waits (up to {@link LOAD_WAIT_MS}) while the 1-minute load average is above {@link MAX_LOAD_AVG}; returns it. */
async function waitForQuietMachine(log: (line: string) => void): Promise<number> {
  const deadline = Date.now() + LOAD_WAIT_MS;
  for (;;) {
    const [load = 0] = loadavg();
    if (load <= MAX_LOAD_AVG) return load;
    if (Date.now() > deadline) {
      log(
        `load average still ${load.toFixed(2)} after ${LOAD_WAIT_MS / 60_000} min: running anyway (see the report)`,
      );
      return load;
    }
    log(`load average ${load.toFixed(2)} > ${MAX_LOAD_AVG}: waiting`);
    await sleep(LOAD_POLL_MS);
  }
}

function describe(result: ScaleChildResult): string {
  const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  const parts = [
    `${result.mappings} mappings, ${result.queuesHeld} queues held after ${result.startToHeldMs} ms`,
    `RSS ${mib(result.memory.rssBytes)} MiB, heap ${mib(result.memory.heapUsedBytes)} MiB`,
    `${result.sockets.filter((s) => s.state === 'ESTABLISHED').length} connections`,
  ];
  if (result.idle !== undefined) {
    const cpu = ((result.idle.cpuUserMs + result.idle.cpuSystemMs) / result.idle.wallMs) * 100;
    parts.push(
      `idle CPU ${cpu.toFixed(2)} % (${result.idle.pullRequests} pulls, load ${result.idle.loadAvgBefore[0]})`,
    );
  }
  if (result.drain !== undefined) parts.push(`drained ${result.drain.consumed} in ${result.drain.ms} ms`);
  return parts.join(', ');
}

async function gitRevision(): Promise<string> {
  const result = await runCommand('git', ['describe', '--always', '--dirty'], { timeoutMs: 10_000 });
  return result.exitCode === 0 ? result.stdout.trim() : 'unknown';
}

function secondsSince(ms: number): string {
  return ((Date.now() - ms) / 1000).toFixed(1);
}
