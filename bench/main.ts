/**
 * `npm run bench`: our consumer against Apache RocketMQ's own Java DefaultMQPushConsumer (5.3.3) on the
 * same local broker in the same run. Starts a local RocketMQ, produces N messages to a fresh topic,
 * then consumes them from the first offset with each consumer in turn (a child process each, a fresh
 * group each run, rounds alternating the order), and reports median throughput and peak memory with
 * the ratios ours / Java as Markdown on stdout and in bench/results/. See bench/README.md.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { Producer, type ProducerMessage } from '../src/client/producer.js';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { type LocalBroker, startLocalBroker } from '../src/local-broker/local-broker.js';
import { ensureRocketMQJars } from '../src/local-broker/rocketmq-jars.js';
import { runCommand } from '../src/local-broker/run-command.js';
import { rootLogger } from '../src/util/logger.js';
import { type BenchOptions, BenchUsageError, type ConsumerKind, parseBenchOptions } from './bench-options.js';
import { createBenchTopic } from './bench-topic.js';
import { numberField, runChild } from './child-run.js';
import type { ConsumerChildSpec } from './consumer-child.js';
import { type DecodeCaseResult, fetchDecodeBodies, runDecodeBench } from './decode-bench.js';
import { ensureJavaBenchBuilt, type JavaBenchBuild, javaBenchArgs } from './java-bench.js';
import { benchMessageBody } from './message-body.js';
import { buildNodeChild } from './node-child-build.js';
import { type BenchEnvironment, type ConsumerRun, renderReport } from './report.js';
import { runScaleBench } from './scale-bench.js';

/** Body bytes per producer batch (SEND_BATCH_MESSAGE); the broker's limit is far above. */
const PRODUCE_BATCH_BYTES = 128 * 1024;
const PRODUCE_STREAMS = 2;
const PRODUCE_RETRIES = 5;
/** A short pause between consumer runs, so that one run's shutdown does not overlap the next start. */
const PAUSE_BETWEEN_RUNS_MS = 1000;
const DECODE_WARMUP_MS = 2000;
const DECODE_MEASURE_MS = 2000;

interface Peers {
  childScript: string | undefined;
  java: JavaBenchBuild | undefined;
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    console.error(`bench: ${error.message}\n${error.usage}`);
    return 2;
  }
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  if (options.only === 'scale') return runScaleBench(options, { environment: await environment(), log });
  const onlyDecode = options.only === 'decode';
  const needsJava = (options.consumers.includes('java') && !onlyDecode) || options.decode;
  const startedAt = Date.now();
  log(
    onlyDecode
      ? `decode micro-benchmark only, ${options.rounds} round(s)`
      : `${fmt(options.messages)} messages of ${fmt(options.messageBytes)} B, ${options.queues} queues, ${options.rounds} round(s) of ${options.consumers.join(', ')}`,
  );

  // Jars first: two Maven runs resolving into the same local repository at once can collide.
  await ensureRocketMQJars();
  log('starting the local broker and building the consumers (node child, Java peer)...');
  const [brokerResult, peersResult] = await Promise.allSettled([
    startLocalBroker({ heapMb: options.brokerHeapMb, extraJvmOptions: ['-XX:TieredStopAtLevel=4'] }),
    buildPeers(!onlyDecode, needsJava),
  ]);
  const broker = brokerResult.status === 'fulfilled' ? brokerResult.value : undefined;
  if (brokerResult.status === 'rejected' || peersResult.status === 'rejected' || broker === undefined) {
    await broker?.stop();
    throw brokerResult.status === 'rejected'
      ? brokerResult.reason
      : peersResult.status === 'rejected'
        ? peersResult.reason
        : new Error('unreachable: no broker');
  }
  const peers = peersResult.value;
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr });
  try {
    log(`broker ready at ${broker.namesrvAddr} (${secondsSince(startedAt)} s)`);
    const runs: ConsumerRun[] = [];
    const topic = `BenchTopic-${Date.now()}`;
    if (!onlyDecode) {
      await createBenchTopic(client, broker, topic, options.queues);
      const produceStartedAt = Date.now();
      await produce(client, topic, options);
      log(`produced ${fmt(options.messages)} messages to ${topic} in ${secondsSince(produceStartedAt)} s`);
    }
    for (let index = 0; !onlyDecode && index < options.warmupRounds + options.rounds; index++) {
      const warmup = index < options.warmupRounds;
      const round = warmup ? index + 1 : index - options.warmupRounds + 1;
      for (const kind of rotate(options.consumers, index)) {
        await sleep(PAUSE_BETWEEN_RUNS_MS);
        const run = await runConsumer(kind, round, warmup, { broker, topic, options, peers });
        runs.push(run);
        log(
          `${warmup ? 'warm-up' : 'round'} ${round} ${kind}: ${fmt(run.received / (run.startToLastMs / 1000))} msgs/s (${fmt(run.startToLastMs)} ms from start, first after ${fmt(run.startToFirstMs)} ms), peak RSS ${mib(run.peakRssBytes)} MiB, heap ${mib(run.peakHeapUsedBytes)} MiB${run.peakArrayBuffersBytes === undefined ? '' : `, Buffers ${mib(run.peakArrayBuffersBytes)} MiB`}`,
        );
      }
    }

    let decode: DecodeCaseResult[] | undefined;
    if (options.decode) {
      log('decode micro-benchmark: producing and pulling one body per case...');
      decode = await runDecodeBench(await fetchDecodeBodies(client, broker), peers.java, {
        rounds: options.rounds,
        warmupMs: DECODE_WARMUP_MS,
        measureMs: DECODE_MEASURE_MS,
        javaHeapMb: options.javaHeapMb,
        log,
      });
    }

    const report = renderReport({ options, env: await environment(), runs, decode });
    process.stdout.write(`\n${report}`);
    await mkdir(dirname(options.outFile), { recursive: true });
    await writeFile(options.outFile, report, 'utf8');
    log(`written to ${options.outFile} (whole run ${secondsSince(startedAt)} s)`);
    return 0;
  } finally {
    await client.close();
    await broker.stop();
  }
}

async function buildPeers(needsNodeChild: boolean, needsJava: boolean): Promise<Peers> {
  const [child, java] = await Promise.all([
    needsNodeChild ? buildNodeChild() : Promise.resolve(undefined),
    needsJava ? ensureJavaBenchBuilt() : Promise.resolve(undefined),
  ]);
  return { childScript: child?.childScript, java };
}

/**
 * Sends the messages in batches, queue by queue, {@link PRODUCE_STREAMS} queues at a time: more
 * streams make a cold broker answer SYSTEM_BUSY (a send waited over 200 ms in its queue).
 */
async function produce(client: RocketMQClient, topic: string, options: BenchOptions): Promise<void> {
  const producer = new Producer({ client, producerGroup: 'rocketmq-lambda-bench', retries: PRODUCE_RETRIES });
  await producer.start();
  try {
    const perBatch = Math.max(1, Math.floor(PRODUCE_BATCH_BYTES / options.messageBytes));
    const pending = Array.from({ length: options.queues }, (_, queueId) => queueId);
    const stream = async (): Promise<void> => {
      for (let queueId = pending.shift(); queueId !== undefined; queueId = pending.shift()) {
        const mine =
          Math.floor(options.messages / options.queues) +
          (queueId < options.messages % options.queues ? 1 : 0);
        for (let sent = 0; sent < mine; sent += perBatch) {
          const batch: ProducerMessage[] = [];
          for (let i = sent; i < Math.min(mine, sent + perBatch); i++) {
            batch.push({ topic, body: benchMessageBody(queueId, i, options.messageBytes), tags: 'bench' });
          }
          await producer.sendBatch(batch, { queueId });
        }
      }
    };
    await Promise.all(Array.from({ length: PRODUCE_STREAMS }, stream));
  } finally {
    await producer.shutdown();
  }
}

async function runConsumer(
  kind: ConsumerKind,
  round: number,
  warmup: boolean,
  context: { broker: LocalBroker; topic: string; options: BenchOptions; peers: Peers },
): Promise<ConsumerRun> {
  const { broker, topic, options, peers } = context;
  const group = `bench-${kind}-${warmup ? 'w' : ''}${round}-${Date.now()}`;
  let outcome: Awaited<ReturnType<typeof runChild>>;
  if (kind === 'java') {
    if (peers.java === undefined) throw new Error('unreachable: the Java peer was not built');
    const args = [
      'consume',
      broker.namesrvAddr,
      topic,
      group,
      String(options.messages),
      String(options.runTimeoutMs),
    ];
    outcome = await runChild('java', javaBenchArgs(peers.java, options.javaHeapMb, args), {
      timeoutMs: options.runTimeoutMs + 30_000,
    });
  } else {
    const spec: ConsumerChildSpec = {
      mode: kind,
      namesrvAddr: broker.namesrvAddr,
      topic,
      group,
      expected: options.messages,
    };
    const nodeFlags = options.nodeHeapMb === undefined ? [] : [`--max-old-space-size=${options.nodeHeapMb}`];
    if (peers.childScript === undefined) throw new Error('unreachable: the node child was not built');
    outcome = await runChild(process.execPath, [...nodeFlags, peers.childScript, JSON.stringify(spec)], {
      timeoutMs: options.runTimeoutMs,
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    });
  }
  const { result, wallMs } = outcome;
  return {
    kind,
    round,
    warmup,
    received: numberField(result, 'received'),
    startToFirstMs: numberField(result, 'startToFirstMs'),
    startToLastMs: numberField(result, 'startToLastMs'),
    firstToLastMs: numberField(result, 'firstToLastMs'),
    peakRssBytes: numberField(result, 'peakRssBytes'),
    peakHeapUsedBytes: numberField(result, 'peakHeapUsedBytes'),
    peakArrayBuffersBytes: kind === 'java' ? undefined : numberField(result, 'peakArrayBuffersBytes'),
    wallMs,
  };
}

async function environment(): Promise<BenchEnvironment> {
  const javaVersion = await runCommand('java', ['-version'], { timeoutMs: 30_000 });
  const firstLine = `${javaVersion.stderr}${javaVersion.stdout}`.split('\n')[0] ?? 'unknown';
  const cpuInfo = readFileSync('/proc/cpuinfo', 'utf8');
  const args = process.argv.slice(2);
  return {
    date: new Date().toISOString(),
    cpus: cpus().length,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuInfo)?.[1]?.trim() ?? 'unknown CPU',
    memoryMb: Math.round(totalmem() / 1024 / 1024),
    nodeVersion: process.version,
    javaVersion: firstLine.trim(),
    command: args.length === 0 ? 'npm run bench' : `npm run bench -- ${args.join(' ')}`,
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function secondsSince(ms: number): string {
  return ((Date.now() - ms) / 1000).toFixed(1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
