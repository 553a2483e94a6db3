/**
 * The scenarios `npm run bench` runs after the drain rounds (bench-scenario.ts), in this order; each
 * one also runs alone with `npm run bench -- --only <id>`. Add a scenario by appending it here.
 */
import type { BenchScenario } from './bench-scenario.js';
import { httpInvokeScenario } from './http-invoke-scenario.js';
import { latencyScenario } from './latency-scenario.js';
import { offsetWritesScenario } from './offset-writes-scenario.js';
import { perVcpuScenario } from './per-vcpu-scenario.js';

/**
 * Every registered scenario.
 *
 * @example
 * ```ts
 * const ids = BENCH_SCENARIOS.map((scenario) => scenario.id);
 * ```
 */
export const BENCH_SCENARIOS: readonly BenchScenario[] = [
  latencyScenario,
  httpInvokeScenario,
  perVcpuScenario,
  offsetWritesScenario,
];
