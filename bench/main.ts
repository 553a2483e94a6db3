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
import type { BenchScenario, ScenarioContext } from './bench-scenario.js';
import { BENCH_SCENARIOS } from './bench-scenarios.js';
import { createBenchTopic } from './bench-topic.js';
import { fetchDecodeBodies, runDecodeBench } from './decode-bench.js';
import { decodeScenarios } from './decode-scenarios.js';
import { drainContenders, type NodeChildScripts } from './drain-contenders.js';
import type { PreparedDrainPeer } from './drain-peer.js';
import { DRAIN_PEERS } from './drain-peers.js';
import { type DrainRun, runDrainRace } from './drain-race.js';
import { drainScenario } from './drain-summary.js';
import { ensureJavaBenchBuilt, type JavaBenchBuild } from './java-bench.js';
import { buildNodeChild } from './node-child-build.js';
import { produceBacklog } from './produce-backlog.js';
import { renderCharts } from './render-charts.js';
import { type BenchEnvironment, renderReport } from './report.js';
import { runScaleBench } from './scale-bench.js';

const RAW_PULL_CHILD = 'raw-pull-child.ts';
const DECODE_CHILD = 'decode-child.ts';

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
  const [brokerResult, buildsResult] = await Promise.allSettled([
    startBenchBroker({ heapMb: options.brokerHeapMb, external: options.externalBroker }),
    buildChildren(drain || scenarios.length > 0 || options.decode, needsJava),
  ]);
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
      // The peers get ready (a proxy JVM to start, children to compile) while the backlog is produced.
      const [, contenders] = await Promise.all([
        timed('produce', () => produceBacklog(client, { topic, ...options })).then(() => {
          produceMs = Date.now() - produceStartedAt;
        }),
        timed('peers prepare (during produce)', () =>
          drainContenders({
            options,
            namesrvAddr: broker.namesrvAddr,
            scripts: builds.scripts,
            java: builds.java,
            peers: DRAIN_PEERS,
            errors,
            prepared,
            log,
          }),
        ),
      ]);
      const outcome = await timed('drain race', () => runDrainRace(contenders, topic, options, errors, log));
      drainRuns = outcome.runs;
      results.push(drainScenario(contenders, outcome.runs, outcome.errors, options));
      failed ||= contenders.some((contender) => contender.builtin && outcome.errors.has(contender.id));
    }

    if (options.decode) {
      try {
        log('decode micro-benchmark: producing and pulling one body per case...');
        const decode = await timed('decode', async () =>
          runDecodeBench(await fetchDecodeBodies(client, broker), builds.java, decodeChildOf(builds), {
            rounds: options.rounds,
            warmupMs: options.decodeWarmupMs,
            measureMs: options.decodeMeasureMs,
            javaHeapMb: options.javaHeapMb,
            log,
          }),
        );
        results.push(...decodeScenarios(decode));
      } catch (error) {
        failed = true;
        results.push(failedScenario('decode', 'Decode PULL bodies', error));
        log(`decode failed: ${messageOf(error)}`);
      }
    }

    const context: ScenarioContext = {
      broker,
      client,
      quick: options.quick,
      rounds: options.rounds,
      childScript: builds.scripts?.consumer,
      java: builds.java,
      javaHeapMb: options.javaHeapMb,
      log,
    };
    for (const scenario of scenarios) {
      try {
        log(`scenario ${scenario.id}: ${scenario.description}`);
        results.push(...(await timed(`scenario ${scenario.id}`, () => scenario.run(context))));
      } catch (error) {
        failed = true;
        results.push(failedScenario(scenario.id, scenario.description, error));
        log(`scenario ${scenario.id} failed: ${messageOf(error)}`);
      }
    }

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
      versions: await benchVersions({
        rocketmq:
          options.externalBroker === undefined ? selectedBrokerVersion().rocketmqVersion : 'external broker',
        'rocketmq-client (Java)': '5.3.3',
        ...Object.fromEntries(
          DRAIN_PEERS.filter((peer) => options.consumers.includes(peer.id)).map((peer) => [
            peer.id,
            peer.version,
          ]),
        ),
      }),
      scenarios: results,
    };
    await mkdir(dirname(options.outFile), { recursive: true });
    await writeFile(options.jsonFile, `${JSON.stringify(document, null, 2)}\n`, 'utf8');
    let charts: string[] = [];
    if (options.charts) {
      try {
        charts = await timed('charts', () => renderCharts(document, options.jsonFile.replace(/\.json$/, '')));
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
    await Promise.allSettled(prepared.map((peer) => peer.stop()));
    await client.close();
    await bench.release();
  }
}

async function buildChildren(needsNodeChild: boolean, needsJava: boolean): Promise<Builds> {
  const [child, java] = await Promise.all([
    needsNodeChild ? buildNodeChild({ entries: [RAW_PULL_CHILD, DECODE_CHILD] }) : Promise.resolve(undefined),
    needsJava ? ensureJavaBenchBuilt() : Promise.resolve(undefined),
  ]);
  return {
    scripts:
      child === undefined
        ? undefined
        : {
            consumer: child.childScript,
            rawPull: join(child.benchDir, RAW_PULL_CHILD.replace(/\.ts$/, '.js')),
            decode: join(child.benchDir, DECODE_CHILD.replace(/\.ts$/, '.js')),
          },
    java,
  };
}

/** The compiled decode child (built whenever the run decodes). */
function decodeChildOf(builds: Builds): string {
  if (builds.scripts === undefined) throw new Error('unreachable: the decode child was not built');
  return builds.scripts.decode;
}

function failedScenario(id: string, title: string, error: unknown): ScenarioResult {
  return {
    id,
    title,
    workload: 'did not complete',
    runs: 0,
    consumers: [],
    ratios: [],
    error: messageOf(error),
  };
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
