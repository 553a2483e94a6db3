/**
 * The function listener's spans with a real OpenTelemetry SDK (in memory), and what an invoke carries
 * with and without one.
 */

import { fileURLToPath } from 'node:url';
import { context, propagation, type SpanContext, trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { ConsumeContext, ConsumedMessage } from '../../../src/consumer/message-listener.js';
import type { TraceCarrier } from '../../../src/handler/trace-context.js';
import { FunctionMessageListener } from '../../../src/invoke/function-listener.js';
import { MAX_SPAN_LINKS, tracingEnabled } from '../../../src/invoke/invoke-tracing.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { LocalInvoker } from '../../../src/invoke/local-invoker.js';
import { invalidTraceContexts } from '../../../src/invoke/message-trace-context.js';
import { registerTestSdk, registerThrowingSdk, type TestSdk } from '../../support/otel-sdk.js';
import { consumed } from './consumed-message.js';

const consumeContext: ConsumeContext = {
  consumerGroup: 'orders-consumer',
  orderly: false,
  signal: new AbortController().signal,
};

/** An invoker that remembers each request's trace context and the span active while it ran. */
class RecordingInvoker implements Invoker {
  readonly requests: { traceContext: TraceCarrier | undefined; active: SpanContext | undefined }[] = [];
  outcome: InvokeOutcome = { ok: true, payload: Buffer.from('null') };

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    this.requests.push({
      traceContext: request.traceContext,
      active: trace.getActiveSpan()?.spanContext(),
    });
    return this.outcome;
  }

  async close(): Promise<void> {
    // Nothing to release.
  }
}

function listenerWith(
  invoker: Invoker,
  functionRef = 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
) {
  return new FunctionMessageListener({ invoker, functionRef, consumerGroup: 'orders-consumer' });
}

/** A message with id `id` whose properties carry `carrier`. */
function tracedMessage(id: string, carrier: Record<string, string> = {}): ConsumedMessage {
  return consumed({ msgId: id, properties: { UNIQ_KEY: id, ...carrier } });
}

const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);

describe('without an OpenTelemetry SDK', () => {
  it('makes no spans, and the invoke carries the records’ context when they share one trace', async () => {
    expect(tracingEnabled()).toBe(false);
    const invoker = new RecordingInvoker();
    const listener = listenerWith(invoker);
    const first = traceparent(TRACE_A, '1'.repeat(16));
    await listener.consume(
      [
        tracedMessage('m1', { traceparent: first, tracestate: 'k=v' }),
        tracedMessage('m2'),
        tracedMessage('m3', { traceparent: traceparent(TRACE_A, '2'.repeat(16)) }),
      ],
      consumeContext,
    );
    await listener.consume(
      [
        tracedMessage('m4', { traceparent: first }),
        tracedMessage('m5', { traceparent: traceparent(TRACE_B, '2'.repeat(16)) }),
      ],
      consumeContext,
    );
    await listener.consume([tracedMessage('m6')], consumeContext);
    expect(invoker.requests).toEqual([
      { traceContext: { traceparent: first, tracestate: 'k=v' }, active: undefined },
      { traceContext: undefined, active: undefined },
      { traceContext: undefined, active: undefined },
    ]);
  });

  it('ignores an invalid traceparent, counting it, and delivers the message without a context', async () => {
    const invoker = new RecordingInvoker();
    const before = invalidTraceContexts();
    const result = await listenerWith(invoker).consume(
      [tracedMessage('bad', { traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01` })],
      consumeContext,
    );
    expect(result).toEqual({ status: 'SUCCESS' });
    expect(invoker.requests).toEqual([{ traceContext: undefined, active: undefined }]);
    expect(invalidTraceContexts()).toBe(before + 1);
  });
});

describe('with an SDK that throws', () => {
  it('consumes the batch without spans, and the invoke still carries the records’ context', async () => {
    const throwing = registerThrowingSdk();
    onTestFinished(() => throwing.stop());
    const invoker = new RecordingInvoker();
    const carrier = { traceparent: traceparent(TRACE_A, '1'.repeat(16)) };
    const result = await listenerWith(invoker).consume([tracedMessage('m1', carrier)], consumeContext);
    expect(result).toEqual({ status: 'SUCCESS' });
    expect(invoker.requests).toEqual([{ traceContext: carrier, active: undefined }]);
  });
});

describe('an SDK registered after another', () => {
  it('gets the spans of a listener made under the first', async () => {
    const listener = listenerWith(new RecordingInvoker());
    const first = registerTestSdk();
    await listener.consume([tracedMessage('m1')], consumeContext);
    // Read before stop: shutting the SDK down empties its exporter.
    const processed = (sdk: TestSdk) =>
      sdk
        .spans()
        .flatMap((span) => (span.name === 'process orders' ? [span.attributes['messaging.message.id']] : []));
    const firstIds = processed(first);
    await first.stop();
    const second = registerTestSdk();
    onTestFinished(() => second.stop());
    await listener.consume([tracedMessage('m2')], consumeContext);
    expect(firstIds).toEqual(['m1']);
    expect(processed(second)).toEqual(['m2']);
  });
});

describe('with an OpenTelemetry SDK registered', () => {
  let sdk: TestSdk;
  beforeEach(() => {
    sdk = registerTestSdk();
  });
  afterEach(async () => {
    await sdk.stop();
  });

  /** Runs `body` inside a producer span and returns the span's context and the injected properties. */
  function produce(name: string): { spanContext: SpanContext; properties: Record<string, string> } {
    const tracer = trace.getTracer('test-producer');
    return tracer.startActiveSpan(`send ${name}`, (span) => {
      const properties: Record<string, string> = {};
      propagation.inject(context.active(), properties);
      span.end();
      return { spanContext: span.spanContext(), properties };
    });
  }

  it('continues a message’s trace: producer → process → invoke, the invoke carrying its span', async () => {
    expect(tracingEnabled()).toBe(true);
    const producer = produce('orders');
    const invoker = new RecordingInvoker();
    await listenerWith(invoker).consume([tracedMessage('m1', producer.properties)], consumeContext);

    const process = sdk.span('process orders');
    const invoke = sdk.span('invoke orders');
    expect(process.spanContext().traceId).toBe(producer.spanContext.traceId);
    expect(process.parentSpanContext?.spanId).toBe(producer.spanContext.spanId);
    expect(invoke.spanContext().traceId).toBe(producer.spanContext.traceId);
    expect(invoke.parentSpanContext?.spanId).toBe(process.spanContext().spanId);
    expect(process.links.map((link) => link.context.spanId)).toEqual([producer.spanContext.spanId]);
    expect(process.attributes).toMatchObject({
      'messaging.system': 'rocketmq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      'messaging.consumer.group.name': 'orders-consumer',
      'messaging.message.id': 'm1',
      'rocketmq_lambda.batch.status': 'SUCCESS',
    });
    expect(invoke.attributes).toMatchObject({
      'faas.invoked_name': 'orders',
      'faas.invoked_provider': 'aws',
      'faas.invoked_region': 'eu-west-1',
      'messaging.batch.message_count': 1,
      'rocketmq_lambda.invoke.outcome': 'ok',
    });
    const [request] = invoker.requests;
    expect(request?.traceContext).toEqual({
      traceparent: `00-${invoke.spanContext().traceId}-${invoke.spanContext().spanId}-01`,
    });
    expect(request?.active?.spanId).toBe(invoke.spanContext().spanId);
  });

  it('links a batch of many traces and starts a trace of its own for it', async () => {
    const producers = ['a', 'b', 'c'].map((name) => produce(name));
    const invoker = new RecordingInvoker();
    await listenerWith(invoker).consume(
      producers.map((p, i) => tracedMessage(`m${i}`, p.properties)),
      consumeContext,
    );
    const process = sdk.span('process orders');
    expect(process.parentSpanContext).toBeUndefined();
    expect(producers.map((p) => p.spanContext.traceId)).not.toContain(process.spanContext().traceId);
    expect(process.links.map((link) => [link.context.traceId, link.context.spanId, link.attributes])).toEqual(
      producers.map((p, i) => [
        p.spanContext.traceId,
        p.spanContext.spanId,
        { 'messaging.message.id': `m${i}` },
      ]),
    );
    expect(process.attributes['messaging.batch.message_count']).toBe(3);
    expect(process.attributes['messaging.message.id']).toBeUndefined();
  });

  it(`links at most ${MAX_SPAN_LINKS} messages and counts the others`, async () => {
    const batch = Array.from({ length: MAX_SPAN_LINKS + 5 }, (_, i) =>
      tracedMessage(`m${i}`, {
        traceparent: traceparent(i % 2 === 0 ? TRACE_A : TRACE_B, (i + 1).toString(16).padStart(16, '0')),
      }),
    );
    await listenerWith(new RecordingInvoker()).consume(batch, consumeContext);
    const process = sdk.span('process orders');
    expect(process.links).toHaveLength(MAX_SPAN_LINKS);
    expect(process.attributes['rocketmq_lambda.links_dropped']).toBe(5);
  });

  it('marks a failed invoke and a failed batch as errors', async () => {
    const invoker = new RecordingInvoker();
    invoker.outcome = { ok: false, kind: 'function-error', message: '{"errorType":"Error"}' };
    const result = await listenerWith(invoker, 'local:./handler.js#handler').consume(
      [tracedMessage('m1', produce('x').properties)],
      consumeContext,
    );
    expect(result.status).toBe('FAILED');
    const invoke = sdk.span('invoke ./handler.js#handler');
    expect(invoke.status).toEqual({ code: 2, message: 'function-error' });
    expect(invoke.attributes).toEqual({
      'faas.invoked_name': './handler.js#handler',
      'messaging.batch.message_count': 1,
      'rocketmq_lambda.invoke.outcome': 'function-error',
    });
    const process = sdk.span('process orders');
    expect(process.status.code).toBe(2);
    expect(process.attributes['rocketmq_lambda.batch.status']).toBe('FAILED');
  });

  it('runs a local (in-process) handler inside the invoke span; its records carry the producer’s context', async () => {
    const producer = produce('orders');
    const local = new LocalInvoker({
      baseDir: fileURLToPath(new URL('../../fixtures/handlers/', import.meta.url)),
    });
    const answers: unknown[] = [];
    const invoker: Invoker = {
      async invoke(request) {
        const outcome = await local.invoke(request);
        if (outcome.ok) answers.push(JSON.parse(outcome.payload.toString('utf8')));
        return outcome;
      },
      close: () => local.close(),
    };
    await listenerWith(invoker, 'local:./traced.ts#handler').consume(
      [tracedMessage('m1', producer.properties)],
      consumeContext,
    );
    await invoker.close();
    const invoke = sdk.span('invoke ./traced.ts#handler');
    expect(answers).toEqual([
      {
        batchItemFailures: [],
        activeSpanId: invoke.spanContext().spanId,
        traceparents: [producer.properties.traceparent],
      },
    ]);
  });
});
