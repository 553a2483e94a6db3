/**
 * One invocation as the dev console keeps it (docs/console-api.md): the event exactly as the function
 * received it, its response, duration, the lines the handler wrote during it (bounded), and the outcome
 * of each of its records once the consumer settled the batch.
 */
import type { LogLevel, LogSink } from './invocation-log-capture.js';
import { type RecordBody, recordBodyOfEventRecord } from './record-body.js';

/**
 * What became of a record: `succeeded`; `retried` (failed, sent back: it comes again); `dead-lettered`
 * (handed to `%DLQ%<group>`); `filtered` (matched no filter, never invoked); `pending` (its batch is not
 * settled yet); `failed` (a replay's answer failed it: nothing is sent back for a replay).
 */
export type RecordOutcome = 'succeeded' | 'retried' | 'dead-lettered' | 'filtered' | 'pending' | 'failed';

/**
 * An invocation's outcome: `error` (the invoke failed: the handler threw, timed out, could not load),
 * else by its records: `succeeded` (none failed), `failed` (all did), `partial`.
 */
export type InvocationOutcome = 'succeeded' | 'partial' | 'failed' | 'error';

/** The function's answer: its result, or the error of a failed invoke. */
export type InvocationResponse =
  | { readonly kind: 'result'; readonly value: unknown }
  | { readonly kind: 'error'; readonly errorType: string; readonly errorMessage: string };

/** One captured log line. */
export interface LogLine {
  readonly at: string;
  readonly level: LogLevel;
  readonly text: string;
}

/** The list view of an invocation. */
export interface InvocationSummary {
  readonly id: string;
  readonly mappingId: string;
  readonly functionName: string;
  readonly startedAt: string;
  /** Undefined while it runs. */
  readonly durationMs: number | undefined;
  readonly outcome: InvocationOutcome;
  readonly recordCount: number;
  readonly messageIds: readonly string[];
  readonly replayOf?: string | undefined;
}

/** A record of the event, decoded. */
export interface InvocationRecordView {
  readonly messageId: string;
  readonly keys: readonly string[];
  readonly tags?: string | undefined;
  readonly topic: string;
  readonly broker: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly reconsumeTimes: number;
  readonly body: RecordBody;
  readonly outcome: RecordOutcome;
}

/** The detail view of an invocation. */
export interface InvocationView extends InvocationSummary {
  readonly event: unknown;
  readonly records: readonly InvocationRecordView[];
  readonly response: InvocationResponse | undefined;
  readonly logs: readonly LogLine[];
  readonly logsTruncated: boolean;
}

/** Bounds of an invocation's captured logs. */
export interface LogBounds {
  readonly maxLines: number;
  readonly maxBytes: number;
}

const FAILED_OUTCOMES: ReadonlySet<RecordOutcome> = new Set(['retried', 'dead-lettered', 'failed']);

/**
 * An invocation being recorded or recorded. Its log sink is open until {@link RecordedInvocation.finish}.
 */
export class RecordedInvocation implements LogSink {
  readonly id: string;
  readonly mappingId: string;
  readonly functionName: string;
  readonly startedAtMs: number;
  readonly event: unknown;
  readonly replayOf: string | undefined;
  /** The records of the event, as far as it has them (an edited event may have odd ones). */
  readonly records: readonly Readonly<Record<string, unknown>>[];
  readonly messageIds: readonly string[];
  /** Per record (same index). */
  readonly outcomes: RecordOutcome[];
  readonly #logBounds: LogBounds;
  readonly #logs: LogLine[] = [];
  #logBytes = 0;
  #logsTruncated = false;
  #durationMs: number | undefined;
  #response: InvocationResponse | undefined;
  /** Set once the outcomes of its records are known (its batch settled, or it was a replay). */
  settled = false;

  constructor(fields: {
    id: string;
    mappingId: string;
    functionName: string;
    startedAtMs: number;
    event: unknown;
    replayOf?: string | undefined;
    logBounds: LogBounds;
  }) {
    this.id = fields.id;
    this.mappingId = fields.mappingId;
    this.functionName = fields.functionName;
    this.startedAtMs = fields.startedAtMs;
    this.event = fields.event;
    this.replayOf = fields.replayOf;
    this.#logBounds = fields.logBounds;
    this.records = recordsOf(fields.event);
    this.messageIds = this.records.map((record) => String(record.messageId ?? ''));
    this.outcomes = this.records.map(() => 'pending');
  }

  get open(): boolean {
    return this.#durationMs === undefined;
  }

  get finished(): boolean {
    return this.#durationMs !== undefined;
  }

  get response(): InvocationResponse | undefined {
    return this.#response;
  }

  /** Every key of every record (the `key` filter). */
  hasKey(key: string): boolean {
    return this.records.some((record) => Array.isArray(record.keys) && record.keys.includes(key));
  }

  appendLog(level: LogLevel, text: string): void {
    if (this.#logsTruncated) return;
    const bytes = Buffer.byteLength(text);
    if (this.#logs.length >= this.#logBounds.maxLines || this.#logBytes + bytes > this.#logBounds.maxBytes) {
      this.#logsTruncated = true;
      return;
    }
    this.#logBytes += bytes;
    this.#logs.push({ at: new Date().toISOString(), level, text });
  }

  finish(response: InvocationResponse, durationMs: number): void {
    this.#response = response;
    this.#durationMs = durationMs;
  }

  get outcome(): InvocationOutcome {
    if (this.#response?.kind === 'error') return 'error';
    const failed = this.outcomes.filter((outcome) => FAILED_OUTCOMES.has(outcome)).length;
    if (failed === 0) return 'succeeded';
    return failed === this.outcomes.length ? 'failed' : 'partial';
  }

  summary(): InvocationSummary {
    return {
      id: this.id,
      mappingId: this.mappingId,
      functionName: this.functionName,
      startedAt: new Date(this.startedAtMs).toISOString(),
      durationMs: this.#durationMs,
      outcome: this.outcome,
      recordCount: this.records.length,
      messageIds: this.messageIds,
      ...(this.replayOf === undefined ? {} : { replayOf: this.replayOf }),
    };
  }

  view(): InvocationView {
    return {
      ...this.summary(),
      event: this.event,
      records: this.records.map((record, index) => recordView(record, this.outcomes[index] ?? 'pending')),
      response: this.#response,
      logs: [...this.#logs],
      logsTruncated: this.#logsTruncated,
    };
  }
}

/** The records of an event (`Records`, objects only); none when it has no such array. */
function recordsOf(event: unknown): Readonly<Record<string, unknown>>[] {
  if (typeof event !== 'object' || event === null) return [];
  const records = (event as { Records?: unknown }).Records;
  if (!Array.isArray(records)) return [];
  return records.map((record) =>
    typeof record === 'object' && record !== null ? (record as Record<string, unknown>) : {},
  );
}

function recordView(record: Readonly<Record<string, unknown>>, outcome: RecordOutcome): InvocationRecordView {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const number = (value: unknown): number => (typeof value === 'number' ? value : -1);
  const tags = record.tags;
  return {
    messageId: text(record.messageId),
    keys: Array.isArray(record.keys) ? record.keys.filter((key) => typeof key === 'string') : [],
    ...(typeof tags === 'string' ? { tags } : {}),
    topic: text(record.topic),
    broker: text(record.brokerName),
    queueId: number(record.queueId),
    queueOffset: number(record.queueOffset),
    reconsumeTimes: number(record.reconsumeTimes),
    body: recordBodyOfEventRecord(record.body, record.bodyEncoding),
    outcome,
  };
}
