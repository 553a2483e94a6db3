/**
 * A poller started in-process for one test (src/poller/poller.ts, as `rocketmq-lambda run` starts it),
 * stopped when the test finishes; a test may stop it earlier (stopping again is a no-op).
 */
import { onTestFinished } from 'vitest';
import type { RunConfig } from '../../src/config/run-config.js';
import { type Poller, type PollerOptions, startPoller } from '../../src/poller/poller.js';

/**
 * Starts a poller of `config`, stopped when the test finishes.
 *
 * @example
 * ```ts
 * const poller = await startTestPoller(config, { invoker });
 * ```
 */
export async function startTestPoller(config: RunConfig, options: PollerOptions = {}): Promise<Poller> {
  const poller = await startPoller(config, options);
  onTestFinished(async () => {
    await poller.stop();
  });
  return poller;
}
