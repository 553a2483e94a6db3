/**
 * The dev console's memory of invocations (docs/console-api.md): the newest invocations per function
 * (older ones dropped and counted), each message's way (the invocations that carried it, its retries,
 * where it ended), and per mapping the messages its filters dropped. Every collection is bounded.
 */

import { recordBodyOf } from './record-body.js';
import type { InvocationRecordView, LogBounds, RecordOutcome } from './recorded-invocation.js';
import { type InvocationSummary, RecordedInvocation } from './recorded-invocation.js';

/** Invocations kept per function. */
export const MAX_INVOCATIONS_PER_FUNCTION = 500;
/** Messages whose way is remembered (the oldest forgotten first). */
export const MAX_TRACKED_MESSAGES = 5000;
/** Filtered messages kept per mapping. */
export const MAX_FILTERED_PER_MAPPING = 500;
/** Log lines and bytes kept per invocation (more is dropped, and the invocation says so). */
export const INVOCATION_LOG_BOUNDS: LogBounds = { maxLines: 200, maxBytes: 64 * 1024 };

/** Where a message ended, as far as the console saw it. */
export type MessageEnd = 'succeeded' | 'dead-lettered' | 'filtered' | 'in-flight' | 'unknown';

/** A message a mapping's filters dropped: a record as an invocation shows it, when and for which mapping. */
export interface FilteredMessage extends Omit<InvocationRecordView, 'outcome'> {
  readonly mappingId: string;
  readonly at: string;
}

/** The filter of {@link InvocationRecorder.list}. */
export interface InvocationQuery {
  readonly mappingId?: string | undefined;
  /** An invocation outcome or a record outcome. */
  readonly outcome?: string | undefined;
  readonly messageId?: string | undefined;
  readonly key?: string | undefined;
  readonly limit: number;
}

/** The way of one message. */
export interface MessageWay {
  readonly messageId: string;
  readonly invocations: readonly InvocationSummary[];
  readonly retries: number;
  readonly endedAs: MessageEnd;
}

interface MessageTrack {
  readonly invocationIds: string[];
  retries: number;
  endedAs: MessageEnd;
}

/** Bounds of a recorder (tests shrink them). */
export interface RecorderBounds {
  readonly invocationsPerFunction: number;
  readonly trackedMessages: number;
  readonly filteredPerMapping: number;
  readonly log: LogBounds;
}

const DEFAULT_BOUNDS: RecorderBounds = {
  invocationsPerFunction: MAX_INVOCATIONS_PER_FUNCTION,
  trackedMessages: MAX_TRACKED_MESSAGES,
  filteredPerMapping: MAX_FILTERED_PER_MAPPING,
  log: INVOCATION_LOG_BOUNDS,
};

/**
 * Records invocations and what became of their records; tells listeners of each settled invocation.
 */
export class InvocationRecorder {
  readonly #bounds: RecorderBounds;
  readonly #nowMs: () => number;
  readonly #byFunction = new Map<string, RecordedInvocation[]>();
  readonly #byId = new Map<string, RecordedInvocation>();
  readonly #dropped = new Map<string, number>();
  readonly #messages = new Map<string, MessageTrack>();
  readonly #filtered = new Map<string, FilteredMessage[]>();
  readonly #listeners = new Set<(summary: InvocationSummary) => void>();
  #next = 1;

  constructor(options: { bounds?: Partial<RecorderBounds>; nowMs?: () => number } = {}) {
    this.#bounds = { ...DEFAULT_BOUNDS, ...options.bounds };
    this.#nowMs = options.nowMs ?? Date.now;
  }

  /** Starts recording an invocation of `functionName` for `mappingId` with `event`. */
  begin(fields: {
    mappingId: string;
    functionName: string;
    event: unknown;
    replayOf?: string | undefined;
  }): RecordedInvocation {
    const invocation = new RecordedInvocation({
      ...fields,
      id: `i${this.#next++}`,
      startedAtMs: this.#nowMs(),
      logBounds: this.#bounds.log,
    });
    const list = this.#byFunction.get(fields.functionName) ?? [];
    this.#byFunction.set(fields.functionName, list);
    list.push(invocation);
    this.#byId.set(invocation.id, invocation);
    while (list.length > this.#bounds.invocationsPerFunction) {
      const old = list.shift() as RecordedInvocation;
      this.#byId.delete(old.id);
      this.#dropped.set(fields.functionName, (this.#dropped.get(fields.functionName) ?? 0) + 1);
    }
    if (fields.replayOf === undefined) {
      for (const messageId of new Set(invocation.messageIds)) {
        const track = this.#track(messageId);
        track.invocationIds.push(invocation.id);
        if (track.invocationIds.length > this.#bounds.invocationsPerFunction) track.invocationIds.shift();
        track.endedAs = 'in-flight';
      }
    }
    return invocation;
  }

  /**
   * Settles invocations of one batch: each record's outcome is `outcomeOf` its message id (undefined:
   * left as it is); then each invocation is told to the listeners.
   */
  settle(
    invocations: readonly RecordedInvocation[],
    outcomeOf: (messageId: string) => RecordOutcome | undefined,
  ): void {
    const counted = new Set<string>();
    for (const invocation of invocations) {
      invocation.messageIds.forEach((messageId, index) => {
        const outcome = outcomeOf(messageId);
        if (outcome === undefined) return;
        invocation.outcomes[index] = outcome;
        if (invocation.replayOf !== undefined || counted.has(messageId)) return;
        counted.add(messageId);
        this.#settleMessage(messageId, outcome);
      });
    }
    for (const invocation of invocations) {
      invocation.settled = true;
      this.#tell(invocation);
    }
  }

  /** Messages that ended somewhere without an invocation (dead-lettered by the listener, filtered). */
  ended(messageIds: readonly string[], outcome: RecordOutcome): void {
    for (const messageId of messageIds) this.#settleMessage(messageId, outcome);
  }

  /**
   * The consumer handed these messages to the DLQ: their last invocation's record says so (it said
   * `retried` when the batch settled), and the listeners hear of that invocation again.
   */
  deadLettered(messageIds: readonly string[]): void {
    const changed = new Set<RecordedInvocation>();
    for (const messageId of messageIds) {
      const track = this.#messages.get(messageId);
      if (track !== undefined && track.endedAs === 'in-flight' && track.retries > 0) track.retries--;
      this.#settleMessage(messageId, 'dead-lettered');
      const lastId = track?.invocationIds.at(-1);
      const last = lastId === undefined ? undefined : this.#byId.get(lastId);
      if (last === undefined) continue;
      last.messageIds.forEach((id, index) => {
        if (id === messageId && last.outcomes[index] !== 'dead-lettered') {
          last.outcomes[index] = 'dead-lettered';
          changed.add(last);
        }
      });
    }
    for (const invocation of changed) this.#tell(invocation);
  }

  /** Records messages a mapping's filters dropped. */
  filtered(message: Omit<FilteredMessage, 'at' | 'body'> & { readonly body: Uint8Array }): void {
    const list = this.#filtered.get(message.mappingId) ?? [];
    this.#filtered.set(message.mappingId, list);
    list.push({ ...message, at: new Date(this.#nowMs()).toISOString(), body: recordBodyOf(message.body) });
    if (list.length > this.#bounds.filteredPerMapping) list.shift();
    this.#settleMessage(message.messageId, 'filtered');
  }

  /** The filtered messages of a mapping (or all), newest first. */
  filteredMessages(mappingId: string | undefined, limit: number): FilteredMessage[] {
    const lists =
      mappingId === undefined ? [...this.#filtered.values()] : [this.#filtered.get(mappingId) ?? []];
    return lists
      .flat()
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, limit);
  }

  get(id: string): RecordedInvocation | undefined {
    return this.#byId.get(id);
  }

  /** Invocations dropped from a function's list so far (over the bound). */
  dropped(functionName: string): number {
    return this.#dropped.get(functionName) ?? 0;
  }

  /** Settled invocations matching `query`, newest first (one still running or unsettled is left out). */
  list(query: InvocationQuery): InvocationSummary[] {
    const matches: RecordedInvocation[] = [];
    for (const invocation of this.#byId.values()) {
      if (!invocation.settled) continue;
      if (query.mappingId !== undefined && invocation.mappingId !== query.mappingId) continue;
      if (query.messageId !== undefined && !invocation.messageIds.includes(query.messageId)) continue;
      if (query.key !== undefined && !invocation.hasKey(query.key)) continue;
      if (
        query.outcome !== undefined &&
        invocation.outcome !== query.outcome &&
        !invocation.outcomes.includes(query.outcome as RecordOutcome)
      ) {
        continue;
      }
      matches.push(invocation);
    }
    return matches
      .sort((a, b) => b.startedAtMs - a.startedAtMs || idNumber(b.id) - idNumber(a.id))
      .slice(0, query.limit)
      .map((invocation) => invocation.summary());
  }

  /** The way of a message: its invocations (oldest first), retries and where it ended. */
  messageWay(messageId: string): MessageWay {
    const track = this.#messages.get(messageId);
    if (track === undefined) return { messageId, invocations: [], retries: 0, endedAs: 'unknown' };
    const invocations = track.invocationIds
      .map((id) => this.#byId.get(id))
      .filter((invocation) => invocation !== undefined)
      .map((invocation) => invocation.summary());
    return { messageId, invocations, retries: track.retries, endedAs: track.endedAs };
  }

  /** Subscribes to settled invocations; returns the unsubscribe function. */
  onInvocation(listener: (summary: InvocationSummary) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners of an invocation that is not part of a batch (a replay). */
  told(invocation: RecordedInvocation): void {
    invocation.settled = true;
    this.#tell(invocation);
  }

  #tell(invocation: RecordedInvocation): void {
    const summary = invocation.summary();
    for (const listener of this.#listeners) {
      try {
        listener(summary);
      } catch {
        // A listener (an SSE stream that closed) must not break recording.
      }
    }
  }

  #track(messageId: string): MessageTrack {
    let track = this.#messages.get(messageId);
    if (track === undefined) {
      track = { invocationIds: [], retries: 0, endedAs: 'unknown' };
    } else {
      this.#messages.delete(messageId); // re-inserted: the newest, forgotten last
    }
    this.#messages.set(messageId, track);
    while (this.#messages.size > this.#bounds.trackedMessages) {
      const oldest = this.#messages.keys().next().value as string;
      this.#messages.delete(oldest);
    }
    return track;
  }

  #settleMessage(messageId: string, outcome: RecordOutcome): void {
    const track = this.#track(messageId);
    switch (outcome) {
      case 'retried':
        track.retries++;
        track.endedAs = 'in-flight';
        break;
      case 'succeeded':
      case 'dead-lettered':
      case 'filtered':
        track.endedAs = outcome;
        break;
      default:
        track.endedAs = 'in-flight';
    }
  }
}

function idNumber(id: string): number {
  return Number(id.slice(1));
}
