/**
 * The MessageListener of a mapping whose target is a function: serialize the batch into events that fit
 * the function's payload limit, invoke the function (bisecting failed batches when asked), map its
 * responses to per-message results, and dead-letter what can never be delivered.
 */

import type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  FinalFailureCause,
  MessageListener,
} from '../consumer/message-listener.js';
import { RocketMQError } from '../errors.js';
import type { MessageFilter } from '../filter/message-filter.js';
import type { TraceCarrier } from '../handler/trace-context.js';
import type { RocketMQEvent } from '../handler/types.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { markStartupPhase } from '../util/startup-timeline.js';
import { BatchOutcome, type DeadLetterDecision } from './batch-outcome.js';
import { type RecordLayout, recordFields, serializeLayouts } from './event-builder.js';
import type { FailureDestination } from './failure-destination.js';
import { buildFailureRecord, type FailureCondition } from './failure-record.js';
import type { InvokeObserver, InvokeResultKind } from './invoke-observer.js';
import { type BatchTrace, chunkTraceContext, ListenerTracing } from './invoke-tracing.js';
import type { InvokeFailureKind, InvokeOutcome, InvokeRequest, Invoker } from './invoker.js';
import { parsedEvent } from './parsed-event.js';
import { LAMBDA_MAX_PAYLOAD_BYTES, planLayouts } from './payload-splitter.js';
import { type FunctionResultNotice, mapFunctionResult } from './result-mapper.js';

/** How many message ids a failed-batch log line quotes at most. */
const MAX_LOGGED_MESSAGE_IDS = 10;
/** How many messages one failure record lists at most (SQS and SNS messages are capped in size). */
const MAX_MESSAGES_PER_FAILURE_RECORD = 500;
/** Invoke failures that say something about the batch's content: worth bisecting. */
const BISECT_KINDS: ReadonlySet<InvokeFailureKind> = new Set([
  'function-error',
  'timeout',
  'malformed-response',
]);

/** A batch with the layout of each record planned for an invoke (by batch index). */
interface PlannedBatch {
  readonly messages: readonly ConsumedMessage[];
  readonly layouts: readonly (RecordLayout | undefined)[];
  /** The batch's spans; undefined while no OpenTelemetry SDK is registered (invoke-tracing.ts). */
  readonly trace: BatchTrace | undefined;
}

/**
 * The event of one invoke, in the two forms an invoker may take: the payload bytes (serialized on first
 * read, once) and the parsed event object ({@link parsedEvent}, fresh on every call). An invoker that
 * runs the handler in-process takes the object and never makes the bytes; one that sends them reads the
 * payload. Either way the event is the same one, planned within the payload limit by planLayouts.
 */
class ChunkEvent {
  readonly #consumerGroup: string;
  readonly #layouts: readonly RecordLayout[];
  #payload: Buffer | undefined;

  constructor(consumerGroup: string, layouts: readonly RecordLayout[]) {
    this.#consumerGroup = consumerGroup;
    this.#layouts = layouts;
  }

  get payload(): Buffer {
    this.#payload ??= serializeLayouts(this.#consumerGroup, this.#layouts);
    return this.#payload;
  }

  parsed(): RocketMQEvent {
    return parsedEvent(this.#consumerGroup, this.#layouts);
  }

  request(
    functionRef: string,
    signal: AbortSignal,
    onThrottle: (() => void) | undefined,
    traceContext: TraceCarrier | undefined,
  ): InvokeRequest {
    return new ChunkRequest(this, functionRef, signal, onThrottle, traceContext);
  }
}

/**
 * The request of one invoke of a {@link ChunkEvent}. A class, not an object literal with a `payload`
 * getter: V8 gives every such literal a map of its own (the getter's closure is part of it), made in the
 * old generation, which then keeps the young batch the closure reaches alive through scavenges until
 * the next full collection (measured: ~3 MB promoted per scavenge on the function path).
 */
class ChunkRequest implements InvokeRequest {
  readonly functionRef: string;
  readonly signal: AbortSignal;
  readonly onThrottle: (() => void) | undefined;
  readonly traceContext: TraceCarrier | undefined;
  readonly event: () => RocketMQEvent;
  readonly #event: ChunkEvent;

  constructor(
    event: ChunkEvent,
    functionRef: string,
    signal: AbortSignal,
    onThrottle: (() => void) | undefined,
    traceContext: TraceCarrier | undefined,
  ) {
    this.#event = event;
    this.functionRef = functionRef;
    this.signal = signal;
    this.onThrottle = onThrottle;
    this.traceContext = traceContext;
    this.event = () => event.parsed();
  }

  get payload(): Buffer {
    return this.#event.payload;
  }
}

/**
 * Options of {@link FunctionMessageListener}.
 */
export interface FunctionMessageListenerOptions {
  invoker: Invoker;
  /** The mapping's `function`. */
  functionRef: string;
  /** The mapping's consumer group, put into every event. */
  consumerGroup: string;
  /** The parent logger (e.g. one per mapping); lines carry `component: 'invoke.function-listener'`. */
  logger?: Logger | undefined;
  /** The largest event one invoke may carry. @default LAMBDA_MAX_PAYLOAD_BYTES (6 MiB) */
  maxPayloadBytes?: number | undefined;
  /**
   * When an invoke of several messages fails as a whole (function error, timeout, malformed response),
   * invoke each half again, down to single messages, so that only the failing messages count a retry.
   * @default false
   */
  bisectBatchOnError?: boolean | undefined;
  /** Messages stored longer ago than this go straight to the DLQ, uninvoked; -1 turns it off. @default -1 */
  maxRecordAgeSeconds?: number | undefined;
  /** Receives a record of every message dead-lettered here or failed for good (`notifyFinalFailure`). */
  failureDestination?: FailureDestination | undefined;
  /** The function's ARN in failure records. @default functionRef */
  functionArn?: string | undefined;
  /** The clock of `maxRecordAgeSeconds`. @default Date.now */
  nowMs?: (() => number) | undefined;
  /** Told how every invoke ended and of every throttle (metrics). */
  observer?: InvokeObserver | undefined;
  /**
   * The mapping's filter criteria (`filters`): a message that matches no pattern is not invoked and
   * succeeds (its offset moves), counted in the result's `filteredOut`. @default none: every message
   */
  filter?: MessageFilter | undefined;
  /** How the mapping's group shares messages: the spans' `messaging.rocketmq.consumption_model`. */
  messageModel?: 'CLUSTERING' | 'BROADCASTING' | undefined;
}

/**
 * Counters of a {@link FunctionMessageListener}, for metrics.
 */
export interface FunctionListenerStats {
  readonly invokes: number;
  /** Batches that took more than one invoke because of the payload limit. */
  readonly splitBatches: number;
  /** Failed invokes that were split in halves. */
  readonly bisections: number;
  /**
   * Messages this listener sent to the DLQ itself (too old, too large, undecodable); a message the
   * function fails at the retry limit is dead-lettered by the consumer and counted there.
   */
  readonly deadLettered: number;
}

/**
 * Consumes each batch by invoking one function with it (docs/architecture.md, "Listener, invoker, result"):
 * - messages the mapping's `filter` drops (they match no pattern, matched against the record the function
 *   would receive: recordFields in event-builder.ts) are neither invoked nor dead-lettered: they succeed, and the result
 *   counts them (`filteredOut`); a batch filtered out whole takes no invoke;
 * - messages older than `maxRecordAgeSeconds`, and messages whose event alone is over `maxPayloadBytes`
 *   with the body as base64 and, for a UTF-8 body, as text (or that the invoke service refuses as too
 *   large even alone), are not invoked: they are dead-lettered (`deadLetter` of the result) with a
 *   reason, and reported to the failure destination;
 * - the rest is invoked in sub-batches, in order, one after another, each within `maxPayloadBytes` (a
 *   message that fits only with its body as UTF-8 text alone, `bodyEncoding: "utf8"`); in
 *   orderly mode the first failure stops the batch (later messages fail without an invoke);
 * - with `bisectBatchOnError`, a sub-batch that fails as a whole is invoked again in halves.
 * The results are merged into one ConsumeResult with indexes of the whole batch. Logs one structured line
 * per batch that did not fully succeed. An `InvokeError` from the invoker propagates (when `fatal`, the
 * runtime stops the mapping).
 *
 * @example
 * ```ts
 * const listener = new FunctionMessageListener({
 *   invoker: new LambdaInvoker({ region: 'eu-west-1' }),
 *   functionRef: 'orders-handler',
 *   consumerGroup: 'orders-consumer',
 *   bisectBatchOnError: true,
 * });
 * const result = await listener.consume(batch, { consumerGroup: 'orders-consumer', orderly: false, signal });
 * ```
 */
export class FunctionMessageListener implements MessageListener {
  readonly #invoker: Invoker;
  readonly #functionRef: string;
  readonly #consumerGroup: string;
  readonly #log: Logger;
  readonly #maxPayloadBytes: number;
  readonly #bisect: boolean;
  readonly #maxRecordAgeMs: number;
  readonly #destination: FailureDestination | undefined;
  readonly #functionArn: string;
  readonly #nowMs: () => number;
  readonly #observer: InvokeObserver | undefined;
  readonly #filter: MessageFilter | undefined;
  readonly #tracing: ListenerTracing;
  #invokes = 0;
  #splitBatches = 0;
  #bisections = 0;
  #deadLettered = 0;

  constructor(options: FunctionMessageListenerOptions) {
    this.#invoker = options.invoker;
    this.#functionRef = options.functionRef;
    this.#consumerGroup = options.consumerGroup;
    this.#log = componentLogger('invoke.function-listener', options.logger);
    this.#maxPayloadBytes = options.maxPayloadBytes ?? LAMBDA_MAX_PAYLOAD_BYTES;
    this.#bisect = options.bisectBatchOnError ?? false;
    const maxRecordAgeSeconds = options.maxRecordAgeSeconds ?? -1;
    this.#maxRecordAgeMs = maxRecordAgeSeconds < 0 ? -1 : maxRecordAgeSeconds * 1000;
    this.#destination = options.failureDestination;
    this.#functionArn = options.functionArn ?? options.functionRef;
    this.#nowMs = options.nowMs ?? Date.now;
    this.#observer = options.observer;
    this.#filter = options.filter;
    this.#tracing = new ListenerTracing({
      consumerGroup: this.#consumerGroup,
      functionRef: this.#functionRef,
      messageModel: options.messageModel,
    });
    if (!(this.#maxPayloadBytes > 0))
      throw new RocketMQError(`maxPayloadBytes must be positive, got ${this.#maxPayloadBytes}`);
  }

  /** Counters since construction. */
  stats(): FunctionListenerStats {
    return {
      invokes: this.#invokes,
      splitBatches: this.#splitBatches,
      bisections: this.#bisections,
      deadLettered: this.#deadLettered,
    };
  }

  async consume(messages: readonly ConsumedMessage[], context: ConsumeContext): Promise<ConsumeResult> {
    const outcome = new BatchOutcome(messages.length, context.orderly);
    const candidates: number[] = [];
    const nowMs = this.#nowMs();
    const filter = this.#filter;
    let filteredOut = 0;
    for (let index = 0; index < messages.length; index++) {
      const consumed = messages[index] as ConsumedMessage;
      if (filter !== undefined && !filter.matches(recordFields(consumed), consumed.message.body)) {
        filteredOut++;
        continue;
      }
      const storeTimestamp = consumed.message.storeTimestamp;
      if (this.#maxRecordAgeMs >= 0 && nowMs - storeTimestamp > this.#maxRecordAgeMs) {
        outcome.deadLetter({
          index,
          condition: 'RecordAgeExceeded',
          reason: `record too old: stored more than ${this.#maxRecordAgeMs / 1000} s ago (maxRecordAgeSeconds)`,
        });
      } else {
        candidates.push(index);
      }
    }
    // Each record is measured once: the plan's layouts serve every invoke, bisected halves included.
    const plan = planLayouts(this.#consumerGroup, messages, candidates, this.#maxPayloadBytes);
    const layouts = plan.layouts as (RecordLayout | undefined)[];
    // Started once the records (and their trace contexts) are laid out; undefined without an SDK.
    const trace = this.#tracing.startBatch(messages, layouts);
    try {
      const batch: PlannedBatch = { messages, layouts, trace };
      for (const { index, reason } of plan.oversize) {
        outcome.deadLetter({ index, condition: 'PayloadSizeExceeded', reason });
      }
      if (plan.chunks.length > 1) this.#splitBatches++;
      for (const chunk of plan.chunks) await this.#deliver(chunk, batch, context, outcome);

      const result = outcome.toConsumeResult();
      const deadLetters = outcome.deadLetters();
      this.#deadLettered += deadLetters.length;
      if (result.status !== 'SUCCESS') this.#logFailure(messages, context, result, outcome.invokes);
      if (deadLetters.length > 0) await this.#reportDeadLetters(messages, deadLetters);
      const consumed = filteredOut === 0 ? result : { ...result, filteredOut };
      trace?.end(consumed, deadLetters.length);
      return consumed;
    } catch (error) {
      trace?.fail(error);
      throw error;
    } finally {
      // Each layout holds its message: emptied, the plan keeps none alive from wherever a reference to it
      // outlives the batch (an invoke in flight during a full collection; docs/architecture.md, "Garbage").
      layouts.length = 0;
    }
  }

  /**
   * Reports messages that failed for good (e.g. `reconsumeTimes` reached `maxReconsumeTimes`, on their
   * way to the DLQ) to the failure destination, if there is one; messages the consumer dead-lettered as
   * too large to inflate are recorded as `PayloadSizeExceeded`, as an oversize message is here. Never
   * rejects: a record that cannot be delivered is logged (the messages are in RocketMQ's DLQ regardless).
   *
   * @example
   * ```ts
   * if (message.reconsumeTimes >= maxReconsumeTimes) {
   *   await listener.notifyFinalFailure([consumed], 'invoke failed (timeout): ...');
   * }
   * ```
   */
  async notifyFinalFailure(
    messages: readonly ConsumedMessage[],
    reason: string,
    cause: FinalFailureCause = 'retries-exhausted',
  ): Promise<void> {
    await this.#report(
      messages,
      cause === 'too-large' ? 'PayloadSizeExceeded' : 'RetryAttemptsExhausted',
      cause === 'too-large' ? `record too large: ${reason}` : reason,
    );
  }

  /** Invokes the messages at `indexes`, splitting or bisecting as needed, and records the results. */
  async #deliver(
    indexes: readonly number[],
    batch: PlannedBatch,
    context: ConsumeContext,
    outcome: BatchOutcome,
  ): Promise<void> {
    if (outcome.stopped) {
      outcome.recordNotInvoked(indexes, 'not invoked: an earlier message of this orderly batch failed');
      return;
    }
    if (context.signal.aborted) {
      outcome.recordNotInvoked(indexes, 'not invoked: the consume was aborted');
      return;
    }
    const { layouts } = batch;
    const chunk = indexes.map((index) => layouts[index] as RecordLayout);
    try {
      await this.#deliverChunk(chunk, indexes, batch, context, outcome);
    } finally {
      // The invoke's request holds its chunk (event): emptied, it keeps no message alive (see consume).
      chunk.length = 0;
    }
  }

  /** {@link FunctionMessageListener.#deliver} of the layouts `chunk` of `indexes`. */
  async #deliverChunk(
    chunk: readonly RecordLayout[],
    indexes: readonly number[],
    batch: PlannedBatch,
    context: ConsumeContext,
    outcome: BatchOutcome,
  ): Promise<void> {
    const event = new ChunkEvent(this.#consumerGroup, chunk);
    this.#invokes++;
    const invoked = await this.#invokeTraced(event, chunk, batch.trace, context.signal);
    if (!invoked.ok && invoked.kind === 'payload-too-large') {
      const [only] = indexes;
      if (indexes.length === 1 && only !== undefined) {
        outcome.deadLetter({
          index: only,
          condition: 'PayloadSizeExceeded',
          reason: `record too large: an event of ${event.payload.length} bytes was refused (${invoked.message})`,
        });
        return;
      }
      await this.#deliverHalves(indexes, batch, context, outcome);
      return;
    }
    // The layouts are the records the function received: each has its event's messageId.
    const result = mapFunctionResult(invoked, chunk, {
      onNotice: (notice: FunctionResultNotice) =>
        this.#log.warn(
          { functionRef: this.#functionRef, consumerGroup: this.#consumerGroup, notice },
          'function response ignored',
        ),
    });
    if (
      this.#bisect &&
      result.status === 'FAILED' &&
      indexes.length > 1 &&
      !invoked.ok &&
      BISECT_KINDS.has(invoked.kind)
    ) {
      this.#bisections++;
      this.#log.debug(
        { functionRef: this.#functionRef, size: indexes.length, reason: result.reason },
        'invoke failed, bisecting',
      );
      await this.#deliverHalves(indexes, batch, context, outcome);
      return;
    }
    outcome.recordInvoke(indexes, result);
  }

  /**
   * One invoke of `chunk`: in an invoke span carrying its context when the batch is traced, else carrying
   * the records' own context when they share one trace (invoke-tracing.ts).
   */
  #invokeTraced(
    event: ChunkEvent,
    chunk: readonly RecordLayout[],
    trace: BatchTrace | undefined,
    signal: AbortSignal,
  ): Promise<InvokeOutcome> {
    if (trace === undefined) {
      return this.#invokeObserved(event, chunk.length, signal, chunkTraceContext(chunk));
    }
    return trace.invoke(chunk.length, (carrier) =>
      this.#invokeObserved(event, chunk.length, signal, carrier),
    );
  }

  /** One invoke, with its outcome, duration and throttles told to the observer. */
  async #invokeObserved(
    event: ChunkEvent,
    messages: number,
    signal: AbortSignal,
    traceContext: TraceCarrier | undefined,
  ): Promise<InvokeOutcome> {
    const observer = this.#observer;
    markStartupPhase('first invoke started');
    if (observer === undefined) {
      const outcome = await this.#invoker.invoke(
        event.request(this.#functionRef, signal, undefined, traceContext),
      );
      markStartupPhase('first invoke answered');
      return outcome;
    }
    const startedMs = performance.now();
    const tell = (kind: InvokeResultKind): void => {
      try {
        observer.invoked?.({ kind, durationMs: performance.now() - startedMs, messages });
      } catch (error) {
        this.#log.warn({ err: error }, 'invoke observer failed');
      }
    };
    let outcome: InvokeOutcome;
    try {
      outcome = await this.#invoker.invoke(
        event.request(
          this.#functionRef,
          signal,
          () => {
            try {
              observer.throttled?.();
            } catch (error) {
              this.#log.warn({ err: error }, 'invoke observer failed');
            }
          },
          traceContext,
        ),
      );
    } catch (error) {
      tell('invoker-error');
      throw error;
    }
    markStartupPhase('first invoke answered');
    tell(outcome.ok ? 'success' : outcome.kind);
    return outcome;
  }

  async #deliverHalves(
    indexes: readonly number[],
    batch: PlannedBatch,
    context: ConsumeContext,
    outcome: BatchOutcome,
  ): Promise<void> {
    const middle = Math.ceil(indexes.length / 2);
    await this.#deliver(indexes.slice(0, middle), batch, context, outcome);
    await this.#deliver(indexes.slice(middle), batch, context, outcome);
  }

  async #reportDeadLetters(
    messages: readonly ConsumedMessage[],
    deadLetters: readonly DeadLetterDecision[],
  ): Promise<void> {
    const groups = new Map<
      string,
      { condition: FailureCondition; reason: string; messages: ConsumedMessage[] }
    >();
    for (const { index, reason, condition } of deadLetters) {
      const key = `${condition}\n${reason}`;
      let group = groups.get(key);
      if (group === undefined) {
        group = { condition, reason, messages: [] };
        groups.set(key, group);
      }
      group.messages.push(messages[index] as ConsumedMessage);
    }
    for (const group of groups.values()) await this.#report(group.messages, group.condition, group.reason);
  }

  async #report(
    messages: readonly ConsumedMessage[],
    condition: FailureCondition,
    reason: string,
  ): Promise<void> {
    const destination = this.#destination;
    if (destination === undefined || messages.length === 0) return;
    for (let start = 0; start < messages.length; start += MAX_MESSAGES_PER_FAILURE_RECORD) {
      const slice = messages.slice(start, start + MAX_MESSAGES_PER_FAILURE_RECORD);
      const record = buildFailureRecord({
        condition,
        reason,
        functionArn: this.#functionArn,
        consumerGroup: this.#consumerGroup,
        messages: slice,
      });
      try {
        await destination.send(record, slice);
      } catch (error) {
        this.#log.error(
          {
            err: error,
            destination: destination.arn,
            condition,
            messageIds: slice.slice(0, MAX_LOGGED_MESSAGE_IDS).map((m) => m.message.msgId),
          },
          'failure record not delivered',
        );
      }
    }
  }

  #logFailure(
    messages: readonly ConsumedMessage[],
    context: ConsumeContext,
    result: Exclude<ConsumeResult, { status: 'SUCCESS' }>,
    invokes: number,
  ): void {
    const failedIndexes =
      result.status === 'PARTIAL' ? result.failedIndexes : messages.map((_, index) => index);
    this.#log.warn(
      {
        functionRef: this.#functionRef,
        consumerGroup: this.#consumerGroup,
        orderly: context.orderly,
        status: result.status,
        reason: result.reason,
        batchSize: messages.length,
        invokes,
        failedCount: failedIndexes.length,
        deadLetterCount: result.deadLetter?.length ?? 0,
        failedMessageIds: failedIndexes
          .slice(0, MAX_LOGGED_MESSAGE_IDS)
          .map((index) => messages[index]?.message.msgId),
      },
      'batch failed',
    );
  }
}
