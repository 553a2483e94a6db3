/**
 * The function listener's OpenTelemetry spans (docs/tracing.md), through `@opentelemetry/api` only: no
 * SDK or exporter is bundled, and when the user registered none (the API's global tracer provider is its
 * proxy without a delegate) no span, link or attribute is made: one check per batch, and per invoke a
 * look at its records' contexts for the trace header ({@link chunkTraceContext}).
 *
 * Per batch, a `process <topic>` span (kind CONSUMER, OpenTelemetry's messaging conventions with
 * `messaging.system` `rocketmq`): it links every message's creation context (its traceparent), at most
 * {@link MAX_SPAN_LINKS}; its parent is the messages' trace when they all carry contexts of one trace
 * (the first such message's context: a batch of one, or of one producer's trace), else it starts a trace
 * of its own. Under it, one `invoke <function>` span (kind CLIENT, `faas.invoked_*`) per invoke (split
 * batches and bisected halves included); the invoke runs in that span's context and carries it to the
 * function (the X-Ray header). The batch's result (status, failed, filtered out, dead-lettered) ends the
 * process span as attributes and status.
 *
 * Without a registered SDK, an invoke still carries the messages' own context when they share one trace
 * ({@link chunkTraceContext}), so that X-Ray continues the producer's trace.
 */

import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { ConsumedMessage, ConsumeResult } from '../consumer/message-listener.js';
import { buildInfo } from '../util/build-info.js';
import { componentLogger } from '../util/logger.js';
import { MAX_SPAN_LINKS, registeredTracerProvider, TRACER_NAME } from '../util/otel-tracer.js';
import { sharedThrottledLog } from '../util/shared-throttled-log.js';
import { parseTraceparent, type TraceCarrier } from '../util/trace-context.js';
import type { InvokeOutcome } from './invoker.js';
import { parseLambdaFunctionRef } from './lambda-function-ref.js';

export { MAX_SPAN_LINKS, TRACER_NAME } from '../util/otel-tracer.js';

const log = componentLogger('invoke.tracing');

/**
 * Runs `step` of the tracing, never letting it fail the batch: a registered SDK that throws (a bad
 * processor, an exporter that throws synchronously) costs the trace, not the messages. Warned once per
 * 30 s.
 */
function safely<T>(step: string, run: () => T, fallback: T): T {
  try {
    return run();
  } catch (error) {
    sharedThrottledLog(log).warn(step, { err: error, step }, 'tracing failed; the batch goes on without it');
    return fallback;
  }
}

/**
 * Whether a tracer provider is registered (`trace.setGlobalTracerProvider`, which every OpenTelemetry
 * SDK's `register()` calls): without one every span would be a no-op, so none is made.
 */
export function tracingEnabled(): boolean {
  return registeredProvider() !== undefined;
}

/** The tracer provider registered, or undefined while none is (src/util/otel-tracer.ts). */
const registeredProvider = registeredTracerProvider;

/** Anything with a record's trace context: a record layout (event-builder.ts) or a record. */
interface Traced {
  readonly traceContext: TraceCarrier | undefined;
}

/**
 * The trace context an invoke of these records continues when no span of ours is made: the first
 * record's, when every record that carries one is of the same trace; else (none, or several traces)
 * undefined.
 */
export function chunkTraceContext(records: readonly Traced[]): TraceCarrier | undefined {
  let first: TraceCarrier | undefined;
  let traceIdPrefix = '';
  for (let i = 0; i < records.length; i++) {
    const carrier = (records[i] as Traced).traceContext;
    if (carrier === undefined) continue;
    if (first === undefined) {
      first = carrier;
      // `00-<trace id>`: every carrier is version 00 (src/handler/trace-context.ts).
      traceIdPrefix = carrier.traceparent.slice(0, 35);
    } else if (!carrier.traceparent.startsWith(traceIdPrefix)) {
      return undefined;
    }
  }
  return first;
}

/** The remote span context of a carrier (valid: carriers are checked when records are made). */
function spanContextOf(carrier: TraceCarrier, withState: boolean): SpanContext | undefined {
  const parsed = parseTraceparent(carrier.traceparent);
  if (!parsed.ok) return undefined;
  const { traceId, spanId, traceFlags } = parsed.value;
  const spanContext: SpanContext = { traceId, spanId, traceFlags, isRemote: true };
  if (withState && carrier.tracestate !== undefined) {
    spanContext.traceState = createTraceState(carrier.tracestate);
  }
  return spanContext;
}

/** The W3C context of one of our spans, for the invoke (its tracestate is the parent's, if any). */
function carrierOf(span: Span): TraceCarrier | undefined {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!trace.isSpanContextValid(span.spanContext())) return undefined;
  const traceparent = `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = traceState?.serialize();
  return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
}

/** What the spans say about the mapping: fixed per listener. */
export interface ListenerTraceTarget {
  readonly consumerGroup: string;
  /** The mapping's function reference (`local:...`, a name or an ARN). */
  readonly functionRef: string;
  /** Unknown: no `messaging.rocketmq.consumption_model` on the spans. */
  readonly messageModel?: 'CLUSTERING' | 'BROADCASTING' | undefined;
}

/**
 * The spans of one listener: {@link ListenerTracing.startBatch} per consumed batch, undefined while no
 * SDK is registered.
 */
export class ListenerTracing {
  readonly #consumerGroup: string;
  readonly #consumptionModel: string | undefined;
  readonly #invokeAttributes: Attributes;
  readonly #functionName: string;
  /** The tracer of the provider registered when it was made: made again when another is registered. */
  #tracer: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

  constructor(target: ListenerTraceTarget) {
    this.#consumerGroup = target.consumerGroup;
    this.#consumptionModel = target.messageModel?.toLowerCase();
    const { functionRef } = target;
    if (functionRef.startsWith('local:')) {
      this.#functionName = functionRef.slice('local:'.length);
      this.#invokeAttributes = { 'faas.invoked_name': this.#functionName };
    } else {
      let name = functionRef;
      let region: string | undefined;
      try {
        const ref = parseLambdaFunctionRef(functionRef);
        name = ref.name;
        region = ref.region;
      } catch {
        // An invalid reference fails the invoke itself; the span names it as written.
      }
      this.#functionName = name;
      this.#invokeAttributes = {
        'faas.invoked_name': name,
        'faas.invoked_provider': 'aws',
        ...(region === undefined ? {} : { 'faas.invoked_region': region }),
      };
    }
  }

  /**
   * Starts the process span of a batch, or undefined when no SDK is registered (or it failed). `records`
   * are the records to invoke by batch index (undefined for messages filtered out or dead-lettered).
   */
  startBatch(
    messages: readonly ConsumedMessage[],
    records: readonly (Traced | undefined)[],
  ): BatchTrace | undefined {
    const provider = registeredProvider();
    if (provider === undefined) return undefined;
    return safely('process span', () => this.#start(provider, messages, records), undefined);
  }

  #start(
    provider: TracerProvider,
    messages: readonly ConsumedMessage[],
    records: readonly (Traced | undefined)[],
  ): BatchTrace {
    if (this.#tracer?.provider !== provider) {
      this.#tracer = { provider, tracer: provider.getTracer(TRACER_NAME, buildInfo().version) };
    }
    const tracer = this.#tracer.tracer;
    const first = messages[0];
    const topic = first?.topic ?? '';
    const attributes: Attributes = {
      'messaging.system': 'rocketmq',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': topic,
      'messaging.consumer.group.name': this.#consumerGroup,
    };
    if (this.#consumptionModel !== undefined) {
      attributes['messaging.rocketmq.consumption_model'] = this.#consumptionModel;
    }
    if (messages.length === 1 && first !== undefined) {
      const m = first.message;
      attributes['messaging.message.id'] = m.msgId;
      attributes['messaging.destination.partition.id'] = String(m.queueId);
      if (m.tags !== undefined) attributes['messaging.rocketmq.message.tag'] = m.tags;
      if (m.keys.length > 0) attributes['messaging.rocketmq.message.keys'] = [...m.keys];
    } else {
      attributes['messaging.batch.message_count'] = messages.length;
    }
    const links: Link[] = [];
    let dropped = 0;
    const traced: Traced[] = [];
    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      if (record?.traceContext === undefined) continue;
      traced.push(record);
      if (links.length === MAX_SPAN_LINKS) {
        dropped++;
        continue;
      }
      const linked = spanContextOf(record.traceContext, false);
      if (linked === undefined) continue;
      const id = messages[i]?.message.msgId;
      links.push({
        context: linked,
        ...(id === undefined ? {} : { attributes: { 'messaging.message.id': id } }),
      });
    }
    if (dropped > 0) attributes['rocketmq_lambda.links_dropped'] = dropped;
    const shared = chunkTraceContext(traced);
    const parent = shared === undefined ? undefined : spanContextOf(shared, true);
    const parentContext = parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent);
    const span = tracer.startSpan(
      `process ${topic}`,
      { kind: SpanKind.CONSUMER, attributes, links, root: parent === undefined },
      parentContext,
    );
    return new BatchTrace(tracer, span, this.#functionName, this.#invokeAttributes);
  }
}

/**
 * The spans of one batch: its process span, and an invoke span per {@link BatchTrace.invoke}.
 */
export class BatchTrace {
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #context: Context;
  readonly #functionName: string;
  readonly #invokeAttributes: Attributes;

  constructor(tracer: Tracer, span: Span, functionName: string, invokeAttributes: Attributes) {
    this.#tracer = tracer;
    this.#span = span;
    this.#context = trace.setSpan(context.active(), span);
    this.#functionName = functionName;
    this.#invokeAttributes = invokeAttributes;
  }

  /**
   * Runs one invoke of `messages` records inside an invoke span (its context active), handing `run` the
   * span's W3C context for the function; the span ends with the outcome.
   */
  async invoke(
    messages: number,
    run: (carrier: TraceCarrier | undefined) => Promise<InvokeOutcome>,
  ): Promise<InvokeOutcome> {
    const started = safely(
      'invoke span',
      () => {
        const span = this.#tracer.startSpan(
          `invoke ${this.#functionName}`,
          {
            kind: SpanKind.CLIENT,
            attributes: { ...this.#invokeAttributes, 'messaging.batch.message_count': messages },
          },
          this.#context,
        );
        return { span, active: trace.setSpan(this.#context, span), carrier: carrierOf(span) };
      },
      undefined,
    );
    if (started === undefined) return run(undefined);
    const { span, active, carrier } = started;
    let outcome: InvokeOutcome | undefined;
    try {
      outcome = await context.with(active, () => run(carrier));
      return outcome;
    } finally {
      const ended = outcome;
      safely(
        'invoke span end',
        () => {
          if (ended === undefined) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'invoker-error' });
          } else if (ended.ok) {
            span.setAttribute('rocketmq_lambda.invoke.outcome', 'ok');
          } else {
            span.setAttribute('rocketmq_lambda.invoke.outcome', ended.kind);
            span.setStatus({ code: SpanStatusCode.ERROR, message: ended.kind });
          }
          span.end();
        },
        undefined,
      );
    }
  }

  /** Ends the process span with the batch's result. */
  end(result: ConsumeResult, deadLettered: number): void {
    safely('process span end', () => this.#end(result, deadLettered), undefined);
  }

  #end(result: ConsumeResult, deadLettered: number): void {
    const span = this.#span;
    span.setAttribute('rocketmq_lambda.batch.status', result.status);
    span.setAttribute('rocketmq_lambda.batch.filtered_out', result.filteredOut ?? 0);
    span.setAttribute('rocketmq_lambda.batch.dead_lettered', deadLettered);
    if (result.status !== 'SUCCESS') {
      const failed = result.status === 'PARTIAL' ? result.failedIndexes.length : undefined;
      if (failed !== undefined) span.setAttribute('rocketmq_lambda.batch.failed', failed);
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.reason });
    }
    span.end();
  }

  /** Ends the process span of a batch whose consume threw. */
  fail(error: unknown): void {
    safely(
      'process span end',
      () => {
        this.#span.recordException(error instanceof Error ? error : String(error));
        this.#span.setStatus({ code: SpanStatusCode.ERROR, message: 'the consume threw' });
        this.#span.end();
      },
      undefined,
    );
  }
}
