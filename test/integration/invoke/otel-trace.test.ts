/**
 * One trace from producer to function, end to end: a producer span injects its W3C context into the
 * message's properties (OpenTelemetry's propagation API), our producer sends it to the real broker, the
 * poller (started from a config as `rocketmq-lambda run` does) consumes it and invokes through the real
 * `@aws-sdk/client-lambda` against our HTTP Invoke API, whose function uses the handler kit to continue
 * the record's context. The in-memory SDK must hold the producer span, the poller's spans and the
 * handler's span in one trace (with the receive of the pull and, for a message failed once, the settle span
 * of its send-back), and the X-Amzn-Trace-Id reaching the Invoke API must be that trace's.
 * Without an SDK the record and the header still carry the message's own context.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { hrTimeToNanoseconds } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseEvent } from '../../../src/handler/parse-event.js';
import { recordSpanContext } from '../../../src/handler/trace-context.js';
import { uniqueGroup } from '../../support/broker.js';
import { registerTestSdk } from '../../support/otel-sdk.js';
import { testTopic } from '../../support/test-topic.js';
import { newProducer, waitFor } from '../consumer/helpers.js';
import { lambdaConfig, runPoller, useLambdaSuite } from './lambda-harness.js';

const suite = useLambdaSuite();

/** The X-Ray header of a span's context, as Lambda reads it. */
function xrayOf(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  return `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=1`;
}

/** Starts a producer span, sends `bodies` (one message each, in one batch) with its context, ends it. */
async function sendTraced(
  producer: Awaited<ReturnType<typeof newProducer>>,
  topic: string,
  bodies: readonly string[],
  oneTrace: boolean,
): Promise<{ msgIds: string[]; producers: SpanContext[] }> {
  const tracer = trace.getTracer('test-producer');
  const producers: SpanContext[] = [];
  const messages = [];
  const sendSpan = (name: string): Record<string, string> => {
    const span = tracer.startSpan(name, {}, ROOT_CONTEXT);
    const properties: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), properties);
    producers.push(span.spanContext());
    span.end();
    return properties;
  };
  const shared = oneTrace ? sendSpan(`send ${topic}`) : undefined;
  for (const [i, body] of bodies.entries()) {
    messages.push({ topic, body, properties: shared ?? sendSpan(`send ${topic} #${i}`) });
  }
  const { msgIds } = await producer.sendBatch(messages, { queueId: 0 });
  return { msgIds, producers };
}

describe('one trace from producer to function', () => {
  it('single trace: producer → process → invoke, the handler continuing the record’s context; X-Ray header of the invoke span', async () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const { api } = suite();
    const { client, topic, group } = await testTopic('otel', 1);
    const functionName = uniqueGroup('fn');
    const handlerTracer = trace.getTracer('test-handler');
    const handled: string[] = [];
    api.register(functionName, (input) => {
      // What a handler does with the kit: parse the event, continue each record's context.
      for (const record of parseEvent(input).Records) {
        const parent = propagation.extract(ROOT_CONTEXT, record.traceContext ?? {});
        handlerTracer.startSpan(`handle ${record.messageId}`, {}, parent).end();
        handled.push(record.messageId);
      }
      return { batchItemFailures: [] };
    });

    const producer = await newProducer(client);
    const { msgIds, producers } = await sendTraced(producer, topic, ['{"order":1}'], true);
    const [producerSpan] = producers as [SpanContext];
    await runPoller(lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName }));
    await waitFor('the function handled the message', 30_000, () => (handled.length >= 1 ? true : undefined));

    const process = await waitFor('the process span ended', 10_000, () =>
      sdk.spans().find((s) => s.name === `process ${topic}`),
    );
    const invoke = sdk.span(`invoke ${functionName}`);
    const handler = sdk.span(`handle ${msgIds[0]}`);
    const receive = sdk.span(`receive ${topic}`);
    const traceId = producerSpan.traceId;
    expect([receive, process, invoke, handler].map((s) => s.spanContext().traceId)).toEqual([
      traceId,
      traceId,
      traceId,
      traceId,
    ]);
    // The pull that returned the message: a CLIENT span under the producer's, linking it.
    expect(receive.parentSpanContext?.spanId).toBe(producerSpan.spanId);
    expect(receive.links.map((l) => l.context.spanId)).toEqual([producerSpan.spanId]);
    expect(receive.attributes).toMatchObject({
      'messaging.operation.type': 'receive',
      'messaging.consumer.group.name': group,
      'messaging.message.id': msgIds[0],
      'rocketmq_lambda.receive.command': 'PULL_MESSAGE',
    });
    // Start times are [seconds, nanoseconds] pairs: compared as numbers, not as the strings `<=` made of them.
    expect(hrTimeToNanoseconds(receive.startTime)).toBeLessThanOrEqual(
      hrTimeToNanoseconds(process.startTime),
    );
    expect(process.parentSpanContext?.spanId).toBe(producerSpan.spanId);
    expect(invoke.parentSpanContext?.spanId).toBe(process.spanContext().spanId);
    expect(handler.parentSpanContext?.spanId).toBe(producerSpan.spanId);
    expect(process.links.map((l) => l.context.spanId)).toEqual([producerSpan.spanId]);
    expect(process.attributes).toMatchObject({
      'messaging.system': 'rocketmq',
      'messaging.destination.name': topic,
      'messaging.consumer.group.name': group,
      'messaging.rocketmq.consumption_model': 'clustering',
      'messaging.message.id': msgIds[0],
      'rocketmq_lambda.batch.status': 'SUCCESS',
    });
    expect(invoke.attributes).toMatchObject({
      'faas.invoked_name': functionName,
      'faas.invoked_provider': 'aws',
    });
    expect(api.calls(functionName).map((call) => call.traceHeader)).toEqual([xrayOf(invoke)]);
    expect(api.calls(functionName).map((call) => call.traceparent)).toEqual([
      `00-${traceId}-${invoke.spanContext().spanId}-01`,
    ]);
  });

  it('a batch of many traces: the process span links every message; each handler span continues its own producer', async () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const { api } = suite();
    const { client, topic, group } = await testTopic('otel', 1);
    const functionName = uniqueGroup('fn');
    const handlerTracer = trace.getTracer('test-handler');
    const batches: string[][] = [];
    api.register(functionName, (input) => {
      const event = parseEvent(input);
      // A batch handler: one span linking every record, and a span per record in its producer's trace.
      const links = event.Records.flatMap((r) => {
        const spanContext = recordSpanContext(r);
        return spanContext === undefined ? [] : [{ context: spanContext }];
      });
      handlerTracer.startSpan('handle batch', { links }, ROOT_CONTEXT).end();
      for (const record of event.Records) {
        const parent = propagation.extract(ROOT_CONTEXT, record.traceContext ?? {});
        handlerTracer.startSpan(`handle ${record.messageId}`, {}, parent).end();
      }
      batches.push(event.Records.map((r) => r.messageId));
      return { batchItemFailures: [] };
    });

    const producer = await newProducer(client);
    const { msgIds, producers } = await sendTraced(producer, topic, ['a', 'b', 'c'], false);
    expect(new Set(producers.map((p) => p.traceId)).size).toBe(3);
    // Sent before the poller starts: its first pull reads all three, one batch.
    await runPoller(lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName }));
    await waitFor('the function handled the messages', 30_000, () =>
      batches.flat().length >= 3 ? true : undefined,
    );
    expect(batches).toEqual([msgIds]);

    const process = await waitFor('the process span ended', 10_000, () =>
      sdk.spans().find((s) => s.name === `process ${topic}`),
    );
    const invoke = sdk.span(`invoke ${functionName}`);
    expect(process.parentSpanContext).toBeUndefined();
    expect(producers.map((p) => p.traceId)).not.toContain(process.spanContext().traceId);
    expect(process.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes])).toEqual(
      producers.map((p, i) => [p.traceId, p.spanId, { 'messaging.message.id': msgIds[i] }]),
    );
    expect(process.attributes['messaging.batch.message_count']).toBe(3);
    const receive = sdk.span(`receive ${topic}`);
    expect(receive.parentSpanContext).toBeUndefined();
    expect(receive.links.map((l) => l.context.spanId)).toEqual(producers.map((p) => p.spanId));
    expect(invoke.parentSpanContext?.spanId).toBe(process.spanContext().spanId);
    expect(sdk.span('handle batch').links.map((l) => l.context.spanId)).toEqual(
      producers.map((p) => p.spanId),
    );
    for (const [i, id] of msgIds.entries()) {
      const handler = sdk.span(`handle ${id}`);
      expect(handler.spanContext().traceId).toBe(producers[i]?.traceId);
      expect(handler.parentSpanContext?.spanId).toBe(producers[i]?.spanId);
    }
    expect(api.calls(functionName).map((call) => call.traceHeader)).toEqual([xrayOf(invoke)]);
  });

  it('a message failed once: its send-back to the retry topic is a settle span in the producer’s trace, its redelivery another receive', async () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const { api } = suite();
    const { client, topic, group } = await testTopic('otel', 1);
    const functionName = uniqueGroup('fn');
    const attempts: number[] = [];
    api.register(functionName, (input) => {
      const [record] = parseEvent(input).Records;
      attempts.push(record?.reconsumeTimes ?? -1);
      if (record?.reconsumeTimes === 0) throw new Error('downstream unavailable');
      return { batchItemFailures: [] };
    });
    const producer = await newProducer(client);
    const { msgIds, producers } = await sendTraced(producer, topic, ['{"order":2}'], true);
    const [producerSpan] = producers as [SpanContext];
    await runPoller(lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName }));
    await waitFor('the retry succeeded', 30_000, () => (attempts.length >= 2 ? true : undefined));
    const retryTopic = `%RETRY%${group}`;
    const redelivered = await waitFor('the retry’s receive span ended', 10_000, () =>
      sdk.spans().find((s) => s.name === `receive ${retryTopic}`),
    );
    expect(attempts).toEqual([0, 1]);

    const sendBack = sdk.span(`send_back ${topic}`);
    const traceId = producerSpan.traceId;
    expect(sendBack.spanContext().traceId).toBe(traceId);
    expect(sendBack.parentSpanContext?.spanId).toBe(producerSpan.spanId);
    expect(sendBack.kind).toBe(SpanKind.CLIENT);
    expect(sendBack.status.code).toBe(SpanStatusCode.UNSET);
    expect(sendBack.attributes).toMatchObject({
      'messaging.operation.type': 'settle',
      'messaging.operation.name': 'send_back',
      'messaging.destination.name': topic,
      'messaging.consumer.group.name': group,
      'messaging.message.id': msgIds[0],
    });
    // The first process span failed; the send-back ends after it began.
    const processes = sdk.spans().filter((s) => s.name === `process ${topic}`);
    expect(processes.map((s) => s.attributes['rocketmq_lambda.batch.status'])).toContain('FAILED');
    // The redelivered message still carries its producer's context (the broker keeps the properties).
    expect(redelivered.spanContext().traceId).toBe(traceId);
    expect(redelivered.links.map((l) => l.context.spanId)).toEqual([producerSpan.spanId]);
    expect(sdk.span(`receive ${topic}`).spanContext().traceId).toBe(traceId);
  });

  it('consumeMode POP: the pop that returned the message and its ack are spans in the producer’s trace', async () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const { api } = suite();
    const { client, topic, group } = await testTopic('otel', 1);
    const functionName = uniqueGroup('fn');
    const handled: string[] = [];
    api.register(functionName, (input) => {
      for (const record of parseEvent(input).Records) handled.push(record.messageId);
      return { batchItemFailures: [] };
    });
    const producer = await newProducer(client);
    const { msgIds, producers } = await sendTraced(producer, topic, ['{"order":3}'], true);
    const [producerSpan] = producers as [SpanContext];
    await runPoller(
      lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName, consumeMode: 'POP' }),
    );
    await waitFor('the function handled the message', 30_000, () => (handled.length >= 1 ? true : undefined));
    const ack = await waitFor('the ack span ended', 10_000, () =>
      sdk.spans().find((s) => s.name === `ack ${topic}`),
    );
    const receive = sdk.span(`receive ${topic}`);
    const process = sdk.span(`process ${topic}`);
    for (const span of [receive, process, ack]) {
      expect(span.spanContext().traceId).toBe(producerSpan.traceId);
      expect(span.parentSpanContext?.spanId).toBe(producerSpan.spanId);
    }
    expect(receive.attributes).toMatchObject({
      'rocketmq_lambda.receive.command': 'POP_MESSAGE',
      'messaging.message.id': msgIds[0],
    });
    expect(ack.attributes).toMatchObject({
      'messaging.operation.type': 'settle',
      'messaging.operation.name': 'ack',
      'messaging.message.id': msgIds[0],
    });
    expect(ack.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('without an SDK: no spans, the record carries its context and the invoke the X-Ray header of it', async () => {
    expect(trace.getTracerProvider().getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    const { api } = suite();
    const { client, topic, group } = await testTopic('otel', 1);
    const functionName = uniqueGroup('fn');
    const contexts: unknown[] = [];
    api.register(functionName, (input) => {
      for (const record of parseEvent(input).Records) contexts.push(record.traceContext);
      return { batchItemFailures: [] };
    });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const producer = await newProducer(client);
    await producer.send(
      { topic, body: 'x', properties: { traceparent, tracestate: 'congo=t61rcWkgMzE' } },
      { queueId: 0 },
    );
    await runPoller(lambdaConfig(suite(), { topic, consumerGroup: group, function: functionName }));
    await waitFor('the function handled the message', 30_000, () =>
      contexts.length >= 1 ? true : undefined,
    );
    expect(contexts).toEqual([{ traceparent, tracestate: 'congo=t61rcWkgMzE' }]);
    expect(api.calls(functionName).map((call) => [call.traceHeader, call.traceparent])).toEqual([
      ['Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=00f067aa0ba902b7;Sampled=1', traceparent],
    ]);
  });
});
