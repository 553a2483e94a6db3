/**
 * Writes consume trace records (src/protocol/message-trace.ts) to a trace topic in the background: a
 * bounded in-memory queue, flushed when it holds a trace message's worth of records or after a short
 * interval, one trace message in flight at a time. Consumption never waits for it and never sees its
 * failures: a full queue, a trace topic that does not exist and a failed send each drop records, count
 * them (see {@link MessageTraceObserver}) and log one rate-limited warning. See docs/message-trace.md.
 */
import {
  type EncodedTraceRecord,
  MAX_TRACE_RECORDS,
  packTraceMessages,
  type TraceMessage,
} from '../../protocol/message-trace.js';
import { describeError } from '../../util/describe-error.js';
import { componentLogger, type Logger } from '../../util/logger.js';
import { settlesWithin } from '../../util/settles-within.js';
import { ThrottledLog } from '../../util/throttled-log.js';

/** Records queued at most, per writer; past it new records are dropped (`queue-full`). */
export const DEFAULT_TRACE_QUEUE_RECORDS = 10_000;
/** Bytes of record text queued at most, per writer; past it new records are dropped (`queue-full`). */
export const DEFAULT_TRACE_QUEUE_BYTES = 8 * 1024 * 1024;
/** A partial trace message waits at most this long before it is sent. */
export const DEFAULT_TRACE_FLUSH_INTERVAL_MS = 1_000;
/** After the trace topic was found missing, records are dropped this long before its route is asked again. */
export const DEFAULT_TRACE_UNAVAILABLE_BACKOFF_MS = 30_000;
/** After a failed send, the next one waits this long. */
export const DEFAULT_TRACE_SEND_FAILURE_BACKOFF_MS = 1_000;
/** A known route is asked again after this long (a topic deleted meanwhile is noticed). */
const ROUTE_RECHECK_MS = 60_000;

/** Why records were dropped. */
export type TraceDropReason = 'queue-full' | 'topic-unavailable' | 'send-failed' | 'too-large' | 'closed';

/** Receives what a writer did with its records; metrics implement it. A throwing observer is ignored. */
export interface MessageTraceObserver {
  written?(records: number): void;
  dropped?(records: number, reason: TraceDropReason): void;
}

/** Where trace messages go: the client layer implements it over the producer (trace-topic-sender.ts). */
export interface TraceTopicSender {
  /** True when the topic has a route with a writable queue; false when it does not exist. Other errors throw. */
  hasRoute(topic: string): Promise<boolean>;
  send(topic: string, message: TraceMessage): Promise<void>;
}

/** Options of {@link MessageTraceWriter}. */
export interface MessageTraceWriterOptions {
  readonly topic: string;
  readonly sender: TraceTopicSender;
  /** @default 10,000 */
  readonly maxQueuedRecords?: number | undefined;
  /** @default 8 MiB */
  readonly maxQueuedBytes?: number | undefined;
  /** @default 1,000 */
  readonly flushIntervalMs?: number | undefined;
  /** @default 30,000 */
  readonly unavailableBackoffMs?: number | undefined;
  /** @default 1,000 */
  readonly sendFailureBackoffMs?: number | undefined;
  readonly observer?: MessageTraceObserver | undefined;
  readonly logger?: Logger | undefined;
  readonly now?: (() => number) | undefined;
}

/** A writer's totals since it started. */
export interface MessageTraceWriterStats {
  readonly written: number;
  readonly dropped: Readonly<Record<TraceDropReason, number>>;
  readonly queued: number;
}

/**
 * One trace topic's writer.
 */
export class MessageTraceWriter {
  readonly topic: string;
  readonly #sender: TraceTopicSender;
  readonly #maxRecords: number;
  readonly #maxBytes: number;
  readonly #flushIntervalMs: number;
  readonly #unavailableBackoffMs: number;
  readonly #sendFailureBackoffMs: number;
  readonly #observer: MessageTraceObserver | undefined;
  readonly #log: Logger;
  readonly #throttled: ThrottledLog;
  readonly #now: () => number;
  #queue: EncodedTraceRecord[] = [];
  #queuedBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  /** Until when records are dropped because the topic is missing (0: not). */
  #unavailableUntil = 0;
  /** Until when sends wait after a failure (0: not). */
  #pauseUntil = 0;
  #routeCheckedAt: number | undefined;
  #closed = false;
  #written = 0;
  readonly #dropped: Record<TraceDropReason, number> = {
    'queue-full': 0,
    'topic-unavailable': 0,
    'send-failed': 0,
    'too-large': 0,
    closed: 0,
  };

  constructor(options: MessageTraceWriterOptions) {
    this.topic = options.topic;
    this.#sender = options.sender;
    this.#maxRecords = options.maxQueuedRecords ?? DEFAULT_TRACE_QUEUE_RECORDS;
    this.#maxBytes = options.maxQueuedBytes ?? DEFAULT_TRACE_QUEUE_BYTES;
    this.#flushIntervalMs = options.flushIntervalMs ?? DEFAULT_TRACE_FLUSH_INTERVAL_MS;
    this.#unavailableBackoffMs = options.unavailableBackoffMs ?? DEFAULT_TRACE_UNAVAILABLE_BACKOFF_MS;
    this.#sendFailureBackoffMs = options.sendFailureBackoffMs ?? DEFAULT_TRACE_SEND_FAILURE_BACKOFF_MS;
    this.#observer = options.observer;
    this.#log = componentLogger('consumer.message-trace', options.logger);
    this.#throttled = new ThrottledLog(this.#log);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Queues records (in order) for the trace topic. Never throws and never waits: records that do not fit
   * the queue, or come while the topic is missing or after {@link close}, are dropped and counted.
   */
  append(records: readonly EncodedTraceRecord[]): void {
    if (records.length === 0) return;
    if (this.#closed) {
      this.#drop(records.length, 'closed');
      return;
    }
    if (this.#unavailableUntil > this.#now()) {
      this.#drop(records.length, 'topic-unavailable');
      return;
    }
    let full = 0;
    for (const record of records) {
      if (this.#queue.length >= this.#maxRecords || this.#queuedBytes + record.bytes > this.#maxBytes) {
        full++;
        continue;
      }
      this.#queue.push(record);
      this.#queuedBytes += record.bytes;
    }
    if (full > 0) {
      this.#drop(full, 'queue-full');
      this.#throttled.warn(
        'queue-full',
        { topic: this.topic, maxQueuedRecords: this.#maxRecords, maxQueuedBytes: this.#maxBytes },
        'message trace queue is full: dropping trace records (the trace topic is slower than consumption)',
      );
    }
    this.#schedule();
  }

  /** Totals since the writer was made. */
  stats(): MessageTraceWriterStats {
    return { written: this.#written, dropped: { ...this.#dropped }, queued: this.#queue.length };
  }

  /**
   * Sends what is queued, waiting at most `timeoutMs` in all; what is still queued then is dropped
   * (`closed`). Later appends are dropped. Idempotent.
   */
  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const deadline = this.#now() + Math.max(0, timeoutMs);
    while (this.#queue.length > 0 || this.#sending !== undefined) {
      const left = deadline - this.#now();
      if (left <= 0) break;
      if (this.#sending === undefined) {
        if (this.#unavailableUntil > this.#now() || this.#pauseUntil > this.#now()) break;
        this.#sending = this.#sendNext().finally(() => {
          this.#sending = undefined;
        });
      }
      if (!(await settlesWithin(this.#sending, left))) break;
    }
    if (this.#queue.length > 0) this.#drop(this.#takeAll().length, 'closed');
    this.#throttled.flush();
  }

  /** Arms the flush: at once when a trace message's worth is queued, else after the interval. */
  #schedule(): void {
    if (this.#closed || this.#sending !== undefined || this.#queue.length === 0) return;
    const waitMs =
      this.#queue.length >= MAX_TRACE_RECORDS
        ? Math.max(0, this.#pauseUntil - this.#now())
        : Math.max(this.#flushIntervalMs, this.#pauseUntil - this.#now());
    if (this.#timer !== undefined) {
      if (waitMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => this.#flush(), waitMs);
    this.#timer.unref();
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#closed || this.#sending !== undefined) return;
    if (this.#pauseUntil > this.#now()) {
      this.#schedule();
      return;
    }
    this.#sending = this.#sendNext().finally(() => {
      this.#sending = undefined;
      this.#schedule();
    });
  }

  /** Sends the queue's first trace message's worth of records; never rejects. */
  async #sendNext(): Promise<void> {
    try {
      if (!(await this.#topicAvailable())) return;
      const batch = this.#queue.splice(0, MAX_TRACE_RECORDS);
      for (const record of batch) this.#queuedBytes -= record.bytes;
      const { messages, oversized } = packTraceMessages(batch);
      if (oversized > 0) this.#drop(oversized, 'too-large');
      for (const [i, message] of messages.entries()) {
        try {
          await this.#sender.send(this.topic, message);
          this.#written += message.records;
          this.#notify((o) => o.written?.(message.records));
          this.#throttled.clear('send-failed');
        } catch (error) {
          const lost = messages.slice(i).reduce((n, m) => n + m.records, 0);
          this.#drop(lost, 'send-failed');
          this.#pauseUntil = this.#now() + this.#sendFailureBackoffMs;
          this.#routeCheckedAt = undefined;
          this.#throttled.warn(
            'send-failed',
            { topic: this.topic, records: lost, err: describeError(error) },
            'sending message trace records failed: dropped them (consumption goes on)',
          );
          return;
        }
      }
    } catch (error) {
      // Nothing above should throw; a writer never fails consumption, so anything that does is logged.
      this.#log.error({ topic: this.topic, err: describeError(error) }, 'message trace writer failed');
    }
  }

  /** Asks the topic's route when unknown or old; when missing, drops the queue and backs off. */
  async #topicAvailable(): Promise<boolean> {
    const now = this.#now();
    if (this.#routeCheckedAt !== undefined && now - this.#routeCheckedAt < ROUTE_RECHECK_MS) return true;
    let available: boolean;
    try {
      available = await this.#sender.hasRoute(this.topic);
    } catch (error) {
      // The name server is unreachable: the send itself would fail too; treat it as a failed send.
      const lost = this.#takeAll().length;
      this.#drop(lost, 'send-failed');
      this.#pauseUntil = this.#now() + this.#sendFailureBackoffMs;
      this.#throttled.warn(
        'route-failed',
        { topic: this.topic, records: lost, err: describeError(error) },
        'looking up the message trace topic failed: dropped trace records (consumption goes on)',
      );
      return false;
    }
    if (available) {
      this.#routeCheckedAt = this.#now();
      this.#unavailableUntil = 0;
      this.#throttled.clear('topic-unavailable');
      return true;
    }
    const lost = this.#takeAll().length;
    this.#drop(lost, 'topic-unavailable');
    this.#unavailableUntil = this.#now() + this.#unavailableBackoffMs;
    this.#throttled.warn(
      'topic-unavailable',
      { topic: this.topic, records: lost, retryInMs: this.#unavailableBackoffMs },
      'message trace topic does not exist (a broker writes RMQ_SYS_TRACE_TOPIC with traceTopicEnable=true): dropping trace records',
    );
    return false;
  }

  #takeAll(): EncodedTraceRecord[] {
    const all = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    return all;
  }

  #drop(records: number, reason: TraceDropReason): void {
    if (records <= 0) return;
    this.#dropped[reason] += records;
    this.#notify((o) => o.dropped?.(records, reason));
  }

  #notify(call: (observer: MessageTraceObserver) => void): void {
    if (this.#observer === undefined) return;
    try {
      call(this.#observer);
    } catch (error) {
      this.#log.warn({ err: describeError(error) }, 'message trace observer threw');
    }
  }
}
