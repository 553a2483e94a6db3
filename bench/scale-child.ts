/**
 * One poller as a measured child process of the scale bench (compiled to plain JavaScript first, see
 * node-child-build.ts, and run with `--expose-gc`). It takes the path `rocketmq-lambda run --config`
 * takes: `loadConfig(file)` then `startPoller(config)`, with the mappings' `local:` functions on the
 * no-op handler (LocalInvoker). Then, in order:
 * 1. waits until the poller holds every queue of its mappings, then `settleMs` more;
 * 2. memory after two full GCs (RSS from the kernel, V8 heap, external and Buffers);
 * 3. its TCP sockets from /proc (proc-tcp-sockets.ts);
 * 4. with `idleMs`: CPU time (user + system) over that window of long polls, the pulls answered in it,
 *    and memory again after it;
 * 5. with `drain`: sends messages round-robin to the given topics from a second client and waits until
 *    the poller's mappings have consumed them all (proof that the queues are live; the time is listed,
 *    never judged).
 * Without a config file (the baseline) it imports the same modules and starts nothing. Prints one
 * `BENCH_RESULT {json}` line.
 *
 * Usage: node --expose-gc scale-child.js '{"caseId":"mappings-1","configFile":"/tmp/x/poller.json",...}'
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Producer, type ProducerMessage } from '../src/client/producer.js';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { loadConfig } from '../src/config/load-config.js';
import { type Poller, startPoller } from '../src/poller/poller.js';
import { rootLogger } from '../src/util/logger.js';
import { readProcessTcpSockets } from './proc-tcp-sockets.js';

const RESULT_PREFIX = 'BENCH_RESULT ';
const HOLD_POLL_MS = 250;
const DRAIN_POLL_MS = 100;
const DRAIN_PRODUCER_GROUP = 'rocketmq-lambda-bench-scale';
/** Consumers in CLUSTERING mode subscribe to their group's retry topic too (as the Java client does). */
const RETRY_TOPIC_PREFIX = '%RETRY%';

/**
 * What the harness passes as the only argument (JSON).
 */
export interface ScaleChildSpec {
  caseId: string;
  /** A run config for `loadConfig`; undefined: the baseline, nothing started. */
  configFile: string | undefined;
  /** Topic queues (retry topics not counted) the poller must hold, summed over its mappings, before it is measured. */
  expectedQueues: number;
  settleMs: number;
  /** 0: no idle window. */
  idleMs: number;
  holdTimeoutMs: number;
  drain: { namesrvAddr: string; topics: string[]; messagesPerTopic: number } | undefined;
}

/**
 * Memory of the child after two full GCs.
 */
export interface ScaleMemory {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  /** V8's `external` (Buffers included). */
  readonly externalBytes: number;
  readonly arrayBuffersBytes: number;
}

/**
 * The idle window: CPU time the whole process spent in it (user + system, all threads), and the pulls the
 * broker answered meanwhile (long polls that timed out, mostly).
 */
export interface ScaleIdle {
  readonly wallMs: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  readonly pullRequests: number;
  /** The machine's 1, 5 and 15 minute load averages at the start and the end of the window. */
  readonly loadAvgBefore: readonly number[];
  readonly loadAvgAfter: readonly number[];
  /** Memory after two full GCs at the end of the window. */
  readonly memoryAfter: ScaleMemory;
}

/**
 * What the child prints.
 *
 * @example
 * ```ts
 * const { memory, sockets, idle } = result as ScaleChildResult;
 * ```
 */
export interface ScaleChildResult {
  readonly caseId: string;
  readonly mappings: number;
  /** Queues held when memory was measured, the mappings' `%RETRY%<group>` queues included. */
  readonly queuesHeld: number;
  /** Of `queuesHeld`, the retry topics' queues (one per broker and group). */
  readonly retryQueuesHeld: number;
  /** From the startPoller call until every topic queue was held (0 for the baseline). */
  readonly startToHeldMs: number;
  readonly memory: ScaleMemory;
  /** Every TCP socket of the process after settling. */
  readonly sockets: readonly { remoteAddress: string; state: string }[];
  readonly idle: ScaleIdle | undefined;
  readonly drain: { messages: number; consumed: number; ms: number } | undefined;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as ScaleChildSpec;
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  const startedAt = performance.now();
  const poller =
    spec.configFile === undefined ? undefined : await startPoller(await loadConfig(spec.configFile));
  try {
    if (poller !== undefined) await waitForQueues(poller, spec);
    const startToHeldMs = performance.now() - startedAt;
    await sleep(spec.settleMs);
    const held = poller === undefined ? [] : (await poller.status()).flatMap((status) => status.queues);
    const memory = await settledMemory();
    const sockets = (await readProcessTcpSockets('self')).map(({ remoteAddress, state }) => ({
      remoteAddress,
      state,
    }));
    const idle =
      poller === undefined || spec.idleMs === 0 ? undefined : await idleWindow(poller, spec.idleMs);
    const drain =
      poller === undefined || spec.drain === undefined ? undefined : await drainBacklog(poller, spec.drain);
    const result: ScaleChildResult = {
      caseId: spec.caseId,
      mappings: poller?.runtimes.size ?? 0,
      queuesHeld: held.length,
      retryQueuesHeld: held.filter(({ queue }) => queue.topic.startsWith(RETRY_TOPIC_PREFIX)).length,
      startToHeldMs: poller === undefined ? 0 : Math.round(startToHeldMs),
      memory,
      sockets,
      idle,
      drain,
    };
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
  } finally {
    await poller?.stop();
  }
}

/** Resolves once the poller holds every queue of its mappings' topics; throws after `holdTimeoutMs`. */
async function waitForQueues(poller: Poller, spec: ScaleChildSpec): Promise<void> {
  const deadline = performance.now() + spec.holdTimeoutMs;
  for (;;) {
    const held = (await poller.status())
      .flatMap((status) => status.queues)
      .filter(({ queue }) => !queue.topic.startsWith(RETRY_TOPIC_PREFIX)).length;
    if (held >= spec.expectedQueues) return;
    if (performance.now() > deadline) {
      throw new Error(
        `the poller held ${held} of ${spec.expectedQueues} queues after ${spec.holdTimeoutMs} ms`,
      );
    }
    await sleep(HOLD_POLL_MS);
  }
}

/** Memory after two full collections (the second one frees what the first one's finalizers released). */
async function settledMemory(): Promise<ScaleMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run the scale child with --expose-gc');
  gc();
  await sleep(100);
  gc();
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
  };
}

async function idleWindow(poller: Poller, idleMs: number): Promise<ScaleIdle> {
  const pullsBefore = await pullRequests(poller);
  const loadAvgBefore = loadavg();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await sleep(idleMs);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  const loadAvgAfter = loadavg();
  const pullsAfter = await pullRequests(poller);
  return {
    wallMs: Math.round(wallMs),
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    pullRequests: pullsAfter - pullsBefore,
    loadAvgBefore: loadAvgBefore.map(round2),
    loadAvgAfter: loadAvgAfter.map(round2),
    memoryAfter: await settledMemory(),
  };
}

async function pullRequests(poller: Poller): Promise<number> {
  return (await poller.status()).reduce((sum, status) => sum + status.counters.pullRequests, 0);
}

async function consumed(poller: Poller): Promise<number> {
  return (await poller.status()).reduce((sum, status) => sum + status.counters.consumedOk, 0);
}

/** Sends the backlog from a client of its own and waits until the poller consumed that much more. */
async function drainBacklog(
  poller: Poller,
  drain: NonNullable<ScaleChildSpec['drain']>,
): Promise<{ messages: number; consumed: number; ms: number }> {
  const before = await consumed(poller);
  const client = new RocketMQClient({ nameServerAddresses: drain.namesrvAddr });
  const producer = new Producer({ client, producerGroup: DRAIN_PRODUCER_GROUP, retries: 3 });
  const startedAt = performance.now();
  const messages = drain.topics.length * drain.messagesPerTopic;
  try {
    await producer.start();
    for (const topic of drain.topics) {
      for (let i = 0; i < drain.messagesPerTopic; i++) {
        const message: ProducerMessage = { topic, body: JSON.stringify({ topic, i }), tags: 'scale' };
        await producer.send(message);
      }
    }
  } finally {
    await producer.shutdown();
    await client.close();
  }
  const deadline = performance.now() + 60_000;
  let now = (await consumed(poller)) - before;
  while (now < messages) {
    if (performance.now() > deadline) throw new Error(`drained ${now} of ${messages} messages within 60 s`);
    await sleep(DRAIN_POLL_MS);
    now = (await consumed(poller)) - before;
  }
  return { messages, consumed: now, ms: Math.round(performance.now() - startedAt) };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
