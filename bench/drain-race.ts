/**
 * The drain race: every contender (our consumers, the Java push consumer, the raw PULL limit, the
 * registered peers) consumes the whole bench topic from the first offset in its own child process and
 * a fresh group, round after round, the order rotating every round. A contender whose run fails is
 * left out of the later rounds and reported with its error; the race goes on without it.
 */
import type { BenchOptions } from './bench-options.js';
import { numberField, runChild } from './child-run.js';
import type { PeerRunSpec } from './drain-peer.js';

/**
 * How one contender's child is started for one run.
 *
 * @example
 * ```ts
 * const launch: ChildLaunch = { command: process.execPath, args: [childScript, JSON.stringify(spec)] };
 * ```
 */
export interface ChildLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/**
 * A consumer of the race.
 *
 * @example
 * ```ts
 * const contender: DrainContender = { id: 'ours', label: 'ours', builtin: true, launch: (spec) => ({ command, args }) };
 * ```
 */
export interface DrainContender {
  readonly id: string;
  readonly label: string;
  /** Ours, Java or raw-pull: its failure fails the bench; a peer's is only reported. */
  readonly builtin: boolean;
  /** Drains only this many of the backlog's messages (a slow peer, see DrainPeer.maxMessages). */
  readonly maxMessages?: number;
  /**
   * Settles once the contender can run (a peer's prepare() done; its failure is then in the race's
   * `errors`); never rejects. The race awaits it before the contender's first run. Undefined: ready now.
   */
  readonly ready?: Promise<void>;
  launch(spec: PeerRunSpec): ChildLaunch;
  /** Our node children only: the launch with `nodeFlags` (e.g. `--cpu-prof`) before the script. */
  readonly launchWithNodeFlags?: (spec: PeerRunSpec, nodeFlags: readonly string[]) => ChildLaunch;
}

/**
 * One run as the child measured it (wall time by the harness).
 *
 * @example
 * ```ts
 * const perSecond = run.received / (run.firstToLastMs / 1000);
 * ```
 */
export interface DrainRun {
  readonly id: string;
  readonly round: number;
  /** A warm-up run: listed, but not in the figures. */
  readonly warmup: boolean;
  readonly received: number;
  /** From the consumer's start() to the first message at the listener. */
  readonly startToFirstMs: number;
  /** From start() until the listener had seen every message. */
  readonly startToLastMs: number;
  readonly firstToLastMs: number;
  /** VmHWM of the child at the last message. */
  readonly peakRssBytes: number;
  /** The largest used heap a 50 ms sampler saw (V8 heapUsed / JVM heap used). */
  readonly peakHeapUsedBytes: number;
  /** Node children: the largest `arrayBuffers` (Buffers outside the V8 heap). */
  readonly peakArrayBuffersBytes: number | undefined;
  /** raw-pull: the PULL bodies' bytes. */
  readonly pulledBytes: number | undefined;
  /** `[ms since start(), RSS bytes]` about every 200 ms; empty when the child sends none. */
  readonly rssSeries: ReadonlyArray<readonly [number, number]>;
  /** Spawn to exit of the child, start-up and shutdown included. */
  readonly wallMs: number;
}

/**
 * The race's outcome: every run in order, and the first error of each contender that failed.
 *
 * @example
 * ```ts
 * const { runs, errors } = await runDrainRace(contenders, topic, options, new Map(), log);
 * ```
 */
export interface DrainRaceOutcome {
  readonly runs: readonly DrainRun[];
  /** Contender id -> why it stopped (a failed prepare() is put here by the caller). */
  readonly errors: ReadonlyMap<string, string>;
}

/**
 * Runs `options.warmupRounds + options.rounds` rounds of every contender not in `errors` already (a
 * peer whose prepare() failed); a contender's failed run adds it to `errors`, which is returned.
 *
 * @example
 * ```ts
 * const outcome = await runDrainRace(contenders, topic, options, new Map(), log);
 * ```
 */
export async function runDrainRace(
  contenders: readonly DrainContender[],
  topic: string,
  options: BenchOptions,
  errors: Map<string, string>,
  log: (line: string) => void,
): Promise<DrainRaceOutcome> {
  const runs: DrainRun[] = [];
  for (let index = 0; index < options.warmupRounds + options.rounds; index++) {
    const warmup = index < options.warmupRounds;
    const round = warmup ? index + 1 : index - options.warmupRounds + 1;
    for (const contender of rotate(contenders, index)) {
      await contender.ready;
      if (errors.has(contender.id)) continue;
      await sleep(options.pauseBetweenRunsMs);
      const spec = drainRunSpec(contender, topic, options, `${warmup ? 'w' : ''}${round}`);
      const what = `${warmup ? 'warm-up' : 'round'} ${round} ${contender.id}`;
      try {
        const run = await runDrainChild(contender, contender.launch(spec), spec, { round, warmup });
        runs.push(run);
        log(
          `${what}: ${fmt(run.received / (Math.max(run.firstToLastMs, 1) / 1000))} msgs/s first → all (${fmt(run.startToLastMs)} ms from start, first after ${fmt(run.startToFirstMs)} ms), peak RSS ${mib(run.peakRssBytes)} MiB`,
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        errors.set(contender.id, message);
        log(`${what} failed, left out of the later rounds: ${message}`);
      }
    }
  }
  return { runs, errors };
}

/**
 * The spec of one run of `contender` on `topic`: a fresh group named after `tag` (the round), the
 * contender's share of the backlog, the run timeout and the peers' close wait of `options`.
 *
 * @example
 * ```ts
 * const spec = drainRunSpec(contender, topic, options, 'profile');
 * ```
 */
export function drainRunSpec(
  contender: DrainContender,
  topic: string,
  options: BenchOptions,
  tag: string,
): PeerRunSpec {
  return {
    topic,
    group: `bench-${contender.id}-${tag}-${Date.now()}`,
    expected: Math.min(options.messages, contender.maxMessages ?? options.messages),
    timeoutMs: options.runTimeoutMs,
    closeWaitMs: options.peerCloseWaitMs,
  };
}

/**
 * Runs `launch` (a launch of `contender` for `spec`) and reads the child's result; throws when the child
 * fails or reports fewer messages than `spec.expected`.
 *
 * @example
 * ```ts
 * const run = await runDrainChild(contender, contender.launch(spec), spec, { round: 1, warmup: false });
 * ```
 */
export async function runDrainChild(
  contender: DrainContender,
  launch: ChildLaunch,
  spec: PeerRunSpec,
  { round, warmup }: { round: number; warmup: boolean },
): Promise<DrainRun> {
  const { result, wallMs } = await runChild(launch.command, launch.args, {
    // The children give up at spec.timeoutMs themselves (or should): this is the backstop.
    timeoutMs: spec.timeoutMs + 30_000,
    env: launch.env ?? { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  });
  const received = numberField(result, 'received');
  if (received < spec.expected) {
    throw new Error(`${contender.id} reported ${received} of ${spec.expected} messages`);
  }
  const optional = (field: string): number | undefined =>
    result[field] === undefined ? undefined : numberField(result, field);
  return {
    id: contender.id,
    round,
    warmup,
    received,
    startToFirstMs: numberField(result, 'startToFirstMs'),
    startToLastMs: numberField(result, 'startToLastMs'),
    firstToLastMs: numberField(result, 'firstToLastMs'),
    peakRssBytes: numberField(result, 'peakRssBytes'),
    peakHeapUsedBytes: numberField(result, 'peakHeapUsedBytes'),
    peakArrayBuffersBytes: optional('peakArrayBuffersBytes'),
    pulledBytes: optional('pulledBytes'),
    rssSeries: rssSeries(result.rssSeries),
    wallMs,
  };
}

/** The child's `rssSeries`, checked: pairs of finite numbers. */
function rssSeries(raw: unknown): Array<readonly [number, number]> {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error(`the child's rssSeries is no array: ${JSON.stringify(raw)}`);
  return raw.map((point: unknown) => {
    if (
      !Array.isArray(point) ||
      point.length !== 2 ||
      !point.every((value) => typeof value === 'number' && Number.isFinite(value))
    ) {
      throw new Error(`the child's rssSeries holds ${JSON.stringify(point)}`);
    }
    return [point[0] as number, point[1] as number] as const;
  });
}

function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
