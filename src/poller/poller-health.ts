/**
 * The poller's verdict on itself, from its mappings' verdicts (consumer-health.ts): what
 * `poller.health()`, the health file and `/readyz` report, with each mapping's consume state
 * (consume-state.ts) so that a waiting standby and a missing topic are told apart.
 */
import type { ConsumeStateName } from '../consumer/consume-state.js';
import type { ConsumerHealth } from '../consumer/consumer-health.js';

/**
 * One mapping's part of the verdict.
 */
export interface MappingHealth {
  readonly mapping: string;
  readonly healthy: boolean;
  /** What the mapping can do now (`consuming`, `waiting`, `topic_missing`, ...), when its mode tells. */
  readonly state: ConsumeStateName | undefined;
  /** Why it is in that state (names the topic); undefined while consuming. */
  readonly reason: string | undefined;
  /** Since when (ISO 8601), when known. */
  readonly since: string | undefined;
  readonly problems: readonly string[];
}

/**
 * The poller's verdict on itself: healthy, or one line per problem, each starting with the mapping name.
 */
export interface PollerHealth {
  readonly healthy: boolean;
  readonly problems: readonly string[];
  /** Each mapping's verdict and state (absent while stopping). */
  readonly mappings?: readonly MappingHealth[] | undefined;
}

/** What {@link assessPollerHealth} reads of a mapping's runtime. */
export interface HealthAssessed {
  health(
    nowMs: number,
  ): Pick<ConsumerHealth, 'problems'> & Partial<Pick<ConsumerHealth, 'healthy' | 'state'>>;
}

/**
 * Healthy when no mapping has a problem; a stopping poller is never healthy.
 */
export function assessPollerHealth(
  runtimes: ReadonlyMap<string, HealthAssessed>,
  stopping: boolean,
  nowMs: number,
): PollerHealth {
  if (stopping) return { healthy: false, problems: ['the poller is stopping'] };
  const mappings = [...runtimes].map(([name, runtime]): MappingHealth => {
    const verdict = runtime.health(nowMs);
    const sinceMs = verdict.state?.sinceMs;
    return {
      mapping: name,
      healthy: verdict.healthy ?? verdict.problems.length === 0,
      state: verdict.state?.state,
      reason: verdict.state?.reason,
      since: sinceMs === undefined ? undefined : new Date(sinceMs).toISOString(),
      problems: verdict.problems,
    };
  });
  const problems = mappings.flatMap(({ mapping, problems: found }) =>
    found.map((problem) => `${mapping}: ${problem}`),
  );
  return { healthy: problems.length === 0, problems, mappings };
}
