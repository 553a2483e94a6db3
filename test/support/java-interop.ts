/**
 * Apache RocketMQ's Java client (5.3.3) as the interop peer of the integration tests: produce with
 * the real DefaultMQProducer, consume with the real DefaultMQPushConsumer, and, for the fault suite,
 * a long-running push consumer that writes a ledger and can be killed. The programs live in
 * test/java (Interop.java, LedgerPushConsumer.java, and EventRulerMatch.java for the filter's
 * differential test, test/support/event-ruler-peer.ts) and are built once with Maven into the RocketMQ
 * cache directory, under a name derived from their sources, so fresh clones (CI) reuse the build
 * until the sources change.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertJavaAvailable, assertMavenAvailable } from '../../src/local-broker/java-runtime.js';
import { type JvmExit, spawnJvm } from '../../src/local-broker/jvm-process.js';
import { LocalBrokerError } from '../../src/local-broker/local-broker-error.js';
import { defaultRocketMQCacheDir } from '../../src/local-broker/rocketmq-jars.js';
import { runCommand, tailLines } from '../../src/local-broker/run-command.js';

const JAVA_DIR = fileURLToPath(new URL('../java/', import.meta.url));
const POM = join(JAVA_DIR, 'pom.xml');
const SOURCES = [
  POM,
  join(JAVA_DIR, 'src/main/java/rocketmq/lambda/interop/Interop.java'),
  join(JAVA_DIR, 'src/main/java/rocketmq/lambda/interop/LedgerPushConsumer.java'),
  join(JAVA_DIR, 'src/main/java/rocketmq/lambda/interop/EventRulerMatch.java'),
  join(JAVA_DIR, 'src/main/resources/interop-logback.xml'),
];
const MAIN_CLASS = 'rocketmq.lambda.interop.Interop';
const LEDGER_CONSUMER_CLASS = 'rocketmq.lambda.interop.LedgerPushConsumer';
/** Heap of the one-shot interop runs (produce, consume). */
const INTEROP_HEAP_MB = 256;
/** The ledger consumer runs beside a broker and our poller on small machines. */
const LEDGER_CONSUMER_HEAP_MB = 128;
/** JVM start and `consumer.start()` (name server and broker connections) of the ledger consumer. */
const LEDGER_CONSUMER_START_TIMEOUT_MS = 60_000;
const PRODUCE_TIMEOUT_MS = 120_000;
/** JVM start plus consumer shutdown, on top of the consume timeout. */
const CONSUME_SLACK_MS = 30_000;

/** One message for {@link javaProduce}. */
export interface JavaMessage {
  topic: string;
  tags?: string;
  keys?: string[];
  /** User properties (`putUserProperty`; system property names are refused by the Java client). */
  properties?: Record<string, string>;
  /** Strings are sent as UTF-8. */
  body: Buffer | Uint8Array | string;
  /** Send to this queue of the broker named in the options instead of letting the producer choose. */
  queueId?: number;
}

/** Producer options for {@link javaProduce}. */
export interface JavaProduceOptions {
  /** Send all messages as one batch (`DefaultMQProducer.send(Collection)`); the Java client never compresses batches. */
  batch?: boolean;
  /** `setCompressMsgBodyOverHowmuch`: bodies of at least this many bytes are compressed. Java default 4096. */
  compressOverBytes?: number;
  /** `setCompressType`. Java default ZLIB. */
  compressType?: 'ZLIB' | 'LZ4' | 'ZSTD';
  /** Broker that `queueId` refers to. @default 'broker-a' */
  brokerName?: string;
  /**
   * Message trace on (`enableMsgTrace`): the producer writes a Pub record per message to
   * `RMQ_SYS_TRACE_TOPIC` (the broker needs `traceTopicEnable=true`).
   */
  messageTrace?: boolean;
}

/** What the Java producer reported for one message. */
export interface JavaSendResult {
  /** The UNIQ_KEY the producer assigned. */
  msgId: string;
  /** The broker's offset message id (store host + commit log offset). */
  offsetMsgId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  status: string;
}

/** What the Java push consumer received for one message. */
export interface JavaReceivedMessage {
  msgId: string;
  offsetMsgId: string;
  topic: string;
  tags?: string;
  keys: string[];
  /** All properties, system ones included (UNIQ_KEY, TAGS, KEYS, MIN_OFFSET, ...). */
  properties: Record<string, string>;
  body: Buffer;
  bodyBase64: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
  bornTimestamp: number;
  storeTimestamp: number;
}

/** Options of {@link javaConsume}. */
export interface JavaConsumeOptions {
  topic: string;
  group: string;
  /** Stop after this many messages. */
  expectedCount: number;
  /** Stop after this long even with fewer messages (then fewer are returned). */
  timeoutMs: number;
  /** Tag expression (`TagA || TagB`) or SQL92 when `expressionType` is 'SQL92'. @default '*' */
  subExpression?: string;
  /** @default 'TAG' */
  expressionType?: 'TAG' | 'SQL92';
}

/** Where a build of the interop program lives. */
export interface InteropBuild {
  classesDir: string;
  libDir: string;
}

let built: Promise<InteropBuild> | undefined;

/**
 * Builds the Java interop program unless the cache already holds a build of the current sources
 * (`<cache>/interop-<hash>`). Idempotent within a process; called by the integration global setup
 * and by the helpers below.
 *
 * @example
 * ```ts
 * await ensureJavaInteropBuilt();
 * ```
 */
export function ensureJavaInteropBuilt(): Promise<InteropBuild> {
  built ??= buildIfMissing().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

async function buildIfMissing(): Promise<InteropBuild> {
  const hash = createHash('sha256');
  for (const file of SOURCES) hash.update(await readFile(file));
  const buildDir = join(defaultRocketMQCacheDir(), `interop-${hash.digest('hex').slice(0, 16)}`);
  const build = { classesDir: join(buildDir, 'classes'), libDir: join(buildDir, 'lib') };
  const marker = join(buildDir, '.complete');
  if (existsSync(marker)) return build;
  await assertJavaAvailable();
  await assertMavenAvailable();
  const result = await runCommand(
    'mvn',
    ['-q', '-B', '-f', POM, 'package', `-Dinterop.buildDir=${buildDir}`],
    {
      timeoutMs: 15 * 60_000,
    },
  );
  if (result.exitCode !== 0) {
    throw new LocalBrokerError(
      `building the Java interop peer failed (mvn exit ${String(result.exitCode)}):\n${tailLines(
        `${result.stdout}${result.stderr}`,
        40,
      )}`,
    );
  }
  await writeFile(marker, new Date().toISOString(), 'utf8');
  await removeOtherBuilds(buildDir);
  return build;
}

/** Builds of older sources are ~65 MiB each: keep only the current one. */
async function removeOtherBuilds(currentBuildDir: string): Promise<void> {
  const cacheDir = dirname(currentBuildDir);
  for (const entry of await readdir(cacheDir)) {
    const path = join(cacheDir, entry);
    if (entry.startsWith('interop-') && path !== currentBuildDir)
      await rm(path, { recursive: true, force: true });
  }
}

/**
 * Sends `messages` with Apache RocketMQ's Java DefaultMQProducer and returns one result per message,
 * in order (for a batch: one per message of the batch, offsets consecutive).
 *
 * @example
 * ```ts
 * const [sent] = await javaProduce(namesrvAddr, [{ topic, tags: 'TagA', keys: ['k1'], body: 'hello' }]);
 * expect(sent?.status).toBe('SEND_OK');
 * ```
 */
export async function javaProduce(
  namesrvAddr: string,
  messages: readonly JavaMessage[],
  options: JavaProduceOptions = {},
): Promise<JavaSendResult[]> {
  const spec = {
    messages: messages.map((message) => ({
      topic: message.topic,
      tags: message.tags,
      keys: message.keys,
      properties: message.properties,
      queueId: message.queueId,
      bodyBase64: toBuffer(message.body).toString('base64'),
    })),
    options,
  };
  const dir = await mkdtemp(join(tmpdir(), 'rocketmq-lambda-interop-'));
  try {
    const specFile = join(dir, 'spec.json');
    await writeFile(specFile, JSON.stringify(spec), 'utf8');
    const lines = await runInterop(['produce', namesrvAddr, specFile], PRODUCE_TIMEOUT_MS);
    return lines as unknown as JavaSendResult[];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Consumes `topic` with Apache RocketMQ's Java DefaultMQPushConsumer (CONSUME_FROM_FIRST_OFFSET for
 * a new group) until `expectedCount` messages arrived or `timeoutMs` passed, and returns what
 * arrived, in arrival order.
 *
 * @example
 * ```ts
 * const received = await javaConsume(namesrvAddr, { topic, group, expectedCount: 3, timeoutMs: 30_000 });
 * expect(received.map((m) => m.body.toString())).toContain('hello');
 * ```
 */
export async function javaConsume(
  namesrvAddr: string,
  options: JavaConsumeOptions,
): Promise<JavaReceivedMessage[]> {
  const args = [
    'consume',
    namesrvAddr,
    options.topic,
    options.group,
    String(options.expectedCount),
    String(options.timeoutMs),
    options.subExpression ?? '*',
    options.expressionType ?? 'TAG',
  ];
  const lines = await runInterop(args, options.timeoutMs + CONSUME_SLACK_MS);
  return lines.map((line) => {
    const bodyBase64 = String(line.bodyBase64 ?? '');
    return {
      ...(line as unknown as JavaReceivedMessage),
      bodyBase64,
      body: Buffer.from(bodyBase64, 'base64'),
    };
  });
}

/** `java` arguments running `mainClass` of the build with a small, quick-starting JVM. */
function javaArgsOf(
  build: InteropBuild,
  heapMb: number,
  mainClass: string,
  args: readonly string[],
): string[] {
  const { classesDir, libDir } = build;
  return [
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Xmx${heapMb}m`,
    '-XX:-UsePerfData',
    `-Drmq.logback.configurationFile=${join(classesDir, 'interop-logback.xml')}`,
    `-Drocketmq.log.root=${join(tmpdir(), 'rocketmq-lambda-interop-logs')}`,
    '-cp',
    `${classesDir}:${join(libDir, '*')}`,
    mainClass,
    ...args,
  ];
}

async function runInterop(args: readonly string[], timeoutMs: number): Promise<Record<string, unknown>[]> {
  const javaArgs = javaArgsOf(await ensureJavaInteropBuilt(), INTEROP_HEAP_MB, MAIN_CLASS, args);
  const { exitCode, signal, stdout, stderr } = await new Promise<{
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    const child = spawn('java', javaArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (cause) => {
      clearTimeout(timer);
      reject(new LocalBrokerError('could not start java for the interop peer', { cause }));
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      resolve({
        exitCode: code,
        signal: sig,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
  if (exitCode !== 0) {
    throw new LocalBrokerError(
      `Java interop ${args[0] ?? ''} failed (exit ${String(exitCode)}, signal ${String(signal)}):\n${tailLines(stderr, 40)}`,
    );
  }
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function toBuffer(body: Buffer | Uint8Array | string): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Options of {@link startJavaLedgerConsumer}. */
export interface JavaLedgerConsumerOptions {
  topic: string;
  /** A group of its own: the Java consumer must not share queues with our poller. */
  group: string;
  /** Appended to, one `msgId queueId queueOffset` line per consumed message (readLedger reads it). */
  ledgerFile: string;
}

/**
 * A running {@link startJavaLedgerConsumer} JVM.
 *
 * @example
 * ```ts
 * const exit = await consumer.kill(); // { exitCode: null, signal: 'SIGKILL' }
 * ```
 */
export interface JavaLedgerConsumer {
  readonly pid: number | undefined;
  /** Resolves when the JVM has exited. */
  readonly exited: Promise<JvmExit>;
  /** SIGKILL at once (no shutdown hook, no offset persisted); resolves when the JVM has exited. */
  kill(): Promise<JvmExit>;
  /** SIGTERM (the consumer shuts down, persisting its offsets), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<JvmExit>;
  /** The last lines the JVM wrote (stdout and stderr). */
  outputTail(): string;
}

/**
 * Starts Apache RocketMQ's DefaultMQPushConsumer (CLUSTERING, CONSUME_FROM_FIRST_OFFSET, default
 * offset persistence) on `topic` as `group`, writing each consumed message to `ledgerFile`, with a
 * 128 MiB heap; resolves once the consumer has started. It runs until killed or stopped, and never
 * outlives this process (the local broker's JVM watchdog). The caller stops it (e.g. in
 * `onTestFinished`).
 *
 * @example
 * ```ts
 * const java = await startJavaLedgerConsumer(namesrvAddr, { topic, group, ledgerFile });
 * onTestFinished(() => java.kill());
 * await java.kill();
 * const entries = readLedger(ledgerFile);
 * ```
 */
export async function startJavaLedgerConsumer(
  namesrvAddr: string,
  options: JavaLedgerConsumerOptions,
): Promise<JavaLedgerConsumer> {
  const build = await ensureJavaInteropBuilt();
  const jvm = spawnJvm({
    name: 'java-ledger-consumer',
    args: javaArgsOf(build, LEDGER_CONSUMER_HEAP_MB, LEDGER_CONSUMER_CLASS, [
      namesrvAddr,
      options.topic,
      options.group,
      options.ledgerFile,
    ]),
    cwd: tmpdir(),
    env: process.env,
  });
  const deadline = Date.now() + LEDGER_CONSUMER_START_TIMEOUT_MS;
  while (!jvm.outputTail().includes('{"started":true}')) {
    if (jvm.exitStatus !== undefined || Date.now() > deadline) {
      await jvm.kill();
      throw new LocalBrokerError(
        `the Java ledger consumer did not start (exit ${JSON.stringify(jvm.exitStatus)}):\n${jvm.outputTail(40)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    pid: jvm.pid,
    exited: jvm.exited,
    kill: () => jvm.kill(),
    stop: (graceMs = 30_000) => jvm.stop(graceMs),
    outputTail: () => jvm.outputTail(40),
  };
}
