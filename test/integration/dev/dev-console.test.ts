import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient } from '../consumer/helpers.js';
import { type DevProcess, spawnDev } from './dev-process.js';
import { printedConsoleUrl, writeTempService } from './temp-service.js';

/**
 * Echoes each record's body, fails a record whose body says `failTimes: n` on its key's first n
 * deliveries, and answers the totals it saw.
 */
const HANDLER = `const attempts = new Map<string, number>();

interface EventRecord { messageId: string; keys: string[]; body: string }

export const handler = async (event: { Records: EventRecord[] }) => {
  const batchItemFailures: { itemIdentifier: string }[] = [];
  const totals: unknown[] = [];
  for (const record of event.Records) {
    const body = JSON.parse(Buffer.from(record.body, 'base64').toString('utf8'));
    console.log(JSON.stringify({ handler: 'orders', messageId: record.messageId, body }));
    totals.push(body.total ?? null);
    if (typeof body.failTimes === 'number') {
      const key = record.keys[0] ?? record.messageId;
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      if (n <= body.failTimes) {
        console.error('failing ' + key + ' (attempt ' + n + ')');
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
  }
  return { batchItemFailures, totals };
};
`;

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON answers, read by the assertions.
type Json = Record<string, any>;

describe('the dev console API', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let dev: DevProcess;
  let base: string;
  const ordersTopic = uniqueTopic('ConsoleOrders');
  const auditTopic = uniqueTopic('ConsoleAudit');
  const ordersGroup = `${ordersTopic}_group`;

  const get = async (pathname: string, status = 200): Promise<Json> => {
    const response = await fetch(`${base}${pathname}`);
    const body = (await response.json()) as Json;
    expect({ status: response.status, body }).toMatchObject({ status });
    return body;
  };
  const post = async (pathname: string, body: unknown, status = 200): Promise<Json> => {
    const response = await fetch(`${base}${pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Json;
    expect({ status: response.status, answer }).toMatchObject({ status });
    return answer;
  };
  /** Polls `read` every 200 ms until `done` says yes (the step timeout of the test bounds it). */
  const eventually = async <T>(
    what: string,
    read: () => Promise<T>,
    done: (value: T) => boolean,
  ): Promise<T> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const send = (body: unknown, extra: Json = {}) =>
    post('/api/send', { topic: ordersTopic, body: JSON.stringify(body), ...extra });

  beforeAll(async () => {
    const { namesrvAddr } = testBroker();
    const client = newClient();
    cleanups.push(() => client.close());
    await createTopic(client, ordersTopic, 1);
    await createTopic(client, auditTopic, 1);

    const service = await writeTempService('console', { 'src/orders.ts': HANDLER }, [
      'service: console-test',
      'functions:',
      '  orders:',
      '    handler: dist/orders.handler',
      '    events:',
      '      - rocketmq:',
      `          topic: ${ordersTopic}`,
      `          consumerGroup: ${ordersGroup}`,
      '          batchSize: 1',
      '          maxReconsumeTimes: 1',
      '          startingPosition: TRIM_HORIZON',
      '      - rocketmq:',
      `          topic: ${auditTopic}`,
      `          consumerGroup: ${auditTopic}_group`,
      '          startingPosition: TRIM_HORIZON',
      '          filters:',
      '            - body:',
      '                audited: [true]',
    ]);
    cleanups.push(() => service.remove());
    dev = spawnDev(['--config', service.configFile, '--name-server', namesrvAddr]);
    cleanups.push(() => dev.kill());
    await dev.watch.waitFor('dev to start', (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops');
    const url = printedConsoleUrl(dev);
    if (url === undefined)
      throw new Error(`dev printed no console line:\n${dev.watch.raw.slice(0, 10).join('\n')}`);
    base = url.slice(0, -1);
    // The mappings hold their queues before anything is sent.
    await eventually(
      'both mappings to hold their queues',
      () => get('/api/state'),
      (state) =>
        state.mappings.every((m: Json) => m.queues.some((q: Json) => !q.topic.startsWith('%RETRY%'))),
    );
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('lists the mappings in the state', async () => {
    const state = await get('/api/state');
    expect(state.mappings).toEqual([
      expect.objectContaining({
        id: expect.any(String),
        functionName: 'orders',
        topic: ordersTopic,
        group: ordersGroup,
        mode: 'concurrent',
        filters: false,
        health: { healthy: true },
      }),
      expect.objectContaining({ functionName: 'orders', topic: auditTopic, filters: true }),
    ]);
    expect(state.mappings[0].queues).toContainEqual(
      expect.objectContaining({ topic: ordersTopic, queueId: 0, inFlight: expect.any(Number) }),
    );
  });

  it('shows a sent message as an invocation with its decoded body, response and logs', async () => {
    const sent = await send(
      { orderId: 1, total: 12.5 },
      { tags: 'created', keys: ['order-1'], properties: { region: 'eu' } },
    );
    expect(sent).toMatchObject({
      messageId: expect.any(String),
      queueId: 0,
      queueOffset: expect.any(Number),
    });
    const { invocations } = await eventually(
      'the invocation of the sent message',
      () => get(`/api/invocations?messageId=${sent.messageId}`),
      (answer) => answer.invocations.some((s: Json) => s.outcome === 'succeeded'),
    );
    const invocation = await get(`/api/invocations/${invocations[0].id}`);
    expect(invocation).toMatchObject({
      outcome: 'succeeded',
      recordCount: 1,
      messageIds: [sent.messageId],
      response: { kind: 'result', value: { batchItemFailures: [], totals: [12.5] } },
      records: [
        {
          messageId: sent.messageId,
          keys: ['order-1'],
          tags: 'created',
          topic: ordersTopic,
          queueId: 0,
          queueOffset: sent.queueOffset,
          reconsumeTimes: 0,
          body: { kind: 'json', json: { orderId: 1, total: 12.5 } },
          outcome: 'succeeded',
        },
      ],
      logsTruncated: false,
    });
    expect(invocation.event.Records[0].properties).toEqual({ region: 'eu' });
    expect(invocation.logs).toEqual([
      expect.objectContaining({ level: 'log', text: expect.stringContaining('"orderId":1') }),
    ]);
    expect((await get('/api/invocations?key=order-1')).invocations.map((s: Json) => s.id)).toContain(
      invocation.id,
    );
  });

  it('replays an edited event against the handler: its new answer, nothing sent back', async () => {
    const [latest] = (await get('/api/invocations?outcome=succeeded&limit=1')).invocations;
    const original = await get(`/api/invocations/${latest.id}`);
    const before = (await get('/api/state')).mappings[0];
    const edited = structuredClone(original.event);
    edited.Records[0].body = Buffer.from(JSON.stringify({ total: 99, failTimes: 5 })).toString('base64');
    edited.Records[0].keys = ['replayed-key'];
    const { invocation } = await post(`/api/invocations/${original.id}/replay`, { event: edited });
    expect(invocation).toMatchObject({
      replayOf: original.id,
      outcome: 'failed',
      response: {
        kind: 'result',
        value: { batchItemFailures: [{ itemIdentifier: original.messageIds[0] }], totals: [99] },
      },
      records: [{ body: { kind: 'json', json: { total: 99, failTimes: 5 } }, outcome: 'failed' }],
    });
    expect(
      (await post(`/api/invocations/${original.id}/replay`, {})).invocation.response.value.totals,
    ).toEqual(original.response.value.totals);
    // A replay's failure is not a retry: nothing was sent back, the message was not consumed again.
    const after = (await get('/api/state')).mappings[0];
    expect({ retries: after.retries, invocations: after.invocations }).toEqual({
      retries: before.retries,
      invocations: before.invocations,
    });
    const way = await get(`/api/messages/${original.messageIds[0]}`);
    expect(way).toMatchObject({ endedAs: 'succeeded', retries: 0 });
    expect(way.invocations.map((s: Json) => s.id)).toEqual([original.id]);
  });

  it('retries a failing message, then dead-letters it, and a redrive of the dead letter is handled', async () => {
    const sent = await send({ orderId: 2, failTimes: 2 }, { keys: ['order-2'] });
    // The first delivery fails (retry after the broker's delay level 3: 10 s), the second reaches the
    // retry limit (maxReconsumeTimes 1) and goes to %DLQ%.
    const way = await eventually(
      'the message to be dead-lettered',
      () => get(`/api/messages/${sent.messageId}`),
      (answer) => answer.endedAs === 'dead-lettered',
    );
    expect(way.retries).toBe(1);
    expect(way.invocations).toHaveLength(2);
    const [first, second] = await Promise.all(
      way.invocations.map((s: Json) => get(`/api/invocations/${s.id}`)),
    );
    expect(first.records[0]).toMatchObject({ outcome: 'retried', reconsumeTimes: 0 });
    expect(second.records[0]).toMatchObject({ outcome: 'dead-lettered', reconsumeTimes: 1 });
    expect(second.logs).toContainEqual(
      expect.objectContaining({ level: 'error', text: 'failing order-2 (attempt 2)' }),
    );
    expect(
      (await get(`/api/invocations?outcome=dead-lettered`)).invocations.map((s: Json) => s.id),
    ).toContain(second.id);

    const { messages } = await eventually(
      'the dead letter in the DLQ',
      () => get(`/api/dead-letters?group=${ordersGroup}`),
      (answer) => answer.messages.some((m: Json) => m.messageId === sent.messageId),
    );
    expect(messages.find((m: Json) => m.messageId === sent.messageId)).toMatchObject({
      keys: ['order-2'],
      originTopic: ordersTopic,
      body: { kind: 'json', json: { orderId: 2, failTimes: 2 } },
    });
    const redrive = await post('/api/dead-letters/redrive', {
      group: ordersGroup,
      messageIds: [sent.messageId, 'NOT-A-DEAD-LETTER'],
    });
    expect(redrive).toMatchObject({
      redriven: [{ messageId: sent.messageId, newMessageId: expect.any(String) }],
      skipped: [{ messageId: 'NOT-A-DEAD-LETTER', reason: expect.stringContaining('not a dead letter') }],
    });
    // The third delivery (the redriven copy) succeeds.
    await eventually(
      'the redriven message to be handled',
      () => get('/api/invocations?key=order-2&outcome=succeeded'),
      (answer) => answer.invocations.length > 0,
    );
  }, 120_000);

  it('lists a message the filters drop as filtered', async () => {
    const sent = await post('/api/send', { topic: auditTopic, body: JSON.stringify({ audited: false }) });
    const way = await eventually(
      'the message to be filtered',
      () => get(`/api/messages/${sent.messageId}`),
      (answer) => answer.endedAs === 'filtered',
    );
    expect(way.invocations).toEqual([]);
    const { messages } = await get(`/api/filtered?limit=10`);
    expect(messages).toContainEqual(
      expect.objectContaining({
        messageId: sent.messageId,
        topic: auditTopic,
        body: { kind: 'json', json: { audited: false } },
      }),
    );
  });

  it('answers bad requests with errors naming what is wrong', async () => {
    expect((await get('/api/invocations/i0', 404)).error).toContain('no invocation "i0"');
    expect((await get('/api/dead-letters?group=nope', 400)).error).toContain(`the groups are ${ordersGroup}`);
    expect((await post('/api/send', { topic: ordersTopic, body: 'x', keys: ['a b'] }, 400)).error).toBe(
      'keys "a b": a key cannot be empty or contain spaces (RocketMQ separates keys with spaces); give each key as an item of keys',
    );
  });
});
