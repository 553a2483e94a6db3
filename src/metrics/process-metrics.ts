/**
 * The Node.js runtime metrics of the process (prom-client's default metrics: CPU, resident and heap
 * memory, event-loop lag, GC pauses, open handles and file descriptors) under their standard names
 * (`process_*`, `nodejs_*`: what stock Node.js dashboards and alerts query). They describe the process, not a poller, so there is one registry of them
 * per process, created on first use and shared by every poller in it (each collector watches the event
 * loop and the garbage collector for as long as the process lives, so it must not be made per poller).
 * `/metrics` serves it beside the poller's own registry; EMF leaves it out (CloudWatch has the task's
 * CPU and memory already).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** No prefix: the runtime metrics keep prom-client's standard names, unlike the catalog's own. */
export const RUNTIME_METRIC_PREFIX = '';

/** Buckets of GC pause durations (seconds): a scavenge takes about a millisecond, a full mark-sweep more. */
export const GC_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5] as const;

let registry: Registry | undefined;

/**
 * The process's runtime metrics registry (created, and its collectors started, on the first call).
 */
export function processMetricsRegistry(): Registry {
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({
      register: registry,
      prefix: RUNTIME_METRIC_PREFIX,
      gcDurationBuckets: [...GC_DURATION_BUCKETS],
    });
  }
  return registry;
}
