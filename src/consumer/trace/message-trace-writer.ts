/**
 * Writes consume trace records (src/protocol/message-trace.ts) to a trace topic in the background: a
 * bounded in-memory queue, flushed when it holds a trace message's worth of records or after a short
 * interval, one round of at most {@link TRACE_SENDS_IN_FLIGHT} trace messages in flight at a time. Consumption never waits for it and never sees its
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
/**
 * Trace messages sent at once (Apache's trace dispatcher sends from up to 4 threads): with the broker
 * 1 ms away, 4 × 20 records per round trip keep up with 40,000 messages a second.
 */
export const TRACE_SENDS_IN_FLIGHT = 4;
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
  /** When the oldest queued record came (undefined: the queue is empty). */
  #oldestQueuedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The armed flush is an immediate one (a full trace message waits). */
  #timerImmediate = false;
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
      if (this.#queue.length === 0) this.#oldestQueuedAt = this.#now();
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
        this.#sending = this.#sendNext(true).finally(() => {
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
      // An armed flush stays armed: re-arming it at every append would put it off for as long as
      // appends come faster than the timer fires. Only a full trace message brings a later one forward.
      if (waitMs > 0 || this.#timerImmediate) return;
      clearTimeout(this.#timer);
    }
    this.#timerImmediate = waitMs === 0;
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
    const due =
      this.#oldestQueuedAt !== undefined && this.#now() - this.#oldestQueuedAt >= this.#flushIntervalMs;
    this.#sending = this.#sendNext(due).finally(() => {
      this.#sending = undefined;
      this.#schedule();
    });
  }

  /**
   * Sends queued records, a round of up to {@link TRACE_SENDS_IN_FLIGHT} trace messages at a time, while
   * full trace messages wait; with `all`, a partial one too (its records waited the flush interval).
   * Never rejects.
   */
  async #sendNext(all: boolean): Promise<void> {
    try {
      for (;;) {
        const full = Math.floor(this.#queue.length / MAX_TRACE_RECORDS) * MAX_TRACE_RECORDS;
        const count = Math.min(all ? this.#queue.length : full, MAX_TRACE_RECORDS * TRACE_SENDS_IN_FLIGHT);
        if (count === 0) return;
        if (!(await this.#topicAvailable())) return;
        if (!(await this.#sendRound(this.#take(count)))) return;
        if (this.#closed) return;
      }
    } catch (error) {
      // Nothing above should throw; a writer never fails consumption, so anything that does is logged.
      this.#log.error({ topic: this.topic, err: describeError(error) }, 'message trace writer failed');
    }
  }

  /** Sends `records` as trace messages at once; false when a send failed (then the writer pauses). */
  async #sendRound(records: readonly EncodedTraceRecord[]): Promise<boolean> {
    const { messages, oversized } = packTraceMessages(records);
    if (oversized > 0) this.#drop(oversized, 'too-large');
    const results = await Promise.allSettled(
      messages.map((message) => this.#sender.send(this.topic, message)),
    );
    let written = 0;
    let lost = 0;
    let failure: unknown;
    for (const [i, result] of results.entries()) {
      const n = messages[i]?.records ?? 0;
      if (result.status === 'fulfilled') written += n;
      else {
        lost += n;
        failure ??= result.reason;
      }
    }
    if (written > 0) {
      this.#written += written;
      this.#notify((o) => o.written?.(written));
    }
    if (lost === 0) {
      this.#throttled.clear('send-failed');
      return true;
    }
    this.#drop(lost, 'send-failed');
    this.#pauseUntil = this.#now() + this.#sendFailureBackoffMs;
    this.#routeCheckedAt = undefined;
    this.#throttled.warn(
      'send-failed',
      { topic: this.topic, records: lost, err: describeError(failure) },
      'sending message trace records failed: dropped them (consumption goes on)',
    );
    return false;
  }

  /** The first `count` queued records, taken off the queue. */
  #take(count: number): EncodedTraceRecord[] {
    const taken = this.#queue.splice(0, count);
    for (const record of taken) this.#queuedBytes -= record.bytes;
    if (this.#queue.length === 0) this.#oldestQueuedAt = undefined;
    else this.#oldestQueuedAt = this.#now();
    return taken;
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
    this.#oldestQueuedAt = undefined;
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
