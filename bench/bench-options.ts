/**
 * The options of `npm run bench`, from flags first, then `BENCH_*` environment variables, then the
 * defaults (`--quick` picks smaller ones). Every option is checked here; the rest of bench/ only sees
 * {@link BenchOptions}.
 */
import { fileURLToPath } from 'node:url';

/**
 * The consumers of the drain race built into the harness; registered peers (drain-peers.ts) add theirs.
 * `raw-pull` is no consumer but the limit: PULL requests in a loop without decoding (raw-pull-child.ts).
 *
 * @example
 * ```ts
 * BUILTIN_CONSUMERS.includes('java'); // => true
 * ```
 */
export const BUILTIN_CONSUMERS = ['ours', 'java', 'ours-function', 'raw-pull'] as const;

/**
 * A built-in consumer of the drain race.
 *
 * @example
 * ```ts
 * const kinds: BuiltinConsumer[] = ['ours', 'java'];
 * ```
 */
export type BuiltinConsumer = (typeof BUILTIN_CONSUMERS)[number];

/**
 * Built-in contenders that run only when `--consumers` names them: experiments, not figures of the
 * report's defaults. `ours-function-worker` is the function path with its own work on a worker thread
 * (worker-function-listener.ts).
 *
 * @example
 * ```ts
 * parseBenchOptions(['--consumers', 'ours,ours-function,ours-function-worker'], {}).consumers;
 * ```
 */
export const EXPERIMENT_CONSUMERS = ['ours-function-worker'] as const;

/**
 * Every option resolved.
 *
 * @example
 * ```ts
 * const { messages, messageBytes }: BenchOptions = parseBenchOptions(process.argv.slice(2), process.env);
 * ```
 */
export interface BenchOptions {
  readonly quick: boolean;
  /** Messages produced and consumed per run. */
  readonly messages: number;
  /** Body size of each message. */
  readonly messageBytes: number;
  /** Queues of the bench topic. */
  readonly queues: number;
  /** Runs of each consumer (alternating), and of every scenario. */
  readonly rounds: number;
  /** Unreported runs of each consumer before the measured rounds (the JITs warm up). */
  readonly warmupRounds: number;
  /** Consumer ids of the drain race, in the first round's order: built-ins and registered peers. */
  readonly consumers: readonly string[];
  /** Max heap of the Java consumer's JVM (-Xmx). */
  readonly javaHeapMb: number;
  /** `--max-old-space-size` of our consumer's node; undefined = V8's default. */
  readonly nodeHeapMb: number | undefined;
  /** Max heap of the local broker's JVM (unused with {@link BenchOptions.externalBroker}). */
  readonly brokerHeapMb: number;
  /** A running broker to use instead of starting one (`--namesrv` and `--broker`). */
  readonly externalBroker: { readonly namesrvAddr: string; readonly brokerAddr: string } | undefined;
  /** Run the PULL body decode micro-benchmark. */
  readonly decode: boolean;
  /** Warm-up and measured window of each decode measurement. */
  readonly decodeWarmupMs: number;
  readonly decodeMeasureMs: number;
  /** Run the registered scenarios (bench-scenarios.ts) after the drain rounds. */
  readonly scenarios: boolean;
  /** Render the PNG charts next to the results. */
  readonly charts: boolean;
  /**
   * `decode`: only the decode micro-benchmark (no produce, no consumer runs); `--rounds` rounds of it.
   * `scale`: only the scale bench (scale-bench.ts: one poller, many mappings and queues, on a two-group
   * cluster); `--rounds` runs of every case. A registered scenario's id: only that scenario.
   */
  readonly only: string | undefined;
  /** A consumer run that has not seen every message by then fails. */
  readonly runTimeoutMs: number;
  /** Pause between two consumer runs, so that one run's shutdown does not overlap the next start. */
  readonly pauseBetweenRunsMs: number;
  /**
   * How long a peer's child waits for its client to shut down after printing its result (the result is
   * in by then; a client whose long polls hold its shutdown only delays the next run).
   */
  readonly peerCloseWaitMs: number;
  /**
   * `--profile`: after the drain rounds, our node contenders (ours, ours-function) run once more under
   * `node --cpu-prof`, unreported (drain-profile.ts).
   */
  readonly profile: boolean;
  /** Where the Markdown report is written. */
  readonly outFile: string;
  /** Where the JSON results are written: {@link BenchOptions.outFile} with `.json` for `.md`. */
  readonly jsonFile: string;
}

/**
 * What the harness has registered beyond its built-ins: valid `--consumers` and `--only` names.
 *
 * @example
 * ```ts
 * const registry: BenchRegistry = { peers: ['ali-ons'], scenarios: ['latency'] };
 * ```
 */
export interface BenchRegistry {
  readonly peers: readonly string[];
  readonly scenarios: readonly string[];
}

const USAGE = `usage: npm run bench -- [--quick] [--profile] [--messages N] [--message-bytes N] [--queues N] [--rounds N]
  [--warmup-rounds N] [--consumers ours,java,ours-function,raw-pull,<peer>...] [--node-heap-mb N] [--java-heap-mb N]
  [--broker-heap-mb N] [--namesrv HOST:PORT --broker HOST:PORT] [--no-decode] [--no-scenarios] [--no-charts]
  [--run-timeout-ms N] [--out FILE.md] [--only decode|scale|<scenario id>]
Environment: BENCH_MESSAGES, BENCH_MESSAGE_BYTES, BENCH_QUEUES, BENCH_ROUNDS, BENCH_WARMUP_ROUNDS,
  BENCH_CONSUMERS, BENCH_JAVA_HEAP_MB, BENCH_NODE_HEAP_MB, BENCH_BROKER_HEAP_MB, BENCH_NAMESRV, BENCH_BROKER
  (flags win).`;

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const SWITCHES = new Set(['--quick', '--profile', '--no-decode', '--no-scenarios', '--no-charts']);
const HOST_PORT = /^[^\s:]+:\d{1,5}$/;

/**
 * The defaults of a full run and of `--quick`.
 *
 * @example
 * ```ts
 * BENCH_DEFAULTS.full.messages; // => 1000000
 * ```
 */
export const BENCH_DEFAULTS = {
  full: {
    messages: 1_000_000,
    rounds: 3,
    warmupRounds: 1,
    brokerHeapMb: 512,
    decodeWarmupMs: 2000,
    decodeMeasureMs: 2000,
    pauseBetweenRunsMs: 1000,
    peerCloseWaitMs: 10_000,
    runTimeoutMs: 600_000,
    outFile: `${RESULTS_DIR}latest.md`,
  },
  /** A smoke run of the whole harness (CI): figures that mean nothing. */
  quick: {
    messages: 2000,
    rounds: 1,
    warmupRounds: 0,
    brokerHeapMb: 256,
    decodeWarmupMs: 100,
    decodeMeasureMs: 200,
    pauseBetweenRunsMs: 200,
    /** rocketmq-client-nodejs's shutdown waits for its 20 s long polls: 9 s saved per run. */
    peerCloseWaitMs: 1000,
    /** A consumer that cannot drain 2,000 messages in 2 min is broken: fail it rather than wait. */
    runTimeoutMs: 120_000,
    outFile: `${RESULTS_DIR}quick.md`,
  },
  messageBytes: 1024,
  queues: 8,
  javaHeapMb: 256,
  /** `--only scale`: its own results files, runs and (two) brokers' heap. */
  scale: {
    full: { rounds: 3, outFile: `${RESULTS_DIR}scale.md` },
    quick: { rounds: 1, outFile: `${RESULTS_DIR}scale-quick.md` },
    brokerHeapMb: 256,
  },
} as const;

/**
 * A bad flag or value; main prints its message with the usage and exits 2.
 *
 * @example
 * ```ts
 * try { parseBenchOptions(['--rounds', 'x'], {}); } catch (e) { if (e instanceof BenchUsageError) console.error(e.usage); }
 * ```
 */
export class BenchUsageError extends Error {
  readonly usage = USAGE;
}

/**
 * Parses `argv` (without node and the script) and `env` into {@link BenchOptions}; `registry` names the
 * registered peers and scenarios.
 *
 * @example
 * ```ts
 * const options = parseBenchOptions(['--quick', '--rounds', '1'], {});
 * options.messages; // => 2000
 * ```
 */
export function parseBenchOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  registry: BenchRegistry = { peers: [], scenarios: [] },
): BenchOptions {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (SWITCHES.has(arg)) {
      switches.add(arg);
      continue;
    }
    const [name, inline] = arg.split('=', 2) as [string, string | undefined];
    if (!name.startsWith('--')) throw new BenchUsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new BenchUsageError(`${name} needs a value`);
    flags.set(name, value);
  }
  const known = new Set([
    '--messages',
    '--message-bytes',
    '--queues',
    '--rounds',
    '--warmup-rounds',
    '--node-heap-mb',
    '--consumers',
    '--java-heap-mb',
    '--broker-heap-mb',
    '--namesrv',
    '--broker',
    '--run-timeout-ms',
    '--out',
    '--only',
  ]);
  for (const name of flags.keys()) {
    if (!known.has(name)) throw new BenchUsageError(`unknown option ${name}`);
  }
  const only = flags.get('--only');
  const parts = ['decode', 'scale', ...registry.scenarios];
  if (only !== undefined && !parts.includes(only)) {
    throw new BenchUsageError(`--only: unknown part ${JSON.stringify(only)} (${parts.join(', ')})`);
  }
  if (only === 'decode' && switches.has('--no-decode')) {
    throw new BenchUsageError('--only decode and --no-decode exclude each other');
  }
  if (only !== undefined && switches.has('--profile')) {
    throw new BenchUsageError('--profile profiles the drain race, which --only leaves out');
  }
  const quick = switches.has('--quick');
  const scale = only === 'scale';
  const mode = quick ? BENCH_DEFAULTS.quick : BENCH_DEFAULTS.full;
  const scaleMode = quick ? BENCH_DEFAULTS.scale.quick : BENCH_DEFAULTS.scale.full;
  const pick = (flag: string, envName: string): string | undefined => flags.get(flag) ?? env[envName];
  const outFile =
    flags.get('--out') ??
    (scale
      ? scaleMode.outFile
      : only !== undefined
        ? `${RESULTS_DIR}${only}${quick ? '-quick' : ''}.md`
        : mode.outFile);
  return {
    quick,
    messages: int('--messages', pick('--messages', 'BENCH_MESSAGES'), mode.messages, 1, 10_000_000),
    messageBytes: int(
      '--message-bytes',
      pick('--message-bytes', 'BENCH_MESSAGE_BYTES'),
      BENCH_DEFAULTS.messageBytes,
      16,
      4 * 1024 * 1024,
    ),
    queues: int('--queues', pick('--queues', 'BENCH_QUEUES'), BENCH_DEFAULTS.queues, 1, 64),
    rounds: int('--rounds', pick('--rounds', 'BENCH_ROUNDS'), scale ? scaleMode.rounds : mode.rounds, 1, 20),
    warmupRounds: int(
      '--warmup-rounds',
      pick('--warmup-rounds', 'BENCH_WARMUP_ROUNDS'),
      mode.warmupRounds,
      0,
      5,
    ),
    consumers: consumerList(pick('--consumers', 'BENCH_CONSUMERS'), registry.peers),
    javaHeapMb: int(
      '--java-heap-mb',
      pick('--java-heap-mb', 'BENCH_JAVA_HEAP_MB'),
      BENCH_DEFAULTS.javaHeapMb,
      32,
      16_384,
    ),
    nodeHeapMb: optionalInt('--node-heap-mb', pick('--node-heap-mb', 'BENCH_NODE_HEAP_MB'), 16, 65_536),
    brokerHeapMb: int(
      '--broker-heap-mb',
      pick('--broker-heap-mb', 'BENCH_BROKER_HEAP_MB'),
      scale ? BENCH_DEFAULTS.scale.brokerHeapMb : mode.brokerHeapMb,
      256,
      16_384,
    ),
    externalBroker: externalBroker(
      pick('--namesrv', 'BENCH_NAMESRV'),
      pick('--broker', 'BENCH_BROKER'),
      scale,
    ),
    decode: !switches.has('--no-decode') && !scale && (only === undefined || only === 'decode'),
    decodeWarmupMs: mode.decodeWarmupMs,
    decodeMeasureMs: mode.decodeMeasureMs,
    scenarios: !switches.has('--no-scenarios') && only !== 'decode' && !scale,
    charts: !switches.has('--no-charts') && only === undefined,
    only,
    runTimeoutMs: int('--run-timeout-ms', flags.get('--run-timeout-ms'), mode.runTimeoutMs, 1000, 3_600_000),
    pauseBetweenRunsMs: mode.pauseBetweenRunsMs,
    peerCloseWaitMs: mode.peerCloseWaitMs,
    profile: switches.has('--profile'),
    outFile,
    jsonFile: outFile.endsWith('.md') ? `${outFile.slice(0, -3)}.json` : `${outFile}.json`,
  };
}

function externalBroker(
  namesrvAddr: string | undefined,
  brokerAddr: string | undefined,
  scale: boolean,
): BenchOptions['externalBroker'] {
  if (namesrvAddr === undefined && brokerAddr === undefined) return undefined;
  if (namesrvAddr === undefined || brokerAddr === undefined) {
    throw new BenchUsageError('--namesrv and --broker (BENCH_NAMESRV, BENCH_BROKER) go together');
  }
  if (scale)
    throw new BenchUsageError('--only scale starts its own two-group cluster: no --namesrv/--broker');
  for (const [flag, value] of [
    ['--namesrv', namesrvAddr],
    ['--broker', brokerAddr],
  ] as const) {
    if (!HOST_PORT.test(value))
      throw new BenchUsageError(`${flag} must be host:port, got ${JSON.stringify(value)}`);
  }
  return { namesrvAddr, brokerAddr };
}

function int(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.replaceAll('_', ''));
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new BenchUsageError(`${flag} must be an integer in ${min}..${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function optionalInt(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  return raw === undefined ? undefined : int(flag, raw, min, min, max);
}

function consumerList(raw: string | undefined, peers: readonly string[]): string[] {
  const defaults = [...BUILTIN_CONSUMERS, ...peers];
  if (raw === undefined) return defaults;
  const all = [...defaults, ...EXPERIMENT_CONSUMERS];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const ids: string[] = [];
  for (const name of names) {
    if (!all.includes(name)) {
      throw new BenchUsageError(`--consumers: unknown consumer ${JSON.stringify(name)} (${all.join(', ')})`);
    }
    if (!ids.includes(name)) ids.push(name);
  }
  if (ids.length === 0) throw new BenchUsageError('--consumers names no consumer');
  return ids;
}
