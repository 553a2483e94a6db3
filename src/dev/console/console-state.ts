/**
 * `GET /api/state` of the dev console (docs/console-api.md): per mapping its topic, group, mode, health,
 * queues with lag and buffered messages, and counters since the start; the same numbers the CLI's
 * status and health report, read from the running poller.
 */
import type { MappingConfig } from '../../config/run-config.js';
import type { Poller } from '../../poller/poller.js';

/** One queue of a mapping: lag unknown (null) while it cannot be measured. */
export interface ConsoleQueue {
  readonly broker: string;
  readonly topic: string;
  readonly queueId: number;
  readonly lag: number | null;
  /** Messages pulled and not yet done (PUSH); 0 for POP, which buffers per broker, not per queue. */
  readonly inFlight: number;
}

/** One mapping as the console shows it. */
export interface ConsoleMapping {
  readonly id: string;
  readonly functionName: string;
  readonly topic: string;
  readonly group: string;
  readonly mode: 'concurrent' | 'orderly' | 'pop';
  readonly filters: boolean;
  readonly state: string;
  readonly health: { readonly healthy: boolean; readonly reason?: string };
  readonly queues: readonly ConsoleQueue[];
  readonly inFlightBatches: number;
  /** Messages sent back for another attempt. */
  readonly retries: number;
  readonly deadLetters: number;
  readonly filteredOut: number;
  readonly invocations: number;
  /** Invocations the console dropped from its memory (over its bound). */
  readonly invocationsDropped: number;
}

/** The body of `GET /api/state`. */
export interface ConsoleState {
  readonly startedAt: string;
  readonly mappings: readonly ConsoleMapping[];
}

/** What the state is read from. */
export interface ConsoleStateSource {
  readonly startedAt: Date;
  readonly mappings: readonly MappingConfig[];
  /** The serverless.yml function of each mapping (by name). */
  readonly functionNames: ReadonlyMap<string, string>;
  readonly poller: Pick<Poller, 'mappingStatus' | 'lag' | 'invokeStats' | 'health'>;
  /** Invocations dropped per function. */
  readonly dropped: (functionName: string) => number;
}

/** Reads the state of every mapping. */
export async function consoleStateOf(source: ConsoleStateSource): Promise<ConsoleState> {
  const { poller } = source;
  const [statuses, lags] = await Promise.all([poller.mappingStatus(), poller.lag()]);
  const health = poller.health();
  const stats = poller.invokeStats().mappings;
  const mappings = source.mappings.map((mapping): ConsoleMapping => {
    const status = statuses.find((s) => s.name === mapping.name);
    const lag = lags.find((l) => l.name === mapping.name);
    const verdict = health.mappings?.find((m) => m.mapping === mapping.name);
    const functionName = source.functionNames.get(mapping.name) ?? mapping.functionRef;
    const inFlightOf = (topic: string, broker: string, queueId: number): number => {
      if (status?.mode !== 'PUSH') return 0;
      const held = status.queues.find(
        (q) => q.queue.topic === topic && q.queue.brokerName === broker && q.queue.queueId === queueId,
      );
      return held?.cachedMessageCount ?? 0;
    };
    const queues: ConsoleQueue[] =
      lag !== undefined
        ? lag.queues.map((q) => ({
            broker: q.queue.brokerName,
            topic: q.queue.topic,
            queueId: q.queue.queueId,
            lag: q.lag ?? null,
            inFlight: inFlightOf(q.queue.topic, q.queue.brokerName, q.queue.queueId),
          }))
        : status?.mode === 'PUSH'
          ? status.queues.map((q) => ({
              broker: q.queue.brokerName,
              topic: q.queue.topic,
              queueId: q.queue.queueId,
              lag: null,
              inFlight: q.cachedMessageCount,
            }))
          : [];
    const counters = status?.counters;
    const reason = verdict?.reason ?? (verdict?.problems.length ? verdict.problems.join('; ') : undefined);
    return {
      id: mapping.name,
      functionName,
      topic: mapping.topic,
      group: mapping.consumerGroup,
      mode: mapping.consumeMode === 'POP' ? 'pop' : mapping.orderly ? 'orderly' : 'concurrent',
      filters: mapping.filters !== undefined && mapping.filters.length > 0,
      state: status?.state ?? 'unknown',
      health: {
        healthy: verdict?.healthy ?? health.healthy,
        ...(reason === undefined || reason === '' ? {} : { reason }),
      },
      queues,
      inFlightBatches: status?.inFlightBatches ?? 0,
      retries: counters === undefined ? 0 : Math.max(0, counters.sentBack - counters.deadLettered),
      deadLetters: counters?.deadLettered ?? 0,
      filteredOut: counters?.filteredOut ?? 0,
      invocations: stats.get(mapping.name)?.invokes ?? 0,
      invocationsDropped: source.dropped(functionName),
    };
  });
  return { startedAt: source.startedAt.toISOString(), mappings };
}
