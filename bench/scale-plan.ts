/**
 * What `npm run bench -- --only scale` measures: the topics it creates on the two-group local cluster,
 * and the cases each run starts one poller child for (how many mappings on which topics, whether the
 * child measures an idle window and drains a backlog). A full plan and a `--quick` one with tiny numbers.
 */

/**
 * The sizes of a scale run.
 */
export interface ScalePlan {
  /** Broker groups of the local cluster (masters only). */
  readonly brokerGroups: number;
  /** Queues of each small topic on each broker group. */
  readonly smallQueuesPerGroup: number;
  /** Queues of the wide topic on each broker group. */
  readonly wideQueuesPerGroup: number;
  /** Pollers with this many mappings, each on its own small topic and group; the largest sets the topic count. */
  readonly mappingCounts: readonly number[];
  /** Pollers with this many mappings all on the wide topic (a group each); each count is also in `mappingCounts`. */
  readonly wideMappingCounts: readonly number[];
  /** After every mapping holds its queues: how long the child waits before it measures memory. */
  readonly settleMs: number;
  /** The idle window over which CPU time is measured (long polls only). */
  readonly idleMs: number;
  /** Messages sent round-robin to each small topic after the largest case's idle window, then drained. */
  readonly drainMessagesPerTopic: number;
  /** A child that has not held every queue by then fails. */
  readonly holdTimeoutMs: number;
}

/**
 * The full plan (`quick: false`): 50 small topics of 4 queues per group (8 per topic) and one wide topic
 * of 32 queues per group (64); 60 s idle windows. The quick plan: tiny numbers, a few seconds per case.
 *
 * @example
 * ```ts
 * scalePlan(true).idleMs; // => 3000
 * ```
 */
export function scalePlan(quick: boolean): ScalePlan {
  return quick
    ? {
        brokerGroups: 2,
        smallQueuesPerGroup: 2,
        wideQueuesPerGroup: 8,
        mappingCounts: [1, 3],
        wideMappingCounts: [1],
        settleMs: 1000,
        idleMs: 3000,
        drainMessagesPerTopic: 8,
        holdTimeoutMs: 60_000,
      }
    : {
        brokerGroups: 2,
        smallQueuesPerGroup: 4,
        wideQueuesPerGroup: 32,
        mappingCounts: [1, 10, 50],
        wideMappingCounts: [1, 10],
        settleMs: 15_000,
        idleMs: 60_000,
        drainMessagesPerTopic: 64,
        holdTimeoutMs: 120_000,
      };
}

/**
 * One mapping of a case: which topic (an index into the small topics, or the wide topic).
 */
export interface ScaleCaseMapping {
  readonly topic: { readonly kind: 'small'; readonly index: number } | { readonly kind: 'wide' };
}

/**
 * One poller child of a run.
 */
export interface ScaleCase {
  /** `baseline`, `mappings-<n>` or `wide-<n>`. */
  readonly id: string;
  readonly mappings: readonly ScaleCaseMapping[];
  /** Queues the poller holds once settled (a single poller holds every queue of its groups). */
  readonly queues: number;
  /** Measure CPU over {@link ScalePlan.idleMs}. */
  readonly idle: boolean;
  /** Drain a backlog on every small topic after the idle window. */
  readonly drain: boolean;
}

/**
 * The cases of one run, in order: the baseline (poller code loaded, nothing started), one poller per
 * mapping count on small topics (idle windows on each; the largest drains a backlog afterwards), and
 * one per wide mapping count (idle window on all but a single mapping).
 *
 * @example
 * ```ts
 * scaleCases(scalePlan(false)).map((c) => c.id);
 * // => ['baseline', 'mappings-1', 'mappings-10', 'mappings-50', 'wide-1', 'wide-10']
 * ```
 */
export function scaleCases(plan: ScalePlan): ScaleCase[] {
  const smallQueues = plan.smallQueuesPerGroup * plan.brokerGroups;
  const wideQueues = plan.wideQueuesPerGroup * plan.brokerGroups;
  const largest = Math.max(...plan.mappingCounts);
  const cases: ScaleCase[] = [{ id: 'baseline', mappings: [], queues: 0, idle: false, drain: false }];
  for (const count of plan.mappingCounts) {
    cases.push({
      id: `mappings-${count}`,
      mappings: Array.from({ length: count }, (_, index) => ({ topic: { kind: 'small', index } })),
      queues: count * smallQueues,
      idle: true,
      drain: count === largest && plan.drainMessagesPerTopic > 0,
    });
  }
  for (const count of plan.wideMappingCounts) {
    if (!plan.mappingCounts.includes(count)) {
      throw new Error(`wide mapping count ${count} has no small-topic case to compare with`);
    }
    cases.push({
      id: `wide-${count}`,
      mappings: Array.from({ length: count }, () => ({ topic: { kind: 'wide' } })),
      queues: count * wideQueues,
      idle: count > 1,
      drain: false,
    });
  }
  return cases;
}
