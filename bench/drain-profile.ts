/**
 * `--profile`: after the drain rounds, each of our node contenders ({@link PROFILED_CONTENDERS}) drains
 * the backlog once more under `node --cpu-prof`, in a fresh group, unreported (profiling slows it down),
 * and its profile is saved as bench/results/profiles/drain-<id>[-quick].cpuprofile with the frames of
 * most self time beside it (`.top.txt`, cpu-profile-top.ts). The profile covers the whole child process,
 * start-up included: module loading shows in a quick run, the drain dominates a full one.
 */
import type { BenchOptions } from './bench-options.js';
import { cpuProfileFlags, writeProfileTop } from './cpu-profile-top.js';
import { type DrainContender, drainRunSpec, runDrainChild } from './drain-race.js';

/**
 * The contenders `--profile` profiles: ours, in both forms.
 *
 * @example
 * ```ts
 * PROFILED_CONTENDERS.includes('ours-function'); // => true
 * ```
 */
export const PROFILED_CONTENDERS: readonly string[] = ['ours', 'ours-function'];
const TOP_FRAMES = 15;

/**
 * One contender's profile, or why there is none.
 *
 * @example
 * ```ts
 * const line = profile.error ?? `${profile.contender}: ${profile.file}`;
 * ```
 */
export interface DrainProfile {
  readonly contender: string;
  /** The `.cpuprofile`, relative to the repo (`bench/results/profiles/drain-ours.cpuprofile`). */
  readonly file: string;
  /** The profiled run failed: no profile. */
  readonly error?: string;
}

/**
 * Profiles every contender of {@link PROFILED_CONTENDERS} that ran the race without failing (not in
 * `errors`). A failed profiled run is returned with its error; it fails nothing else.
 *
 * @example
 * ```ts
 * const profiles = await profileDrain(contenders, topic, options, outcome.errors, log);
 * ```
 */
export async function profileDrain(
  contenders: readonly DrainContender[],
  topic: string,
  options: BenchOptions,
  errors: ReadonlyMap<string, string>,
  log: (line: string) => void,
): Promise<DrainProfile[]> {
  const profiles: DrainProfile[] = [];
  for (const contender of contenders) {
    const { launchWithNodeFlags } = contender;
    if (!PROFILED_CONTENDERS.includes(contender.id) || errors.has(contender.id)) continue;
    if (launchWithNodeFlags === undefined) throw new Error(`unreachable: ${contender.id} is no node child`);
    const name = `drain-${contender.id}${options.quick ? '-quick' : ''}`;
    const file = `bench/results/profiles/${name}.cpuprofile`;
    await sleep(options.pauseBetweenRunsMs);
    try {
      const spec = drainRunSpec(contender, topic, options, 'profile');
      await runDrainChild(contender, launchWithNodeFlags(spec, await cpuProfileFlags(name)), spec, {
        round: 0,
        warmup: true,
        // Unreported: the broker's CPU is not read.
        brokerPid: undefined,
        brokerIdleCpuPercentOfCore: undefined,
      });
      const { text } = await writeProfileTop(name, TOP_FRAMES);
      log(`profile of ${contender.id}'s drain (an extra, unreported run) in ${file}\n${text}`);
      profiles.push({ contender: contender.id, file });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`the profiled run of ${contender.id} failed: ${message}`);
      profiles.push({ contender: contender.id, file, error: message });
    }
  }
  return profiles;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
