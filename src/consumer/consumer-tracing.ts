/**
 * The consumer layer's OpenTelemetry spans (docs/tracing.md), following OpenTelemetry's messaging
 * conventions: a `receive <topic>` span per PULL_MESSAGE or POP_MESSAGE that returned messages, and a
 * settle span per settling broker call: `send_back <topic>` (a failed message back to `%RETRY%<group>`, or
 * with delay level -1 to `%DLQ%<group>`), `dead_letter <topic>` (a record handed to the DLQ by its
 * commit-log offset), `ack <topic>` and `change_invisible_time <topic>` (POP). The process and invoke
 * spans are the invoke layer's (src/invoke/invoke-tracing.ts).
 *
 * Each span links to the messages' creation contexts (their `traceparent` property, checked by
 * src/util/trace-context.ts), at most {@link MAX_SPAN_LINKS}, and is the child of the first one when every
 * message with a context shares one trace (so a message of one trace gives one connected trace: producer,
 * receive, process, invoke, settle); otherwise it starts a trace of its own and only links them.
 *
 * Nothing is made while no SDK is registered: {@link receiveStartTime} and {@link startSettle} check that
 * once per call and return undefined. A throwing SDK costs the span, never the consumption.
 */
import {
  type Attributes,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { propertiesHeadOf } from '../protocol/decoded-message.js';
import type { MessageExt } from '../protocol/message.js';
import { componentLogger } from '../util/logger.js';
import { MAX_SPAN_LINKS, pollerTracer, registeredTracerProvider, tracingStep } from '../util/otel-tracer.js';
import { parseTraceparent } from '../util/trace-context.js';

const log = componentLogger('consumer.tracing');

/** The property OpenTelemetry's W3C propagator writes the creation context to. */
const TRACEPARENT = 'traceparent';

/** What the spans say about the consumer: fixed per consumer. */
export interface ConsumerTraceTarget {
  readonly consumerGroup: string;
  /** Unknown (or POP, which has none): no `messaging.rocketmq.consumption_model`. */
  readonly messageModel?: 'CLUSTERING' | 'BROADCASTING' | undefined;
}

/** How a span was received: the broker call. */
export type ReceiveCommand = 'PULL_MESSAGE' | 'POP_MESSAGE';

/** A settling broker call. */
export type SettleOperation = 'send_back' | 'dead_letter' | 'ack' | 'change_invisible_time';

/**
 * The creation context a message carries (its `traceparent` user property), or undefined: none, or one
 * that is not a valid W3C traceparent (the invoke layer counts and logs those:
 * src/invoke/message-trace-context.ts).
 */
export function messageSpanContext(message: MessageExt): SpanContext | undefined {
  const head = propertiesHeadOf(message);
  let traceparent: string | undefined;
  if (head === undefined) {
    traceparent = message.properties[TRACEPARENT];
  } else {
    const at = head.userKeys.indexOf(TRACEPARENT);
    traceparent = at < 0 ? undefined : head.userValues[at];
  }
  if (traceparent === undefined) return undefined;
  const parsed = parseTraceparent(traceparent);
  if (!parsed.ok) return undefined;
  const { traceId, spanId, traceFlags } = parsed.value;
  return { traceId, spanId, traceFlags, isRemote: true };
}

/**
 * The start of a receive when an SDK is registered (a `performance.now()` time, which the API takes as
 * such), else undefined: the caller then makes no span of that receive.
 */
export function receiveStartTime(): number | undefined {
  return registeredTracerProvider() === undefined ? undefined : performance.now();
}

/** Where a receive read from. */
export interface ReceiveSource {
  /** The topic read: a queue's topic (maybe `%RETRY%<group>`) or the POP subscription's. */
  readonly topic: string;
  /** The queue id of a pull (a POP reads across queues). */
  readonly queueId?: number | undefined;
  readonly command: ReceiveCommand;
}

/**
 * Reports a receive that returned `messages`, started at `startedAt` ({@link receiveStartTime}) and
 * ending now: a `receive <topic>` span of kind CLIENT (the consumer asked the broker).
 */
export function traceReceive(
  target: ConsumerTraceTarget,
  source: ReceiveSource,
  messages: readonly MessageExt[],
  startedAt: number,
): void {
  if (messages.length === 0) return;
  const provider = registeredTracerProvider();
  if (provider === undefined) return;
  tracingStep(
    log,
    'receive span',
    () => {
      const attributes = baseAttributes(target, source.topic, 'receive', 'receive', messages);
      attributes['rocketmq_lambda.receive.command'] = source.command;
      if (source.queueId !== undefined && source.queueId >= 0) {
        attributes['messaging.destination.partition.id'] = String(source.queueId);
      }
      startSpan(pollerTracer(provider), `receive ${source.topic}`, attributes, messages, startedAt).end();
    },
    undefined,
  );
}

/** A settle span under way: {@link SettleSpan.end} once the broker answered (or failed). */
export interface SettleSpan {
  end(error?: unknown): void;
}

/**
 * Starts the span of one settling broker call on `messages` (empty for a record addressed by its
 * commit-log offset), or returns undefined while no SDK is registered (or it threw).
 */
export function startSettle(
  target: ConsumerTraceTarget,
  operation: SettleOperation,
  topic: string,
  messages: readonly MessageExt[],
  extra?: Attributes,
): SettleSpan | undefined {
  const provider = registeredTracerProvider();
  if (provider === undefined) return undefined;
  return tracingStep(
    log,
    'settle span',
    () => {
      const attributes = baseAttributes(target, topic, 'settle', operation, messages);
      if (extra !== undefined) Object.assign(attributes, extra);
      const span = startSpan(pollerTracer(provider), `${operation} ${topic}`, attributes, messages);
      return new EndingSpan(span);
    },
    undefined,
  );
}

/**
 * Runs `call` inside a settle span ({@link startSettle}); the span ends with its outcome. Without a span,
 * `call()` itself: not one promise (nor microtask) more than the untraced call.
 */
export function traced<T>(span: SettleSpan | undefined, call: () => Promise<T>): Promise<T> {
  return span === undefined ? call() : tracedCall(span, call);
}

async function tracedCall<T>(span: SettleSpan, call: () => Promise<T>): Promise<T> {
  try {
    const value = await call();
    span.end();
    return value;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

class EndingSpan implements SettleSpan {
  constructor(private readonly span: Span) {}

  end(error?: unknown): void {
    tracingStep(
      log,
      'settle span end',
      () => {
        if (error !== undefined) {
          this.span.recordException(error instanceof Error ? error : String(error));
          this.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the broker call failed' });
        }
        this.span.end();
      },
      undefined,
    );
  }
}

function baseAttributes(
  target: ConsumerTraceTarget,
  topic: string,
  type: 'receive' | 'settle',
  name: string,
  messages: readonly MessageExt[],
): Attributes {
  const attributes: Attributes = {
    'messaging.system': 'rocketmq',
    'messaging.operation.type': type,
    'messaging.operation.name': name,
    'messaging.destination.name': topic,
    'messaging.consumer.group.name': target.consumerGroup,
  };
  if (target.messageModel !== undefined) {
    attributes['messaging.rocketmq.consumption_model'] = target.messageModel.toLowerCase();
  }
  const first = messages[0];
  if (messages.length === 1 && first !== undefined) {
    attributes['messaging.message.id'] = first.msgId;
  } else if (messages.length > 1) {
    attributes['messaging.batch.message_count'] = messages.length;
  }
  return attributes;
}

/**
 * A span linking `messages`' creation contexts (bounded), the child of the first when they share one
 * trace, else a root.
 */
function startSpan(
  tracer: ReturnType<typeof pollerTracer>,
  name: string,
  attributes: Attributes,
  messages: readonly MessageExt[],
  startTime?: number,
): Span {
  const links: Link[] = [];
  let dropped = 0;
  let parent: SpanContext | undefined;
  let oneTrace = true;
  for (const message of messages) {
    const linked = messageSpanContext(message);
    if (linked === undefined) continue;
    if (parent === undefined) parent = linked;
    else if (linked.traceId !== parent.traceId) oneTrace = false;
    if (links.length === MAX_SPAN_LINKS) {
      dropped++;
      continue;
    }
    links.push({ context: linked, attributes: { 'messaging.message.id': message.msgId } });
  }
  if (dropped > 0) attributes['rocketmq_lambda.links_dropped'] = dropped;
  if (!oneTrace) parent = undefined;
  const parentContext = parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent);
  return tracer.startSpan(
    name,
    {
      kind: SpanKind.CLIENT,
      attributes,
      links,
      root: parent === undefined,
      ...(startTime === undefined ? {} : { startTime }),
    },
    parentContext,
  );
}
