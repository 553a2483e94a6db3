/**
 * The poller's verdict on itself, from its mappings' verdicts (consumer-health.ts): what
 * `poller.health()`, the health file and `/readyz` report.
 */
import type { ConsumerHealth } from '../consumer/consumer-health.js';

/**
 * The poller's verdict on itself: healthy, or one line per problem, each starting with the mapping name.
 */
export interface PollerHealth {
  readonly healthy: boolean;
  readonly problems: readonly string[];
}

/** What {@link assessPollerHealth} reads of a mapping's runtime. */
export interface HealthAssessed {
  health(nowMs: number): Pick<ConsumerHealth, 'problems'>;
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
  const problems = [...runtimes].flatMap(([name, runtime]) =>
    runtime.health(nowMs).problems.map((problem) => `${name}: ${problem}`),
  );
  return { healthy: problems.length === 0, problems };
}
