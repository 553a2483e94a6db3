/**
 * The node children of the latency, http-invoke and offset-writes scenarios (latency-child.ts,
 * latency-handler.ts, drain-child.ts), compiled to plain JavaScript like the drain race's child
 * (node-child-build.ts) into a cache directory of their own, once per process.
 */
import { buildNodeChild } from './node-child-build.js';

const CACHE_NAME = 'rocketmq-lambda-bench-scenarios';
const ENTRIES = ['latency-child.ts', 'latency-handler.ts', 'drain-child.ts'] as const;

let building: Promise<string> | undefined;

/**
 * The compiled bench/ directory holding `latency-child.js`, `drain-child.js`, `noop-handler.js`, ...;
 * compiled on the first call of the process.
 *
 * @example
 * ```ts
 * const script = join(await scenarioChildrenDir(), 'drain-child.js');
 * ```
 */
export function scenarioChildrenDir(): Promise<string> {
  building ??= buildNodeChild({ entries: ENTRIES, cacheName: CACHE_NAME }).then((build) => build.benchDir);
  return building;
}
