/**
 * The consumer layer's spans (receive, settle) with a real OpenTelemetry SDK in memory, none without
 * one, and consumption going on when the SDK throws.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { MessageSendBack } from '../../../src/consumer/consume/message-send-back.js';
import { newConsumerCounters } from '../../../src/consumer/consumer-counters.js';
import {
  messageSpanContext,
  receiveStartTime,
  startSettle,
  traceReceive,
} from '../../../src/consumer/consumer-tracing.js';
import { PopBatchSettler } from '../../../src/consumer/pop/pop-batch-settler.js';
import { newPopCounters } from '../../../src/consumer/pop/pop-status.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { componentLogger } from '../../../src/util/logger.js';
import { MAX_SPAN_LINKS } from '../../../src/util/otel-tracer.js';
import { registerTestSdk, registerThrowingSdk } from '../../support/otel-sdk.js';
import { messageExt } from '../invoke/consumed-message.js';
import { popDelivery } from './pop/pop-delivery.js';

const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const target = { consumerGroup: 'orders-consumer', messageModel: 'CLUSTERING' } as const;

/** A message `id`, carrying `parent` as its traceparent when given. */
function message(id: string, parent?: string): MessageExt {
  return messageExt({
    msgId: id,
    properties: { UNIQ_KEY: id, ...(parent === undefined ? {} : { traceparent: parent }) },
  });
}

function sendBackWith(fails: boolean): MessageSendBack {
  return new MessageSendBack({
    broker: {
      consumerSendMsgBack: async () => {
        if (fails) throw new Error('connection refused');
      },
    },
    masterAddress: () => '127.0.0.1:10911',
    consumerGroup: 'orders-consumer',
    maxReconsumeTimes: 16,
  });
}

describe('without an OpenTelemetry SDK', () => {
  it('makes nothing: no receive start, no settle span', async () => {
    expect(receiveStartTime()).toBeUndefined();
    expect(startSettle(target, 'ack', 'orders', [message('m1')])).toBeUndefined();
    await sendBackWith(false).sendBack(
      message('m1'),
      { topic: 'orders', brokerName: 'b', queueId: 0 },
      'orders',
      0,
    );
  });
});

describe('receive spans', () => {
  it('a receive of one trace is a CLIENT child of the first message’s context, linking each message', () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const startedAt = receiveStartTime();
    expect(startedAt).toBeTypeOf('number');
    const messages = [
      message('m1', traceparent(TRACE_A, '1'.repeat(16))),
      message('m2'),
      message('m3', traceparent(TRACE_A, '2'.repeat(16))),
    ];
    traceReceive(target, { topic: 'orders', queueId: 3, command: 'PULL_MESSAGE' }, messages, startedAt ?? 0);
    const span = sdk.span('receive orders');
    expect(span.kind).toBe(2); // SpanKind.CLIENT
    expect(span.spanContext().traceId).toBe(TRACE_A);
    expect(span.parentSpanContext?.spanId).toBe('1'.repeat(16));
    expect(span.links.map((l) => [l.context.spanId, l.attributes])).toEqual([
      ['1'.repeat(16), { 'messaging.message.id': 'm1' }],
      ['2'.repeat(16), { 'messaging.message.id': 'm3' }],
    ]);
    expect(span.attributes).toEqual({
      'messaging.system': 'rocketmq',
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'receive',
      'messaging.destination.name': 'orders',
      'messaging.consumer.group.name': 'orders-consumer',
      'messaging.rocketmq.consumption_model': 'clustering',
      'messaging.batch.message_count': 3,
      'messaging.destination.partition.id': '3',
      'rocketmq_lambda.receive.command': 'PULL_MESSAGE',
    });
  });

  it('a receive of many traces starts its own trace and links them, at most 128', () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const messages = Array.from({ length: MAX_SPAN_LINKS + 2 }, (_, i) =>
      message(`m${i}`, traceparent(i % 2 === 0 ? TRACE_A : TRACE_B, (i + 1).toString(16).padStart(16, '0'))),
    );
    traceReceive(target, { topic: 'orders', command: 'POP_MESSAGE' }, messages, receiveStartTime() ?? 0);
    const span = sdk.span('receive orders');
    expect(span.parentSpanContext).toBeUndefined();
    expect([TRACE_A, TRACE_B]).not.toContain(span.spanContext().traceId);
    expect(span.links).toHaveLength(MAX_SPAN_LINKS);
    expect(span.attributes['rocketmq_lambda.links_dropped']).toBe(2);
    expect(span.attributes['messaging.destination.partition.id']).toBeUndefined();
  });

  it('makes no span for a receive that returned nothing, and ignores invalid traceparents', () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    traceReceive(target, { topic: 'orders', command: 'POP_MESSAGE' }, [], receiveStartTime() ?? 0);
    expect(sdk.spans()).toEqual([]);
    const bad = message('m1', `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`);
    expect(messageSpanContext(bad)).toBeUndefined();
    traceReceive(target, { topic: 'orders', command: 'POP_MESSAGE' }, [bad], receiveStartTime() ?? 0);
    const span = sdk.span('receive orders');
    expect(span.links).toEqual([]);
    expect(span.attributes['messaging.message.id']).toBe('m1');
  });
});

describe('settle spans', () => {
  it('a send-back is a send_back span in the message’s trace; a refused one ends in ERROR', async () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const queue = { topic: 'orders', brokerName: 'b', queueId: 0 };
    await sendBackWith(false).sendBack(
      message('m1', traceparent(TRACE_A, '1'.repeat(16))),
      queue,
      'orders',
      0,
    );
    await expect(sendBackWith(true).sendBack(message('m2'), queue, 'orders', -1)).rejects.toThrow(
      'connection refused',
    );
    const [ok, refused] = sdk.spans();
    expect(ok?.name).toBe('send_back orders');
    expect(ok?.spanContext().traceId).toBe(TRACE_A);
    expect(ok?.parentSpanContext?.spanId).toBe('1'.repeat(16));
    expect(ok?.status.code).toBe(0);
    expect(ok?.attributes).toMatchObject({
      'messaging.operation.type': 'settle',
      'messaging.operation.name': 'send_back',
      'messaging.message.id': 'm1',
      'rocketmq_lambda.settle.delay_level': 0,
    });
    expect(refused?.status).toEqual({ code: 2, message: 'the broker call failed' });
    expect(refused?.attributes['rocketmq_lambda.settle.delay_level']).toBe(-1);
  });

  it('a POP batch settles in an ack span per ack, a change_invisible_time per retry, a send_back per dead letter', async () => {
    const sdk = registerTestSdk();
    onTestFinished(() => sdk.stop());
    const settler = new PopBatchSettler({
      pop: { ackMessage: async () => 'OK', changeInvisibleTime: async () => ({ status: 'GONE' }) },
      broker: { consumerSendMsgBack: async () => undefined },
      listener: { consume: async () => ({ status: 'SUCCESS' }) },
      consumerGroup: 'G',
      topic: 'orders',
      maxReconsumeTimes: 2,
      retryDelaysMs: [1000, 5000],
      counters: newConsumerCounters(),
      popCounters: newPopCounters(),
      log: componentLogger('test'),
    });
    const batch = [popDelivery(0, 0), popDelivery(1, 1), popDelivery(2, 2)];
    await settler.settle('b:1', batch, { status: 'PARTIAL', failedIndexes: [1, 2], reason: 'x' });
    const names = sdk.spans().map((s) => `${s.name} ${s.attributes['messaging.message.id']}`);
    expect(names.sort()).toEqual([
      'ack orders id-0',
      'ack orders id-2',
      'change_invisible_time orders id-1',
      'send_back orders id-2',
    ]);
    const change = sdk.span('change_invisible_time orders');
    expect(change.attributes['rocketmq_lambda.settle.invisible_time_ms']).toBe(5000);
  });
});

describe('with an SDK that throws', () => {
  it('receives and settles without spans', async () => {
    const throwing = registerThrowingSdk();
    onTestFinished(() => throwing.stop());
    const messages = [message('m1', traceparent(TRACE_A, '1'.repeat(16)))];
    expect(() =>
      traceReceive(target, { topic: 'orders', command: 'POP_MESSAGE' }, messages, receiveStartTime() ?? 0),
    ).not.toThrow();
    expect(startSettle(target, 'ack', 'orders', messages)).toBeUndefined();
    const queue = { topic: 'orders', brokerName: 'b', queueId: 0 };
    await expect(
      sendBackWith(false).sendBack(messages[0] as MessageExt, queue, 'orders', 0),
    ).resolves.toBeUndefined();
  });
});
