import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConsumeContext, ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { recordBody, recordText } from '../../../src/handler/record-body.js';
import type { FailureDestination } from '../../../src/invoke/failure-destination.js';
import type { FailureRecord } from '../../../src/invoke/failure-record.js';
import {
  FunctionMessageListener,
  type FunctionMessageListenerOptions,
} from '../../../src/invoke/function-listener.js';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import { LambdaInvoker } from '../../../src/invoke/lambda-invoker.js';
import { LAMBDA_MAX_PAYLOAD_BYTES } from '../../../src/invoke/payload-splitter.js';
import { LAMBDA_MAX_REQUEST_BYTES, LambdaApiServer } from '../../support/lambda-api-server.js';
import { consumed } from './consumed-message.js';

interface EventShape {
  Records: { messageId: string; body: string; bodyEncoding?: 'utf8' }[];
}

let server: LambdaApiServer;
let invoker: LambdaInvoker;

const concurrent: ConsumeContext = {
  consumerGroup: 'orders-consumer',
  orderly: false,
  signal: new AbortController().signal,
};
const orderly: ConsumeContext = { ...concurrent, orderly: true };

/** A message `id-<i>` whose body is `body` (a string, or a size in bytes of 'x'). */
function message(i: number, body: string | number, storeTimestamp = 1_700_000_000_000): ConsumedMessage {
  return consumed({
    msgId: `id-${i}`,
    queueOffset: 100 + i,
    storeTimestamp,
    body: typeof body === 'number' ? Buffer.alloc(body, 'x') : Buffer.from(body),
    properties: { UNIQ_KEY: `id-${i}` },
  });
}

/** Fails records whose body is 'fail' (batchItemFailures); throws when a record's body is 'poison'. */
function ordersHandler(event: unknown): unknown {
  const records = (event as EventShape).Records;
  const bodies = records.map((r) => recordText(r));
  if (bodies.includes('poison')) throw new Error('poison record');
  return {
    batchItemFailures: records
      .filter((_, i) => bodies[i] === 'fail')
      .map((r) => ({ itemIdentifier: r.messageId })),
  };
}

function listener(options: Partial<FunctionMessageListenerOptions> = {}): FunctionMessageListener {
  return new FunctionMessageListener({
    invoker,
    functionRef: 'orders',
    consumerGroup: 'orders-consumer',
    ...options,
  });
}

/** The message ids each call of `orders` carried. */
function calledIds(): string[][] {
  return server.calls('orders').map((c) => (c.event as EventShape).Records.map((r) => r.messageId));
}

beforeEach(async () => {
  server = await LambdaApiServer.start();
  server.register('orders', ordersHandler);
  invoker = new LambdaInvoker({
    ...server.clientOptions(),
    throttleInitialDelayMs: 1,
    throttleMaxDelayMs: 5,
  });
});

afterEach(async () => {
  await invoker.close();
  await server.close();
});

describe('FunctionMessageListener with the LambdaInvoker', () => {
  it('succeeds in one invoke when the handler reports no failures', async () => {
    const result = await listener().consume([message(0, 'a'), message(1, 'b')], concurrent);
    expect(result).toEqual({ status: 'SUCCESS' });
    expect(calledIds()).toEqual([['id-0', 'id-1']]);
  });

  it.each([
    ['an Unhandled FunctionError', { kind: 'function-error' as const }, /invoke failed \(function-error\)/],
    ['a Handled FunctionError', { kind: 'function-error' as const, handled: true }, /function-error/],
    ['a 5xx', { kind: 'server-error' as const, status: 502 }, /invoke failed \(server-error\).*HTTP 502/],
    ['a malformed response', { kind: 'malformed-response' as const }, /invoke failed \(malformed-response\)/],
  ])('fails the whole batch on %s', async (_, fault, reason) => {
    server.injectFaults('orders', fault);
    const result = await listener().consume([message(0, 'a'), message(1, 'b')], concurrent);
    expect(result).toMatchObject({ status: 'FAILED', reason: expect.stringMatching(reason) });
    expect(result).not.toHaveProperty('deadLetter');
  });

  it('fails the whole batch when the function hangs', async () => {
    await invoker.close();
    invoker = new LambdaInvoker({ ...server.clientOptions(), functionTimeoutMs: 100, timeoutMarginMs: 50 });
    server.injectFaults('orders', { kind: 'hang' });
    const result = await listener().consume([message(0, 'a')], concurrent);
    expect(result).toMatchObject({
      status: 'FAILED',
      reason: expect.stringContaining('invoke failed (timeout)'),
    });
  });

  it('waits out three throttles without failing anything, and counts them', async () => {
    server.injectFaults('orders', { kind: 'throttle' }, { kind: 'throttle' }, { kind: 'throttle' });
    const result = await listener().consume([message(0, 'a'), message(1, 'b')], concurrent);
    expect(result).toEqual({ status: 'SUCCESS' });
    expect(invoker.throttles).toBe(3);
    expect(server.calls('orders').map((c) => c.status)).toEqual([429, 429, 429, 200]);
  });

  it.each([
    ['the function does not exist', 'missing', undefined],
    ['access is denied', 'orders', { kind: 'access-denied' as const }],
  ])('throws a fatal InvokeError when %s', async (_, functionRef, fault) => {
    if (fault !== undefined) server.injectFaults('orders', fault);
    const error = await listener({ functionRef })
      .consume([message(0, 'a')], concurrent)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvokeError);
    expect(error).toMatchObject({ fatal: true });
  });

  it('delivers a 5 MB message and many 100 KB messages in requests within 6 MiB, in order', async () => {
    // 5,000,000 bytes of text: 6,666,668 as base64, so it travels as text, alone.
    const batch = [
      message(0, 100_000),
      message(1, 5_000_000),
      ...Array.from({ length: 60 }, (_, i) => message(i + 2, 100_000)),
    ];
    const target = listener();
    const result = await target.consume(batch, concurrent);
    expect(result).toEqual({ status: 'SUCCESS' });
    const calls = server.calls('orders');
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const call of calls) expect(call.payloadBytes).toBeLessThanOrEqual(LAMBDA_MAX_REQUEST_BYTES);
    expect(calls.every((c) => c.status === 200)).toBe(true);
    expect(calledIds().flat()).toEqual(batch.map((m) => m.message.msgId));
    expect(calledIds()[1]).toEqual(['id-1']);
    const large = (calls[1]?.event as EventShape | undefined)?.Records[0];
    if (large === undefined) throw new Error('no second invoke');
    expect(large.bodyEncoding).toBe('utf8');
    expect(recordBody(large).equals(batch[1]?.message.body ?? Buffer.alloc(0))).toBe(true);
    expect(target.stats()).toMatchObject({ invokes: calls.length, splitBatches: 1, deadLettered: 0 });
  });

  it('merges the results of sub-batches into indexes of the whole batch', async () => {
    const batch = Array.from({ length: 12 }, (_, i) => message(i, i % 5 === 3 ? 'fail' : 100_000 + i));
    // About 133 KB of event per 100 KB message: 4 to an invoke of at most 600 KB.
    const result = await listener({ maxPayloadBytes: 600_000 }).consume(batch, concurrent);
    expect(server.calls('orders').length).toBe(3);
    expect(result).toEqual({
      status: 'PARTIAL',
      failedIndexes: [3, 8],
      reason: expect.stringMatching(
        /^2 of 12 records failed \(3 invokes\): function reported 1 of \d records failed/,
      ),
    });
  });

  it('dead-letters a message too large for any invoke and delivers the rest', async () => {
    const batch = [message(0, 'a'), message(1, 8 * 1024 * 1024), message(2, 'fail')];
    const result = await listener().consume(batch, concurrent);
    expect(calledIds()).toEqual([['id-0', 'id-2']]);
    expect(result).toEqual({
      status: 'PARTIAL',
      failedIndexes: [1, 2],
      reason: expect.stringContaining('1 dead-lettered'),
      deadLetter: [
        {
          index: 1,
          reason: expect.stringMatching(
            /^record too large: its body is 8388608 bytes of UTF-8 text, in an event of 838\d{4} bytes as text \(11185\d{3} as base64\), over the 6291456-byte/,
          ),
        },
      ],
    });
  });

  it('delivers a 5,000,000-byte text body as text, and dead-letters a binary one without invoking', async () => {
    const text = message(0, 5_000_000);
    const binary = consumed({ msgId: 'id-1', queueOffset: 101, body: Buffer.alloc(5_000_000, 0xff) });
    const result = await listener().consume([text, binary], concurrent);
    expect(calledIds()).toEqual([['id-0']]);
    const call = server.calls('orders')[0];
    expect(call?.payloadBytes).toBeGreaterThan(5_000_000);
    expect(call?.payloadBytes).toBeLessThanOrEqual(LAMBDA_MAX_REQUEST_BYTES);
    expect(result).toMatchObject({
      status: 'PARTIAL',
      failedIndexes: [1],
      deadLetter: [
        {
          index: 1,
          reason: expect.stringMatching(
            /^record too large: its body is 5000000 bytes of binary data \(not valid UTF-8\)/,
          ),
        },
      ],
    });
    expect(LAMBDA_MAX_PAYLOAD_BYTES).toBe(LAMBDA_MAX_REQUEST_BYTES);
  });

  it('splits a batch the service refuses as too large, and dead-letters a message refused alone', async () => {
    await server.close();
    server = await LambdaApiServer.start({ maxRequestBytes: 3_000 });
    server.register('orders', ordersHandler);
    await invoker.close();
    invoker = new LambdaInvoker(server.clientOptions());
    const batch = [message(0, 900), message(1, 900), message(2, 3_000), message(3, 900)];
    const result = await listener().consume(batch, concurrent);
    expect(result).toMatchObject({
      status: 'PARTIAL',
      failedIndexes: [2],
      deadLetter: [
        { index: 2, reason: expect.stringMatching(/^record too large: an event of \d+ bytes was refused/) },
      ],
    });
    const delivered = server
      .calls('orders')
      .filter((c) => c.status === 200)
      .flatMap((c) => (c.event as EventShape).Records.map((r) => r.messageId));
    expect(delivered).toEqual(['id-0', 'id-1', 'id-3']);
  });

  it('bisects a failed batch down to the one poison record of 16', async () => {
    const batch = Array.from({ length: 16 }, (_, i) => message(i, i === 11 ? 'poison' : `ok-${i}`));
    const target = listener({ bisectBatchOnError: true });
    const result = await target.consume(batch, concurrent);
    expect(result).toEqual({
      status: 'PARTIAL',
      failedIndexes: [11],
      reason: expect.stringContaining('poison record'),
    });
    // 1 + 2 per level below (4 levels: 8, 4, 2, 1).
    expect(server.calls('orders').length).toBe(9);
    expect(target.stats().bisections).toBe(4);
  });

  it('without bisectBatchOnError fails the whole batch for one poison record', async () => {
    const batch = Array.from({ length: 16 }, (_, i) => message(i, i === 11 ? 'poison' : `ok-${i}`));
    expect(await listener().consume(batch, concurrent)).toMatchObject({ status: 'FAILED' });
    expect(server.calls('orders').length).toBe(1);
  });

  it('does not bisect a 5xx (the batch is not at fault)', async () => {
    server.injectFaults('orders', { kind: 'server-error' });
    const batch = Array.from({ length: 4 }, (_, i) => message(i, `ok-${i}`));
    expect(await listener({ bisectBatchOnError: true }).consume(batch, concurrent)).toMatchObject({
      status: 'FAILED',
    });
    expect(server.calls('orders').length).toBe(1);
  });

  it('in orderly mode stops at the first failure: later messages fail without an invoke', async () => {
    const batch = Array.from({ length: 16 }, (_, i) => message(i, i === 5 ? 'poison' : `ok-${i}`));
    const result = await listener({ bisectBatchOnError: true }).consume(batch, orderly);
    expect(result).toMatchObject({
      status: 'PARTIAL',
      failedIndexes: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    });
    // The whole batch, then halves 0-7, 0-3, 4-7, 4-5, 4, 5; nothing after the poison record again.
    expect(calledIds().map((ids) => ids.length)).toEqual([16, 8, 4, 4, 2, 1, 1]);
    expect(calledIds().at(-1)).toEqual(['id-5']);
    expect(
      calledIds()
        .flat()
        .filter((id) => id === 'id-8'),
    ).toHaveLength(1);
  });

  it('in orderly mode a dead-lettered message does not hold back the messages after it', async () => {
    const batch = [message(0, 'a'), message(1, 7_000_000), message(2, 'b')];
    const result = await listener().consume(batch, orderly);
    expect(calledIds()).toEqual([['id-0', 'id-2']]);
    expect(result).toMatchObject({ status: 'PARTIAL', failedIndexes: [1], deadLetter: [{ index: 1 }] });
  });

  it('dead-letters records older than maxRecordAgeSeconds and invokes the rest', async () => {
    const nowMs = 1_700_000_100_000;
    const batch = [
      message(0, 'a', nowMs - 61_000),
      message(1, 'b', nowMs - 59_000),
      message(2, 'c', nowMs - 3_600_000),
    ];
    const result = await listener({ maxRecordAgeSeconds: 60, nowMs: () => nowMs }).consume(batch, concurrent);
    expect(calledIds()).toEqual([['id-1']]);
    expect(result).toMatchObject({
      status: 'PARTIAL',
      failedIndexes: [0, 2],
      deadLetter: [
        { index: 0, reason: expect.stringMatching(/^record too old/) },
        { index: 2, reason: expect.stringMatching(/^record too old/) },
      ],
    });
    const off = await listener({ maxRecordAgeSeconds: -1, nowMs: () => nowMs }).consume(batch, concurrent);
    expect(off).toEqual({ status: 'SUCCESS' });
  });

  it('reports dead-lettered and finally failed messages to the failure destination', async () => {
    const records: FailureRecord[] = [];
    const sentWith: string[][] = [];
    const destination: FailureDestination = {
      arn: 'arn:aws:sqs:us-east-1:123456789012:failures',
      async send(record, messages) {
        records.push(record);
        sentWith.push(messages.map((consumed) => consumed.message.msgId));
      },
      async close() {
        // nothing to release
      },
    };
    const nowMs = 1_700_000_100_000;
    const target = listener({
      maxRecordAgeSeconds: 60,
      nowMs: () => nowMs,
      failureDestination: destination,
      functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:orders',
    });
    const batch = [message(0, 'a', nowMs - 120_000), message(1, 7_000_000, nowMs), message(2, 'b', nowMs)];
    await target.consume(batch, concurrent);
    expect(
      records.map((r) => [r.requestContext.condition, r.rocketMQBatchInfo.queues[0]?.messageIds]),
    ).toEqual([
      ['RecordAgeExceeded', ['id-0']],
      ['PayloadSizeExceeded', ['id-1']],
    ]);
    expect(records[0]?.requestContext.functionArn).toBe(
      'arn:aws:lambda:us-east-1:123456789012:function:orders',
    );
    expect(records[1]?.responseContext.reason).toMatch(/^record too large/);

    await target.notifyFinalFailure([message(2, 'b', nowMs)], 'invoke failed (timeout): no answer');
    expect(records[2]).toMatchObject({
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 1 },
      responseContext: { reason: 'invoke failed (timeout): no answer' },
      rocketMQBatchInfo: { consumerGroup: 'orders-consumer', batchSize: 1 },
    });
    // Each record travels with the messages it was built from (an S3 destination writes each whole).
    expect(sentWith).toEqual([['id-0'], ['id-1'], ['id-2']]);
  });

  it('keeps consuming when the failure destination cannot be reached', async () => {
    const destination: FailureDestination = {
      arn: 'arn:aws:sns:us-east-1:123456789012:failures',
      send: async () => {
        throw new Error('unreachable');
      },
      async close() {
        // nothing to release
      },
    };
    const result = await listener({ failureDestination: destination }).consume(
      [message(0, 7_000_000), message(1, 'a')],
      concurrent,
    );
    expect(result).toMatchObject({ status: 'PARTIAL', failedIndexes: [0], deadLetter: [{ index: 0 }] });
    await expect(
      listener({ failureDestination: destination }).notifyFinalFailure([message(1, 'a')], 'x'),
    ).resolves.toBe(undefined);
  });
});
