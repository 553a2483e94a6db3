/**
 * `npm run bench`: our consumer against Apache RocketMQ's own Java DefaultMQPushConsumer (5.3.3), the
 * registered Node peers and the raw PULL limit, on the same broker in the same run. Produces a backlog
 * (1,000,000 messages of 1 KiB by default) to a fresh topic, lets every contender drain it from the
 * first offset round after round (drain-race.ts), then runs the decode micro-benchmark and every
 * registered scenario (bench-scenarios.ts), and writes bench/results/latest.json (bench-results.ts),
 * latest.md and the PNG charts. See bench/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { selectedBrokerVersion } from '../src/local-broker/broker-version.js';
import { ensureRocketMQJars } from '../src/local-broker/rocketmq-jars.js';
import { rootLogger } from '../src/util/logger.js';
import { type BenchBroker, startBenchBroker } from './bench-broker.js';
import { benchVersions, currentLoad, machineAtStart } from './bench-machine.js';
import { type BenchOptions, BenchUsageError, parseBenchOptions } from './bench-options.js';
import type { BenchResults, ScenarioResult } from './bench-results.js';
import type { BenchScenario } from './bench-scenario.js';
import { BENCH_SCENARIOS } from './bench-scenarios.js';
import { benchSummary } from './bench-summary.js';
import { createBenchTopic } from './bench-topic.js';
import { runDecodeAndScenarios } from './decode-and-scenarios.js';
import { drainContenders, type NodeChildScripts } from './drain-contenders.js';
import type { PreparedDrainPeer } from './drain-peer.js';
import { DRAIN_PEERS } from './drain-peers.js';
import { type DrainProfile, profileDrain } from './drain-profile.js';
import { type DrainContender, type DrainRun, runDrainRace } from './drain-race.js';
import { drainScenario } from './drain-summary.js';
import { benchNode, resolvedBenchNode } from './image-node-env.js';
import { ensureJavaBenchBuilt, type JavaBenchBuild } from './java-bench.js';
import { benchChildren } from './node-child-build.js';
import { produceBacklog } from './produce-backlog.js';
import { type BenchEnvironment, renderReport } from './report.js';
import { runScaleBench } from './scale-bench.js';

interface Builds {
  scripts: NodeChildScripts | undefined;
  java: JavaBenchBuild | undefined;
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env, {
      peers: DRAIN_PEERS.map((peer) => peer.id),
      scenarios: BENCH_SCENARIOS.map((scenario) => scenario.id),
    });
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    console.error(`bench: ${error.message}\n${error.usage}`);
    return 2;
  }
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  if (options.only === 'scale') return runScaleBench(options, { environment: await scaleEnvironment(), log });

  const startedAt = Date.now();
  const machine = machineAtStart();
  // Read before the run: `git describe --dirty` at the end would see the profiles --profile rewrites.
  const versions = benchVersions({
    rocketmq:
      options.externalBroker === undefined ? selectedBrokerVersion().rocketmqVersion : 'external broker',
    'rocketmq-client (Java)': '5.3.3',
    ...Object.fromEntries(
      DRAIN_PEERS.filter((peer) => options.consumers.includes(peer.id)).map((peer) => [
        peer.id,
        peer.version,
      ]),
    ),
  });
  const drain = options.only === undefined;
  const scenarios: readonly BenchScenario[] = drain
    ? options.scenarios
      ? BENCH_SCENARIOS
      : []
    : BENCH_SCENARIOS.filter((scenario) => scenario.id === options.only);
  const needsJava =
    (drain && options.consumers.includes('java')) ||
    options.decode ||
    scenarios.some((scenario) => scenario.needsJava);
  log(
    drain
      ? `${fmt(options.messages)} messages of ${fmt(options.messageBytes)} B, ${options.queues} queues, ${options.warmupRounds} warm-up + ${options.rounds} round(s) of ${options.consumers.join(', ')}; then ${[options.decode ? 'decode' : '', ...scenarios.map((scenario) => scenario.id)].filter(Boolean).join(', ') || 'nothing else'}`
      : `${options.only} only, ${options.rounds} round(s)`,
  );

  // Jars first: two Maven runs (broker jars, Java peer) resolving into one local repository can collide.
  if (options.externalBroker === undefined) await ensureRocketMQJars();
  log('starting the broker and building the children (node, Java)...');
  const starting = Promise.allSettled([
    startBenchBroker({
      heapMb: options.brokerHeapMb,
      lean: options.quick,
      external: options.externalBroker,
    }),
    buildChildren(drain || scenarios.length > 0 || options.decode, needsJava),
  ]);
  // Vega and resvg take seconds to load: they load while the broker starts. A failure shows at the charts.
  const chartRenderer = options.charts ? import('./render-charts.js') : undefined;
  chartRenderer?.catch(() => undefined);
  const [brokerResult, buildsResult] = await starting;
  const bench: BenchBroker | undefined = brokerResult.status === 'fulfilled' ? brokerResult.value : undefined;
  if (brokerResult.status === 'rejected' || buildsResult.status === 'rejected' || bench === undefined) {
    await bench?.release();
    throw brokerResult.status === 'rejected'
      ? brokerResult.reason
      : buildsResult.status === 'rejected'
        ? buildsResult.reason
        : new Error('unreachable: no broker');
  }
  const builds = buildsResult.value;
  const { broker } = bench;
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr });
  const prepared: PreparedDrainPeer[] = [];
  let contenders: DrainContender[] = [];
  /** A quick run stops its peers right after the race (the proxy's JVM takes seconds) while the rest runs. */
  let peersStopped: Promise<unknown> = Promise.resolve();
  let failed = false;
  try {
    log(`broker ready at ${broker.namesrvAddr} (${secondsSince(startedAt)} s)`);
    /** Part -> seconds, for the report: where a run's time went. */
    const timings: Array<readonly [string, number]> = [
      ['broker and builds', (Date.now() - startedAt) / 1000],
    ];
    const timed = async <T>(part: string, work: () => Promise<T>): Promise<T> => {
      const partStartedAt = Date.now();
      try {
        return await work();
      } finally {
        timings.push([part, (Date.now() - partStartedAt) / 1000]);
        log(`${part} took ${secondsSince(partStartedAt)} s`);
      }
    };
    const results: ScenarioResult[] = [];
    let drainRuns: readonly DrainRun[] = [];
    let produceMs: number | undefined;
    if (drain) {
      const topic = `BenchTopic-${Date.now()}`;
      await createBenchTopic(client, broker, topic, options.queues);
      const produceStartedAt = Date.now();
      const errors = new Map<string, string>();
      // The peers get ready (a proxy JVM to start) while the backlog is produced; a quick run does not
      // wait for them either: the race starts, and a peer runs once it is ready (the last in round 1).
      contenders = drainContenders({
        options,
        namesrvAddr: broker.namesrvAddr,
        scripts: builds.scripts,
        java: builds.java,
        peers: DRAIN_PEERS,
        errors,
        prepared,
        log,
      });
      const peersReady = timed(
        options.quick ? 'peers prepare (during produce and race)' : 'peers prepare (during produce)',
        () => Promise.all(contenders.map((contender) => contender.ready)),
      );
      await Promise.all([
        timed('produce', () => produceBacklog(client, { topic, ...options })).then(() => {
          produceMs = Date.now() - produceStartedAt;
        }),
        options.quick ? undefined : peersReady,
      ]);
      const outcome = await timed('drain race', () =>
        runDrainRace(contenders, topic, broker, options, errors, log),
      );
      drainRuns = outcome.runs;
      const summary = drainScenario(contenders, outcome.runs, outcome.errors, options);
      const profiles = options.profile
        ? await timed('drain profiles', () => profileDrain(contenders, topic, options, outcome.errors, log))
        : [];
      results.push(
        profiles.length === 0 ? summary : { ...summary, workload: summary.workload + profileNote(profiles) },
      );
      failed ||= contenders.some((contender) => contender.builtin && outcome.errors.has(contender.id));
      if (options.quick) peersStopped = Promise.allSettled(prepared.splice(0).map((peer) => peer.stop()));
    }

    const after = await runDecodeAndScenarios({
      options,
      scenarios,
      context: {
        broker,
        client,
        quick: options.quick,
        rounds: options.rounds,
        pauseBetweenRunsMs: options.pauseBetweenRunsMs,
        java: builds.java,
        javaHeapMb: options.javaHeapMb,
        log,
      },
      decodeChild: builds.scripts?.decode,
      timed,
    });
    results.push(...after.results);
    failed ||= after.failed;

    const args = process.argv.slice(2);
    const document: BenchResults = {
      schemaVersion: 1,
      date: new Date(startedAt).toISOString(),
      command: args.length === 0 ? 'npm run bench' : `npm run bench -- ${args.join(' ')}`,
      quick: options.quick,
      machine: {
        cpus: machine.cpus,
        cpuModel: machine.cpuModel,
        memoryMiB: machine.memoryMiB,
        loadAverage: { start: machine.loadAverageStart, end: currentLoad() },
      },
      versions: { ...(await versions), ...childNodeVersion() },
      scenarios: results,
      ...summaryOf(results),
    };
    await mkdir(dirname(options.outFile), { recursive: true });
    await writeFile(options.jsonFile, `${JSON.stringify(document, null, 2)}\n`, 'utf8');
    let charts: string[] = [];
    if (options.charts) {
      try {
        charts = await timed('charts', async () =>
          (await (chartRenderer ?? import('./render-charts.js'))).renderCharts(
            document,
            options.jsonFile.replace(/\.json$/, ''),
          ),
        );
      } catch (error) {
        failed = true;
        log(`rendering the charts failed: ${messageOf(error)}`);
      }
    }
    const report = renderReport({
      results: document,
      options,
      brokerDescription: bench.description,
      drainRuns,
      produceMs,
      timings,
      charts: charts.map((file) => basename(file)),
    });
    process.stdout.write(`\n${report}`);
    await writeFile(options.outFile, report, 'utf8');
    log(
      `written to ${options.outFile}, ${options.jsonFile}${charts.length > 0 ? ` and ${charts.length} charts beside them` : ''} (whole run ${secondsSince(startedAt)} s)`,
    );
    return failed ? 1 : 0;
  } finally {
    await releaseAll(contenders, prepared, peersStopped, client, bench);
  }
}

/**
 * Stops what the run started: the peers still in `prepared` (one still preparing, after a quick run's
 * race that failed early, once it is ready; `peersStopped`: those already stopping), the client and the
 * broker, side by side (the proxy's and the broker's JVMs take seconds each). A peer's failure to stop
 * is not the run's; the client's and the broker's are.
 */
async function releaseAll(
  contenders: readonly DrainContender[],
  prepared: readonly PreparedDrainPeer[],
  peersStopped: Promise<unknown>,
  client: RocketMQClient,
  bench: BenchBroker,
): Promise<void> {
  await Promise.all(contenders.map((contender) => contender.ready));
  const [closed, released] = await Promise.allSettled([
    client.close(),
    bench.release(),
    peersStopped,
    ...prepared.map((peer) => peer.stop()),
  ]);
  for (const outcome of [closed, released]) if (outcome?.status === 'rejected') throw outcome.reason;
}

async function buildChildren(needsNodeChild: boolean, needsJava: boolean): Promise<Builds> {
  const [children, java] = await Promise.all([
    needsNodeChild ? Promise.all([benchChildren(), benchNode()]) : Promise.resolve(undefined),
    needsJava ? ensureJavaBenchBuilt() : Promise.resolve(undefined),
  ]);
  if (children === undefined) return { scripts: undefined, java };
  const [build, node] = children;
  log(
    `${build.compiled ? 'node children compiled' : 'node children: reusing the build of these sources'}; they run under Node ${node.version} (${node.path}), the image's line`,
  );
  return {
    scripts: {
      node: node.path,
      consumer: join(build.benchDir, 'consumer-child.js'),
      rawPull: join(build.benchDir, 'raw-pull-child.js'),
      decode: join(build.benchDir, 'decode-child.js'),
    },
    java,
  };
}

/**
 * The node our children and the scenarios' ones ran on, the image's line (image-node-env.ts), when it
 * was resolved: `versions.node` is the harness's, which the peers' node children use.
 */
function childNodeVersion(): Record<string, string> {
  const node = resolvedBenchNode();
  return node === undefined ? {} : { 'node (ours, the image line)': node.version };
}

/** The results' `summary`, `summaryMissing` and `checks` (bench-summary.ts). */
function summaryOf(
  results: readonly ScenarioResult[],
): Pick<BenchResults, 'summary' | 'summaryMissing' | 'checks'> {
  const { summary, missing, checks } = benchSummary(results);
  return { summary, summaryMissing: missing, checks };
}

/** The drain scenario's workload note on `--profile`'s runs. */
function profileNote(profiles: readonly DrainProfile[]): string {
  const lines = profiles.map((profile) =>
    profile.error === undefined
      ? `${profile.contender} ${profile.file} (top frames in .top.txt beside it)`
      : `${profile.contender} failed: ${profile.error}`,
  );
  return `; --profile: one extra, unreported run each under node --cpu-prof (start-up included): ${lines.join(', ')}`;
}

/** The scale bench's report header. */
async function scaleEnvironment(): Promise<BenchEnvironment> {
  const machine = machineAtStart();
  const versions = await benchVersions({});
  const args = process.argv.slice(2);
  return {
    date: new Date().toISOString(),
    cpus: machine.cpus,
    cpuModel: machine.cpuModel,
    memoryMb: machine.memoryMiB,
    nodeVersion: process.version,
    javaVersion: versions.java ?? 'unknown',
    command: args.length === 0 ? 'npm run bench' : `npm run bench -- ${args.join(' ')}`,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function secondsSince(ms: number): string {
  return ((Date.now() - ms) / 1000).toFixed(1);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
