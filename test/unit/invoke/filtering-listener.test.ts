/**
 * The function listener with a mapping's filter criteria, against the Lambda Invoke API server: messages
 * that match no pattern are dropped before the invoke (never sent), succeed (so the consumer moves their
 * offsets) and are counted in the result's `filteredOut`; a batch filtered out whole takes no invoke. The
 * patterns see the record the function would receive (recordFields in src/invoke/event-builder.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConsumeContext, ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { compileFilter } from '../../../src/filter/message-filter.js';
import { recordText } from '../../../src/handler/record-body.js';
import { buildRecord, recordFields } from '../../../src/invoke/event-builder.js';
import {
  FunctionMessageListener,
  type FunctionMessageListenerOptions,
} from '../../../src/invoke/function-listener.js';
import { LambdaInvoker } from '../../../src/invoke/lambda-invoker.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';
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
const PAID = [{ body: { status: ['paid'] } }];

/** Message `id-<i>` with a JSON body of `status` (or the body given as text), tag and user properties. */
function message(
  i: number,
  status: string,
  more: { tags?: string; region?: string; storeTimestamp?: number; text?: string } = {},
): ConsumedMessage {
  return consumed({
    msgId: `id-${i}`,
    queueOffset: 100 + i,
    body: Buffer.from(more.text ?? JSON.stringify({ id: i, status })),
    properties: {
      UNIQ_KEY: `id-${i}`,
      ...(more.tags === undefined ? {} : { TAGS: more.tags }),
      ...(more.region === undefined ? {} : { region: more.region }),
    },
    ...(more.tags === undefined ? { tags: undefined } : { tags: more.tags }),
    ...(more.storeTimestamp === undefined ? {} : { storeTimestamp: more.storeTimestamp }),
  });
}

function listener(patterns: unknown[], options: Partial<FunctionMessageListenerOptions> = {}) {
  return new FunctionMessageListener({
    invoker,
    functionRef: 'orders',
    consumerGroup: 'orders-consumer',
    filter: compileFilter(patterns),
    ...options,
  });
}

/** The message ids each call of `orders` carried. */
function calledIds(): string[][] {
  return server.calls('orders').map((c) => (c.event as EventShape).Records.map((r) => r.messageId));
}

beforeEach(async () => {
  server = await LambdaApiServer.start();
  // Fails the records whose body says "fail".
  server.register('orders', (event: unknown) => {
    const records = (event as EventShape).Records;
    return {
      batchItemFailures: records
        .filter((r) => recordText(r).includes('"status":"fail"'))
        .map((r) => ({ itemIdentifier: r.messageId })),
    };
  });
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

describe('FunctionMessageListener with filters', () => {
  it('invokes only the matching messages of a partly filtered batch; the rest succeed as filtered out', async () => {
    const batch = [0, 1, 2, 3, 4, 5].map((i) => message(i, i % 2 === 0 ? 'paid' : 'open'));
    const result = await listener(PAID).consume(batch, concurrent);
    expect(calledIds()).toEqual([['id-0', 'id-2', 'id-4']]);
    expect(result).toEqual({ status: 'SUCCESS', filteredOut: 3 });
  });

  it('takes no invoke when the whole batch is filtered out', async () => {
    const batch = [0, 1, 2].map((i) => message(i, 'open'));
    const filtering = listener(PAID);
    expect(await filtering.consume(batch, concurrent)).toEqual({ status: 'SUCCESS', filteredOut: 3 });
    expect(server.calls('orders')).toHaveLength(0);
    expect(filtering.stats().invokes).toBe(0);
  });

  it('reports failures by the index in the whole batch, never a filtered-out message', async () => {
    const batch = [message(0, 'open'), message(1, 'paid'), message(2, 'open'), message(3, 'fail')];
    const result = await listener([{ body: { status: ['paid', 'fail'] } }]).consume(batch, concurrent);
    expect(calledIds()).toEqual([['id-1', 'id-3']]);
    expect(result).toMatchObject({ status: 'PARTIAL', failedIndexes: [3], filteredOut: 2 });
  });

  it('drops a filtered-out message rather than dead-lettering it for its age', async () => {
    const old = 1_000;
    const batch = [message(0, 'open', { storeTimestamp: old }), message(1, 'paid', { storeTimestamp: old })];
    const result = await listener(PAID, { maxRecordAgeSeconds: 60, nowMs: () => 1_700_000_000_000 }).consume(
      batch,
      concurrent,
    );
    expect(server.calls('orders')).toHaveLength(0);
    expect(result).toMatchObject({
      status: 'PARTIAL',
      failedIndexes: [1],
      deadLetter: [{ index: 1 }],
      filteredOut: 1,
    });
  });

  it("matches the record's metadata: tags, user properties, topic; a non-JSON body only by them", async () => {
    const batch = [
      message(0, 'paid', { tags: 'vip' }),
      message(1, 'open', { region: 'eu-west-1' }),
      message(2, 'open', { tags: 'plain', region: 'us-east-1' }),
      message(3, '', { tags: 'vip', text: 'not json' }),
      message(4, '', { text: 'not json' }),
    ];
    const patterns = [
      { tags: ['vip'], topic: ['orders'] },
      { properties: { region: [{ prefix: 'eu-' }] } },
      { body: { status: ['open'] }, tags: [null] },
    ];
    const result = await listener(patterns).consume(batch, concurrent);
    expect(calledIds()).toEqual([['id-0', 'id-1', 'id-3']]);
    expect(result).toEqual({ status: 'SUCCESS', filteredOut: 2 });
  });

  it('passes every message, with no filteredOut, when every one matches', async () => {
    const batch = [0, 1].map((i) => message(i, 'paid'));
    expect(await listener(PAID).consume(batch, concurrent)).toEqual({ status: 'SUCCESS' });
    expect(calledIds()).toEqual([['id-0', 'id-1']]);
  });
});

describe('recordFields', () => {
  it('is the record the function receives, without its body', () => {
    const one = message(7, 'paid', { tags: 'vip', region: 'eu' });
    const { body: _body, ...record } = buildRecord(one);
    expect(recordFields(one)).toEqual(record);
    expect(Object.keys(recordFields(one))).toEqual(Object.keys(record));
  });
});
