/**
 * The options of `npm run bench`, from flags first, then `BENCH_*` environment variables, then the
 * defaults (`--quick` picks smaller ones). Every option is checked here; the rest of bench/ only sees
 * {@link BenchOptions}.
 */
import { fileURLToPath } from 'node:url';

/**
 * The consumers a run can measure.
 *
 * @example
 * ```ts
 * const kinds: ConsumerKind[] = ['ours', 'java'];
 * ```
 */
export type ConsumerKind = 'ours' | 'ours-function' | 'java';

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
  /** Runs of each consumer (alternating). */
  readonly rounds: number;
  /** Unreported runs of each consumer before the measured rounds (the broker's JIT warms up). */
  readonly warmupRounds: number;
  readonly consumers: readonly ConsumerKind[];
  /** Max heap of the Java consumer's JVM (-Xmx). */
  readonly javaHeapMb: number;
  /** `--max-old-space-size` of our consumer's node; undefined = V8's default. */
  readonly nodeHeapMb: number | undefined;
  /** Max heap of the local broker's JVM. */
  readonly brokerHeapMb: number;
  /** Run the PULL body decode micro-benchmark. */
  readonly decode: boolean;
  /**
   * `decode`: only the decode micro-benchmark (no produce, no consumer runs); `--rounds` rounds of it.
   * `scale`: only the scale bench (scale-bench.ts: one poller, many mappings and queues, on a two-group
   * cluster); `--rounds` runs of every case.
   */
  readonly only: 'decode' | 'scale' | undefined;
  /** A consumer run that has not seen every message by then fails. */
  readonly runTimeoutMs: number;
  /** Where the Markdown report is written. */
  readonly outFile: string;
}

const USAGE = `usage: npm run bench -- [--quick] [--messages N] [--message-bytes N] [--queues N] [--rounds N]
  [--warmup-rounds N] [--node-heap-mb N]  [--consumers ours,ours-function,java] [--java-heap-mb N] [--broker-heap-mb N] [--no-decode]
  [--run-timeout-ms N] [--out FILE] [--only decode|scale]
Environment: BENCH_MESSAGES, BENCH_MESSAGE_BYTES, BENCH_QUEUES, BENCH_ROUNDS, BENCH_WARMUP_ROUNDS,
  BENCH_CONSUMERS, BENCH_JAVA_HEAP_MB, BENCH_NODE_HEAP_MB, BENCH_BROKER_HEAP_MB (flags win).`;

const ALL_CONSUMERS: readonly ConsumerKind[] = ['ours', 'java', 'ours-function'];
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

/**
 * The defaults of a full run and of `--quick`.
 *
 * @example
 * ```ts
 * BENCH_DEFAULTS.full.messages; // => 100000
 * ```
 */
export const BENCH_DEFAULTS = {
  full: { messages: 100_000, rounds: 3, outFile: `${RESULTS_DIR}latest.md` },
  quick: { messages: 10_000, rounds: 2, outFile: `${RESULTS_DIR}quick.md` },
  messageBytes: 1024,
  queues: 8,
  warmupRounds: 1,
  javaHeapMb: 256,
  brokerHeapMb: 512,
  runTimeoutMs: 180_000,
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
 * Parses `argv` (without node and the script) and `env` into {@link BenchOptions}.
 *
 * @example
 * ```ts
 * const options = parseBenchOptions(['--quick', '--rounds', '1'], {});
 * options.messages; // => 10000
 * ```
 */
export function parseBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--quick' || arg === '--no-decode') {
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
    '--run-timeout-ms',
    '--out',
    '--only',
  ]);
  for (const name of flags.keys()) {
    if (!known.has(name)) throw new BenchUsageError(`unknown option ${name}`);
  }
  const only = flags.get('--only');
  if (only !== undefined && only !== 'decode' && only !== 'scale') {
    throw new BenchUsageError(`--only: unknown part ${JSON.stringify(only)} (decode, scale)`);
  }
  if (only === 'decode' && switches.has('--no-decode')) {
    throw new BenchUsageError('--only decode and --no-decode exclude each other');
  }
  const quick = switches.has('--quick');
  const scale = only === 'scale';
  const mode = quick ? BENCH_DEFAULTS.quick : BENCH_DEFAULTS.full;
  const scaleMode = quick ? BENCH_DEFAULTS.scale.quick : BENCH_DEFAULTS.scale.full;
  const pick = (flag: string, envName: string): string | undefined => flags.get(flag) ?? env[envName];
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
      BENCH_DEFAULTS.warmupRounds,
      0,
      5,
    ),
    consumers: consumerList(pick('--consumers', 'BENCH_CONSUMERS')),
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
      scale ? BENCH_DEFAULTS.scale.brokerHeapMb : BENCH_DEFAULTS.brokerHeapMb,
      256,
      16_384,
    ),
    decode: !switches.has('--no-decode') && !scale,
    only,
    runTimeoutMs: int(
      '--run-timeout-ms',
      flags.get('--run-timeout-ms'),
      BENCH_DEFAULTS.runTimeoutMs,
      1000,
      3_600_000,
    ),
    outFile:
      flags.get('--out') ??
      (only === 'decode' ? `${RESULTS_DIR}decode.md` : scale ? scaleMode.outFile : mode.outFile),
  };
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

function consumerList(raw: string | undefined): ConsumerKind[] {
  if (raw === undefined) return [...ALL_CONSUMERS];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const kinds: ConsumerKind[] = [];
  for (const name of names) {
    const kind = ALL_CONSUMERS.find((candidate) => candidate === name);
    if (kind === undefined) {
      throw new BenchUsageError(
        `--consumers: unknown consumer ${JSON.stringify(name)} (${ALL_CONSUMERS.join(', ')})`,
      );
    }
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  if (kinds.length === 0) throw new BenchUsageError('--consumers names no consumer');
  return kinds;
}
