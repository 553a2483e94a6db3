/**
 * The poller's zone on ECS: when the config names none (`zone`, `ROCKETMQ_LAMBDA_ZONE`) and a mapping asks
 * for zone-aware allocation (`zoneNearby`), the task's availability zone from the ECS task metadata
 * endpoint (v4: `$ECS_CONTAINER_METADATA_URI_V4/task` answers `AvailabilityZone` on Fargate and EC2). So
 * the deploy templates need no per-task setting: every task learns its own zone at start.
 */
import type { RunConfig } from '../config/run-config.js';
import { describeError } from '../util/describe-error.js';
import type { Logger } from '../util/logger.js';

/** The variable ECS sets in every container of a task. */
export const ECS_METADATA_ENV = 'ECS_CONTAINER_METADATA_URI_V4';

/** The metadata endpoint answers from the local agent; a slow answer means there is none to wait for. */
const METADATA_TIMEOUT_MS = 2000;

/** Where the zone lookup reads from (tests pass their own). */
export interface TaskZoneSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof fetch;
  readonly log: Logger;
}

/**
 * The config with its zone filled from the task metadata when it has none and a mapping uses
 * `zoneNearby`; else the config as given. A failed lookup is logged and leaves the zone unset: zone-aware
 * allocation then treats this poller as zone-less (its brokers' queues are shared among all pollers).
 */
export async function withTaskZone(config: RunConfig, sources: TaskZoneSources): Promise<RunConfig> {
  if (config.zone !== undefined) return config;
  if (!config.mappings.some((mapping) => mapping.zoneNearby !== undefined)) return config;
  const endpoint = sources.env[ECS_METADATA_ENV];
  if (endpoint === undefined || endpoint === '') return config;
  try {
    const response = await sources.fetch(`${endpoint}/task`, {
      signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body: unknown = await response.json();
    const zone =
      typeof body === 'object' && body !== null && 'AvailabilityZone' in body
        ? body.AvailabilityZone
        : undefined;
    if (typeof zone !== 'string' || zone === '' || zone.includes('@')) {
      throw new Error(`no usable AvailabilityZone in the answer (got ${JSON.stringify(zone)})`);
    }
    sources.log.info({ zone }, 'zone from the ECS task metadata');
    return { ...config, zone };
  } catch (error) {
    sources.log.warn(
      { reason: describeError(error) },
      'could not read the zone from the ECS task metadata: zoneNearby treats this poller as zone-less (set zone or ROCKETMQ_LAMBDA_ZONE)',
    );
    return config;
  }
}
