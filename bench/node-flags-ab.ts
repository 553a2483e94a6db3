/**
 * `npm run bench:node-flags`: a same-run A/B of node flags for the poller's image (NODE_OPTIONS in
 * infra/docker/Dockerfile). Starts a local broker, produces one backlog of 1 KiB messages, then drains
 * it round after round through the function path (LocalInvoker, no-op handler) and the Lambda path over
 * HTTP (LambdaInvoker -> the Invoke API test server), batch 100, once per variant per round, variants
 * and paths in rotating order. Each drain is drain-child.js in a fresh group, on the image's Node line
 * (image-node-env.ts) unless the variant names a node, with the image's environment and the variant's
 * flags on node's command line instead of the image's NODE_OPTIONS. Prints, per path and variant, the medians of
 * GC pauses in % of the drain (all, then scavenges, mark-compacts and incremental marking apart), young and
 * whole-heap collections, CPU µs per message, msgs/s, peak RSS (MiB) and, at the sample with the most RSS,
 * the V8 heap's committed pages and the Buffers outside it (MiB).
 *
 * Usage: npx tsx bench/node-flags-ab.ts [--messages 100000] [--rounds 3]
 *          [--variants 'image|--max-semi-space-size=32|--max-semi-space-size=64']
 * (`image`: the Dockerfile's NODE_OPTIONS as it is, on the image's Node line; `none`: no NODE_OPTIONS;
 * `node=PATH`: under another node executable, e.g. `node=$(command -v node)` for the machine's own line
 * against the image's; `memory=MiB`: in a memory cgroup of that limit, as a Fargate task of that size
 * (bench/memory-limit.ts); `NAME=value` (upper case): an environment variable of the child, e.g.
 * `MALLOC_ARENA_MAX=2`; other words are node flags, which replace the image's NODE_OPTIONS; parts
 * combine: `memory=512 --max-semi-space-size=16`)
 */
import { join } from 'node:path';
import { RocketMQClient } from '../src/client/rocketmq-client.js';
import { startLocalBroker } from '../src/local-broker/local-broker.js';
import { ensureRocketMQJars } from '../src/local-broker/rocketmq-jars.js';
import { rootLogger } from '../src/util/logger.js';
import { stats } from './bench-results.js';
import { createBenchTopic } from './bench-topic.js';
import { drainMetrics, drainThrough, type InvokePath } from './http-invoke-scenario.js';
import { benchNode, imageNodeEnv, imageNodeVariables } from './image-node-env.js';
import { memoryLimitWrapper } from './memory-limit.js';
import { benchChildren } from './node-child-build.js';
import { produceBacklog } from './produce-backlog.js';

const USAGE =
  "usage: npx tsx bench/node-flags-ab.ts [--messages N] [--rounds N] [--variants 'image|none|node=PATH|memory=MiB [NAME=value] [FLAGS]|FLAGS|...']";
const QUEUES = 8;
const MESSAGE_BYTES = 1024;
const BATCH_SIZE = 100;
const PATHS: readonly InvokePath[] = ['local', 'lambda'];
const SHOWN = [
  'gcPausePercentStartToLast',
  'gcScavengePausePercent',
  'gcMarkCompactPausePercent',
  'gcIncrementalMarkingPausePercent',
  'gcMinorCount',
  'gcMajorCount',
  'cpuUsPerMsgStartToLast',
  'msgsPerSecFirstToAll',
  'peakRssMiB',
  'peakSampleV8HeapMiB',
  'peakSampleArrayBuffersMiB',
] as const;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: string): string => {
    const index = args.indexOf(name);
    return index === -1 ? fallback : (args[index + 1] ?? '');
  };
  const messages = Number(option('--messages', '100000'));
  const rounds = Number(option('--rounds', '3'));
  if (!Number.isSafeInteger(messages) || messages <= 0 || !Number.isSafeInteger(rounds) || rounds <= 0) {
    console.error(`--messages and --rounds take positive integers\n${USAGE}`);
    return 2;
  }
  const variants = option('--variants', 'image|--max-semi-space-size=32|--max-semi-space-size=64')
    .split('|')
    .map((variant) => variant.trim())
    .filter((variant) => variant !== '');
  const optionsOf = (variant: string): string => {
    const { flags, none } = parseVariant(variant);
    return none ? '' : flags.length === 0 ? (imageNodeVariables().NODE_OPTIONS ?? '') : flags.join(' ');
  };
  rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
  const log = (line: string): void => {
    process.stderr.write(`[node-flags] ${line}\n`);
  };

  await ensureRocketMQJars();
  const [broker, children, imageLine] = await Promise.all([
    startLocalBroker({ heapMb: 512, extraJvmOptions: ['-XX:TieredStopAtLevel=4'] }),
    benchChildren(),
    benchNode(),
  ]);
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr });
  try {
    const script = join(children.benchDir, 'drain-child.js');
    const topic = `BenchNodeFlags-${Date.now()}`;
    await createBenchTopic(client, broker, topic, QUEUES);
    await produceBacklog(client, { topic, queues: QUEUES, messages, messageBytes: MESSAGE_BYTES });
    log(
      `${messages} messages on ${topic}; variants: ${variants.join(' | ')}; the image's line: Node ${imageLine.version} (${imageLine.path})`,
    );
    const configs = variants.flatMap((variant) => PATHS.map((path) => ({ variant, path })));
    // Each memory limit's cgroup is set up once, before the drains.
    const wrappers = new Map<string, string[]>();
    for (const variant of variants) {
      const { memoryMiB } = parseVariant(variant);
      if (memoryMiB !== undefined) wrappers.set(variant, await memoryLimitWrapper(memoryMiB));
    }
    const results = new Map<string, Record<string, number>[]>();
    // Round 0 warms the broker up and is not counted.
    for (let round = 0; round <= rounds; round++) {
      const shift = round % configs.length;
      for (const { variant, path } of [...configs.slice(shift), ...configs.slice(0, shift)]) {
        // A variant's flags go on node's command line, as the image's CMD would pass them: some V8 flags
        // (`--min-semi-space-size`) are refused in NODE_OPTIONS.
        const { node, flags, env: variables } = parseVariant(variant);
        const env = {
          ...imageNodeEnv(),
          NODE_OPTIONS: flags.length === 0 ? optionsOf(variant) : '',
          ...variables,
        };
        const wrapper = wrappers.get(variant);
        const metrics = drainMetrics(
          await drainThrough(
            { broker },
            { script, topic, messages, batchSize: BATCH_SIZE, path },
            {
              env,
              nodeFlags: flags,
              ...(node === undefined ? {} : { node }),
              ...(wrapper === undefined ? {} : { wrapper }),
            },
          ),
        );
        log(
          `${round === 0 ? 'warm-up' : `round ${round}`} ${path} [${variant}]: ${SHOWN.map((name) => `${name} ${(metrics[name] ?? Number.NaN).toFixed(2)}`).join(', ')}`,
        );
        if (round > 0)
          results.set(`${path}\0${variant}`, [...(results.get(`${path}\0${variant}`) ?? []), metrics]);
      }
    }
    const lines = [
      `| path | variant | NODE_OPTIONS | ${SHOWN.join(' | ')} |`,
      `|---|---|---|${SHOWN.map(() => '---:').join('|')}|`,
    ];
    for (const { variant, path } of configs) {
      const runs = results.get(`${path}\0${variant}`) ?? [];
      const cells = SHOWN.map((name) => {
        const figures = stats(runs.map((run) => run[name] ?? Number.NaN));
        return `${figures.median.toFixed(2)} (${figures.min.toFixed(2)}-${figures.max.toFixed(2)})`;
      });
      lines.push(`| ${path} | ${variant} | ${optionsOf(variant) || '(none)'} | ${cells.join(' | ')} |`);
    }
    process.stdout.write(
      `${messages} x ${MESSAGE_BYTES} B, batch ${BATCH_SIZE}, ${rounds} rounds + 1 warm-up, medians (min-max):\n\n${lines.join('\n')}\n`,
    );
    return 0;
  } finally {
    await client.close();
    await broker.stop();
  }
}

/**
 * A variant's parts: `image` (the Dockerfile's NODE_OPTIONS), `none` (no NODE_OPTIONS), `node=PATH` (another
 * node), `memory=MiB` (a memory cgroup of that limit, as a Fargate task of that size: memory-limit.ts),
 * `NAME=value` (an environment variable of the child) and node flags. The parts but the keywords combine
 * (`memory=512 --max-semi-space-size=16`). Flags replace the image's NODE_OPTIONS and go on node's command
 * line.
 */
function parseVariant(variant: string): {
  node: string | undefined;
  memoryMiB: number | undefined;
  flags: string[];
  none: boolean;
  env: Record<string, string>;
} {
  let node: string | undefined;
  let memoryMiB: number | undefined;
  const flags: string[] = [];
  const env: Record<string, string> = {};
  let none = false;
  for (const part of variant.split(/\s+/).filter((token) => token !== '')) {
    if (part === 'image') continue;
    if (part === 'none') none = true;
    else if (part.startsWith('node=')) node = part.slice('node='.length);
    else if (part.startsWith('memory=')) memoryMiB = Number(part.slice('memory='.length));
    else if (/^[A-Z_][A-Z0-9_]*=/.test(part)) {
      const at = part.indexOf('=');
      env[part.slice(0, at)] = part.slice(at + 1);
    } else flags.push(part);
  }
  return { node, memoryMiB, flags, none, env };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
