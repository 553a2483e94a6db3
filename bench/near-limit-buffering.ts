/**
 * What `pullThresholdSizeForTopic` (issue 29) saves a consumer whose function is slow, on bodies just
 * under the body limit: small as stored (zlib), each inflating to 0.1 MiB under
 * `maxDecompressedBodyBytes` (6 MiB by default), the worst case of buffering for a given threshold.
 * Without a topic threshold, each queue holds up to `pullThresholdSizeForQueue` (100 MiB) of inflated
 * bodies, so a consumer's memory grows with its queue count; with it, all queues together hold the
 * threshold (128 MiB by default) plus at most one body each.
 *
 * One run: a local broker (lean, small heap: it only serves a few hundred small messages), a topic of
 * `--queues` queues, `--per-queue` such messages sent to each; then two consumers in turn, each a child
 * process of its own (near-limit-child.ts: one's memory, freed or not, never hides in the other's), each
 * a fresh group from the first offset with a listener that holds every batch 4 s (a slow function),
 * for `--seconds`:
 * - `default`: `pullThresholdSizeForTopic` at its default (128 MiB);
 * - `threshold off` (the peer): set to its maximum (64 GiB), as before the option existed.
 * Every ratio is to the peer of the same run. The child runs compiled to plain JavaScript under bare
 * node (node-child-build.ts) when it is one of `BENCH_CHILD_ENTRIES`, otherwise under tsx, whose loader
 * adds ~30 MiB to both cases (the header line says which).
 *
 * Usage: npm run bench:near-limit-buffering [-- --queues N] [--per-queue N] [--seconds N] [--broker-heap-mb N]
 *   Defaults: 4 queues, 60 messages per queue, 40 s per consumer (the default case's RSS still climbs
 *   after its buffers are full: garbage of the bodies consumed), broker heap 256 MiB; ~1.5 min in all on
 *   the project's 2-core machines. Prints a Markdown table on stdout, progress on stderr.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Producer } from '../src/client/producer.js';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { CONSUMER_OPTION_SPECS } from '../src/consumer/consumer-option-specs.js';
import {
  CompressionType,
  compressZlib,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
} from '../src/protocol/compression.js';
import { rootLogger } from '../src/util/logger.js';
import { startBenchBroker } from './bench-broker.js';
import { createBenchTopic } from './bench-topic.js';
import { runChild } from './child-run.js';
import type { NearLimitChildResult, NearLimitChildSpec } from './near-limit-child.js';
import { BENCH_CHILD_ENTRIES, benchChildren } from './node-child-build.js';

const MIB = 1024 * 1024;
const CHILD_ENTRY = 'near-limit-child.ts';
/** Each body inflates to this: just under the body limit, so the limit never refuses it. */
const INFLATED_BYTES = DEFAULT_MAX_DECOMPRESSED_BYTES - Math.round(0.1 * MIB);
/** A slow function: the consumer keeps pulling while its batches wait. */
const LISTENER_MS = 4000;
const STATUS_INTERVAL_MS = 250;
/** Past the window, a child has this long to start, report and stop. */
const CHILD_GRACE_MS = 60_000;
const PRODUCER_RETRIES = 5;

interface Options {
  queues: number;
  perQueue: number;
  seconds: number;
  brokerHeapMb: number;
}

interface BufferingCase {
  name: string;
  pullThresholdSizeForTopic: number;
}

const CASES: readonly BufferingCase[] = [
  {
    name: 'default',
    pullThresholdSizeForTopic: CONSUMER_OPTION_SPECS.pullThresholdSizeForTopic.default,
  },
  {
    name: 'threshold off (the peer)',
    pullThresholdSizeForTopic: CONSUMER_OPTION_SPECS.pullThresholdSizeForTopic.maximum,
  },
];

const USAGE = 'usage: --queues N --per-queue N --seconds N --broker-heap-mb N';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { queues: 4, perQueue: 60, seconds: 40, brokerHeapMb: 256 };
  const flags: Record<string, keyof Options> = {
    '--queues': 'queues',
    '--per-queue': 'perQueue',
    '--seconds': 'seconds',
    '--broker-heap-mb': 'brokerHeapMb',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const key = flags[arg];
    if (key === undefined) throw new Error(`unknown argument ${arg} (${USAGE})`);
    const value = Number(argv[++i]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${arg} needs a positive integer`);
    options[key] = value;
  }
  return options;
}

/** How a child is started: compiled under bare node when it is a bench child entry, else under tsx. */
async function childCommand(): Promise<{ args: string[]; description: string }> {
  if ((BENCH_CHILD_ENTRIES as readonly string[]).includes(CHILD_ENTRY)) {
    const { benchDir } = await benchChildren();
    return {
      args: [join(benchDir, CHILD_ENTRY.replace(/\.ts$/, '.js'))],
      description: 'children compiled, under bare node',
    };
  }
  return {
    args: [...process.execArgv, fileURLToPath(new URL(CHILD_ENTRY, import.meta.url))],
    description: `children under tsx (its loader adds ~30 MiB to both cases: list ${CHILD_ENTRY} in BENCH_CHILD_ENTRIES of bench/node-child-build.ts)`,
  };
}

async function produce(client: RocketMQClient, topic: string, options: Options): Promise<number> {
  const stored = compressZlib(Buffer.alloc(INFLATED_BYTES, 0x61), 9);
  const producer = new Producer({
    client,
    producerGroup: 'rocketmq-lambda-bench',
    retries: PRODUCER_RETRIES,
  });
  await producer.start();
  try {
    for (let queueId = 0; queueId < options.queues; queueId++) {
      for (let i = 0; i < options.perQueue; i++) {
        await producer.send(
          {
            topic,
            body: Buffer.alloc(0),
            compressedBody: { bytes: stored, compression: CompressionType.ZLIB },
          },
          { queueId },
        );
      }
    }
  } finally {
    await producer.shutdown();
  }
  return stored.length;
}

function mib(bytes: number, digits = 0): string {
  return bytes >= 1024 * MIB
    ? `${(bytes / 1024 / MIB).toFixed(0)} GiB`
    : `${(bytes / MIB).toFixed(digits)} MiB`;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  const begun = performance.now();
  process.stderr.write('starting a local broker (and the children, when compiled)\n');
  const [bench, child] = await Promise.all([
    startBenchBroker({ heapMb: options.brokerHeapMb, lean: true, external: undefined }),
    childCommand(),
  ]);
  const client = new RocketMQClient({ nameServerAddresses: bench.broker.namesrvAddr });
  const rows: { c: BufferingCase; r: NearLimitChildResult }[] = [];
  let storedBytes = 0;
  try {
    const topic = `NearLimit-${Date.now()}`;
    await createBenchTopic(client, bench.broker, topic, options.queues);
    process.stderr.write(`sending ${options.queues} × ${options.perQueue} messages\n`);
    storedBytes = await produce(client, topic, options);
    for (const c of CASES) {
      process.stderr.write(`consumer: ${c.name} (a child process, ${options.seconds} s)\n`);
      const spec: NearLimitChildSpec = {
        namesrvAddr: bench.broker.namesrvAddr,
        topic,
        group: `NearLimit-${c.pullThresholdSizeForTopic}-${Date.now()}`,
        pullThresholdSizeForTopic: c.pullThresholdSizeForTopic,
        windowMs: options.seconds * 1000,
        listenerMs: LISTENER_MS,
        statusIntervalMs: STATUS_INTERVAL_MS,
      };
      const { result } = await runChild(process.execPath, [...child.args, JSON.stringify(spec)], {
        timeoutMs: options.seconds * 1000 + CHILD_GRACE_MS,
        env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
      });
      const r = result as unknown as NearLimitChildResult;
      if (r.queuesHeld !== options.queues) {
        throw new Error(`${c.name}: the consumer held ${r.queuesHeld} queues, not ${options.queues}`);
      }
      if (r.delivered === 0) throw new Error(`${c.name}: nothing was delivered in ${options.seconds} s`);
      rows.push({ c, r });
    }
  } finally {
    await client.close();
    await bench.release();
  }

  const peer = rows.find((row) => row.c === CASES[1])?.r.peakRssBytes ?? Number.NaN;
  console.log(
    `near-limit buffering: ${options.queues} queues × ${options.perQueue} bodies of ${mib(INFLATED_BYTES, 1)} inflated ` +
      `(${(storedBytes / 1024).toFixed(1)} KiB stored, zlib), a listener holding each batch ${LISTENER_MS / 1000} s, ` +
      `${options.seconds} s per consumer; ${child.description}; broker ${bench.description}; ` +
      `${((performance.now() - begun) / 1000).toFixed(0)} s`,
  );
  console.log('');
  console.log(
    '| case | pullThresholdSizeForTopic | peak RSS | × peer | RSS at start | cached at the peak | most cached | delivered |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const { c, r } of rows) {
    console.log(
      `| ${c.name} | ${mib(c.pullThresholdSizeForTopic)} | ${mib(r.peakRssBytes)} | ${(r.peakRssBytes / peer).toFixed(2)}× | ` +
        `${mib(r.startRssBytes)} | ${mib(r.cachedBytesAtPeak)} (${r.cachedMessagesAtPeak} msgs, at ${(r.sampledPeakAtMs / 1000).toFixed(1)} s) | ` +
        `${mib(r.maxCachedBytes)} | ${r.delivered} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
