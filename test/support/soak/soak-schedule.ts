/**
 * The fault schedule of a soak run (`npm run soak`), pure: a seed and a run length give a list of
 * faults, each with its start, duration, kind and target, and the same seed always gives the same
 * list. Gaps between fault starts are drawn uniformly from 30-90 s (the spacing); each fault
 * lasts a random time from its kind's range, so faults may overlap, as bad days do.
 */

/** Every kind of fault a soak applies. */
export const SOAK_FAULT_KINDS = [
  'poller-sigkill',
  'poller-sigterm-restart',
  'scale-out',
  'scale-in',
  'master-sigkill',
  'slave-sigkill',
  'namesrv-restart',
  'dynamodb-outage',
  'lambda-errors',
  'lambda-throttles',
  'lambda-timeouts',
  'tcp-latency',
  'tcp-bandwidth',
  'tcp-reset',
  'tcp-blackhole',
] as const;

export type SoakFaultKind = (typeof SOAK_FAULT_KINDS)[number];

/** How long a fault of each kind lasts, in ms: [min, max]. A kill's duration is its downtime. */
export const SOAK_FAULT_DURATIONS: Readonly<Record<SoakFaultKind, readonly [number, number]>> = {
  'poller-sigkill': [2_000, 20_000],
  'poller-sigterm-restart': [2_000, 20_000],
  'scale-out': [15_000, 60_000],
  'scale-in': [15_000, 60_000],
  'master-sigkill': [5_000, 30_000],
  'slave-sigkill': [5_000, 30_000],
  'namesrv-restart': [2_000, 15_000],
  'dynamodb-outage': [5_000, 40_000],
  'lambda-errors': [5_000, 30_000],
  'lambda-throttles': [5_000, 30_000],
  'lambda-timeouts': [5_000, 20_000],
  'tcp-latency': [10_000, 40_000],
  'tcp-bandwidth': [10_000, 40_000],
  'tcp-reset': [2_000, 10_000],
  'tcp-blackhole': [5_000, 25_000],
};

/** One planned fault. */
export interface SoakFault {
  /** 1, 2, ... in start order. */
  index: number;
  kind: SoakFaultKind;
  /** From the run's start. */
  startMs: number;
  durationMs: number;
  /**
   * What it hits, drawn from the seed too: a poller slot (resolved to the n-th running poller when the
   * fault starts), a broker group index (0 = broker-a), or 0 where a kind has one target only.
   */
  target: number;
}

/** Options of {@link planSoakSchedule}. */
export interface SoakScheduleOptions {
  seed: number;
  /** Faults start before this (from the run's start); the last may end after it. */
  runMs: number;
  /** Gap between fault starts, [min, max] ms. @default [30_000, 90_000] */
  gapMs?: readonly [number, number];
  /** Kinds to draw from. @default SOAK_FAULT_KINDS */
  kinds?: readonly SoakFaultKind[];
  /** Broker groups of the cluster. @default 2 */
  brokerGroups?: number;
  /** Poller slots a poller fault draws from. @default 3 */
  pollerSlots?: number;
}

/** The spacing of fault starts. */
export const SOAK_DEFAULT_GAP_MS: readonly [number, number] = [30_000, 90_000];

/**
 * The faults of a run of `runMs` with `seed`.
 *
 * @example
 * ```ts
 * const faults = planSoakSchedule({ seed: 7, runMs: 60 * 60_000 });
 * faults[0] // => { index: 1, kind: 'poller-sigkill', startMs: 30_702, durationMs: 19_585, target: 2 }
 * ```
 */
export function planSoakSchedule(options: SoakScheduleOptions): SoakFault[] {
  if (!Number.isSafeInteger(options.seed) || options.seed < 0)
    throw new Error(`soak seed must be a non-negative integer, not ${String(options.seed)}`);
  if (!Number.isFinite(options.runMs) || options.runMs <= 0)
    throw new Error(`soak run length must be a positive number of ms, not ${String(options.runMs)}`);
  const [minGap, maxGap] = options.gapMs ?? SOAK_DEFAULT_GAP_MS;
  if (!(minGap > 0 && maxGap >= minGap))
    throw new Error(`soak fault gap must be 0 < min <= max, not [${minGap}, ${maxGap}]`);
  const kinds = options.kinds ?? SOAK_FAULT_KINDS;
  if (kinds.length === 0) throw new Error('soak schedule needs at least one fault kind');
  const groups = options.brokerGroups ?? 2;
  const slots = options.pollerSlots ?? 3;
  const random = seededRandom(options.seed);
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const faults: SoakFault[] = [];
  for (let startMs = between(minGap, maxGap); startMs < options.runMs; startMs += between(minGap, maxGap)) {
    const kind = kinds[Math.floor(random() * kinds.length)] as SoakFaultKind;
    const [minMs, maxMs] = SOAK_FAULT_DURATIONS[kind];
    const durationMs = between(minMs, maxMs);
    const target = targetsBrokers(kind)
      ? between(0, groups - 1)
      : targetsPoller(kind)
        ? between(0, slots - 1)
        : 0;
    faults.push({ index: faults.length + 1, kind, startMs, durationMs, target });
  }
  return faults;
}

/** True for faults that hit one broker group. */
export function targetsBrokers(kind: SoakFaultKind): boolean {
  return kind === 'master-sigkill' || kind === 'slave-sigkill';
}

/** True for faults that hit one poller (or the path between it and a broker). */
export function targetsPoller(kind: SoakFaultKind): boolean {
  return kind.startsWith('poller-') || kind.startsWith('tcp-') || kind === 'scale-in';
}

/**
 * mulberry32: a 32-bit state PRNG, uniform in [0, 1); enough for a schedule and reproducible on every
 * platform (integer arithmetic only).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * One line per fault, for the run's log: `#3 +01:47 master-sigkill target 1 for 12.0 s`.
 *
 * @example
 * ```ts
 * formatSchedule(planSoakSchedule({ seed: 1, runMs: 300_000 })).join('\n');
 * ```
 */
export function formatSchedule(faults: readonly SoakFault[]): string[] {
  return faults.map(
    (f) =>
      `#${f.index} +${clock(f.startMs)} ${f.kind} target ${f.target} for ${(f.durationMs / 1000).toFixed(1)} s`,
  );
}

/** `mm:ss` of a run offset. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
