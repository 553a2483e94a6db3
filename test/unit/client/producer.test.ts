import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BrokerClient } from '../../../src/client/broker-client.js';
import { NameServerClient } from '../../../src/client/name-server-client.js';
import {
  BATCH_ANSWER_BYTES_PER_MESSAGE,
  MAX_BATCH_MESSAGES,
  Producer,
} from '../../../src/client/producer.js';
import { RocketMQError } from '../../../src/errors.js';
import { MAX_HEADER_BYTES } from '../../../src/protocol/header-limits.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';
import { type FakeReply, FakeTransport, type SentRequest } from './fake-transport.js';

const route = (topic: string, queues: number) =>
  Buffer.from(
    JSON.stringify({
      brokerDatas: [{ brokerAddrs: { '0': '127.0.0.1:10911' }, brokerName: 'broker-a', cluster: 'C' }],
      queueDatas: [
        { brokerName: 'broker-a', perm: 6, readQueueNums: queues, writeQueueNums: queues, topicSysFlag: 0 },
      ],
      topic,
    }),
  );

/** A fake name server + broker: routes for T (4 queues) and TBW102 (8 queues); sends answer via `onSend`. */
function setup(onSend: (sent: SentRequest) => FakeReply = (s) => ok(s)) {
  const transport = new FakeTransport((sent) => {
    if (sent.request.code === 105) {
      const topic = sent.request.extFields?.topic ?? '';
      if (topic === 'T') return { code: 0, body: route('T', 4) };
      if (topic === 'TBW102') return { code: 0, body: route('TBW102', 8) };
      return { code: 17 };
    }
    return onSend(sent);
  });
  const client = {
    nameServer: new NameServerClient({ addresses: 'ns:9876', transport }),
    broker: new BrokerClient({ transport }),
  };
  const sends = () => transport.sent.filter((s) => s.request.code !== 105);
  return { transport, client, sends };
}

function ok(sent: SentRequest): FakeReply {
  return {
    code: 0,
    extFields: { msgId: 'OFF', queueId: sent.request.extFields?.e ?? '0', queueOffset: '9' },
  };
}

describe('Producer', () => {
  it('refuses to send before start and after shutdown', async () => {
    const producer = new Producer({ client: setup().client });
    await expect(producer.send({ topic: 'T', body: 'x' })).rejects.toBeInstanceOf(RocketMQError);
    await producer.start();
    await producer.shutdown();
    await expect(producer.send({ topic: 'T', body: 'x' })).rejects.toThrow(/not started/);
  });

  it('round-robins over the writable queues and sets UNIQ_KEY, WAIT, TAGS and KEYS', async () => {
    const { client, sends } = setup();
    const producer = new Producer({ client });
    await producer.start();
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(
        await producer.send({
          topic: 'T',
          body: 'hi',
          tags: 'TagA',
          keys: ['k1', 'k2'],
          properties: { a: 'b' },
        }),
      );
    }
    expect(sends().map((s) => s.request.extFields?.e)).toEqual(['0', '1', '2', '3', '0']);
    const first = sends()[0]?.request;
    expect(first?.code).toBe(310);
    expect(first?.extFields).toMatchObject({
      a: 'ROCKETMQ_LAMBDA_PRODUCER',
      b: 'T',
      c: 'TBW102',
      d: '4',
      f: '0',
      n: 'broker-a',
    });
    const props = decodeProperties(first?.extFields?.i ?? '');
    expect(props).toMatchObject({ TAGS: 'TagA', KEYS: 'k1 k2', WAIT: 'true', a: 'b' });
    expect(props.UNIQ_KEY).toBe(results[0]?.msgId);
    expect(results[0]).toMatchObject({
      status: 'SEND_OK',
      offsetMsgId: 'OFF',
      queueOffset: 9,
      brokerName: 'broker-a',
    });
    expect(new Set(results.map((r) => r.msgId)).size).toBe(5);
  });

  it('sends to the given queue', async () => {
    const { client, sends } = setup();
    const producer = new Producer({ client });
    await producer.start();
    expect((await producer.send({ topic: 'T', body: 'x' }, { queueId: 2 })).queueId).toBe(2);
    await expect(producer.send({ topic: 'T', body: 'x' }, { queueId: 9 })).rejects.toBeInstanceOf(
      RocketMQError,
    );
    expect(sends()).toHaveLength(1);
  });

  it('compresses bodies of 4 KiB and more with zlib and flags them', async () => {
    const { client, sends } = setup();
    const producer = new Producer({ client });
    await producer.start();
    const large = Buffer.alloc(4096, 'a');
    await producer.send({ topic: 'T', body: Buffer.alloc(4095, 'a') });
    await producer.send({ topic: 'T', body: large });
    const [small, big] = sends();
    expect(small?.request.extFields?.f).toBe('0');
    expect(small?.request.body?.length).toBe(4095);
    expect(big?.request.extFields?.f).toBe(String(0x301));
    expect(inflateSync(big?.request.body ?? Buffer.alloc(0)).equals(large)).toBe(true);
  });

  it('rejects bodies over maxMessageBytes without sending', async () => {
    const { client, sends } = setup();
    const producer = new Producer({ client, maxMessageBytes: 10 });
    await producer.start();
    await expect(producer.send({ topic: 'T', body: 'x'.repeat(11) })).rejects.toThrow(
      /11 bytes for topic T exceeds maxMessageBytes 10/,
    );
    expect(sends()).toHaveLength(0);
  });

  it('retries retriable errors on the next queue, at most twice', async () => {
    let failures = 2;
    const { client, sends } = setup((sent) => (failures-- > 0 ? { code: 2, remark: 'busy' } : ok(sent)));
    const producer = new Producer({ client });
    await producer.start();
    expect((await producer.send({ topic: 'T', body: 'x' })).queueId).toBe(2);
    expect(sends().map((s) => s.request.extFields?.e)).toEqual(['0', '1', '2']);

    const always = setup(() => ({ code: 2 }));
    const p2 = new Producer({ client: always.client });
    await p2.start();
    await expect(p2.send({ topic: 'T', body: 'x' })).rejects.toMatchObject({ code: 2 });
    expect(always.sends()).toHaveLength(3);
  });

  it('does not retry non-retriable errors', async () => {
    const { client, sends } = setup(() => ({ code: 13, remark: 'illegal' }));
    const producer = new Producer({ client });
    await producer.start();
    await expect(producer.send({ topic: 'T', body: 'x' })).rejects.toMatchObject({
      code: 13,
      retriable: false,
    });
    expect(sends()).toHaveLength(1);
  });

  it('sends to a topic without a route through the TBW102 template with at most 4 queues', async () => {
    const { client, sends } = setup();
    const producer = new Producer({ client });
    await producer.start();
    for (let i = 0; i < 5; i++) await producer.send({ topic: 'NEW', body: 'x' });
    expect(sends().map((s) => [s.request.extFields?.b, s.request.extFields?.e])).toEqual([
      ['NEW', '0'],
      ['NEW', '1'],
      ['NEW', '2'],
      ['NEW', '3'],
      ['NEW', '0'],
    ]);
  });

  it('sends a batch as SEND_BATCH_MESSAGE with m=true and per-message UNIQ_KEYs', async () => {
    const { client, sends } = setup();
    const producer = new Producer({ client });
    await producer.start();
    const result = await producer.sendBatch([
      { topic: 'T', body: 'one', tags: 'A' },
      { topic: 'T', body: 'two', keys: 'k' },
    ]);
    expect(result.msgIds).toHaveLength(2);
    const request = sends()[0]?.request;
    expect(request?.code).toBe(320);
    expect(request?.extFields).toMatchObject({ m: 'true', f: '0' });
    expect(decodeProperties(request?.extFields?.i ?? '')).toEqual({ WAIT: 'true' });
    expect(result.msgId).toBe(result.msgIds.join(','));
    const body = request?.body ?? Buffer.alloc(0);
    for (const id of result.msgIds) expect(body.includes(Buffer.from(id))).toBe(true);
    await expect(
      producer.sendBatch([
        { topic: 'T', body: 'a' },
        { topic: 'U', body: 'b' },
      ]),
    ).rejects.toBeInstanceOf(RocketMQError);
  });

  it('refuses, before sending, a batch whose answer could pass the cap on incoming headers', async () => {
    // The worst case: an IPv6 broker's answer lists 57 bytes per message.
    expect(BATCH_ANSWER_BYTES_PER_MESSAGE).toBe(57);
    expect(MAX_BATCH_MESSAGES * BATCH_ANSWER_BYTES_PER_MESSAGE).toBeLessThanOrEqual(MAX_HEADER_BYTES);
    expect((MAX_BATCH_MESSAGES + 1) * BATCH_ANSWER_BYTES_PER_MESSAGE).toBeGreaterThan(
      MAX_HEADER_BYTES - 4096,
    );
    const { client, sends } = setup();
    // A broker with a larger maxMessageSize takes the body: only the answer is in the way.
    const producer = new Producer({ client, maxMessageBytes: 64 * 1024 * 1024 });
    await producer.start();
    const batch = (count: number) => Array.from({ length: count }, () => ({ topic: 'T', body: 'x' }));

    const refused = await producer.sendBatch(batch(MAX_BATCH_MESSAGES + 1)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RocketMQError);
    expect((refused as RocketMQError).retriable).toBe(false);
    expect((refused as Error).message).toContain(`a batch of ${MAX_BATCH_MESSAGES + 1} messages is too many`);
    expect((refused as Error).message).toContain(`${MAX_HEADER_BYTES}-byte cap on incoming headers`);
    expect((refused as Error).message).toContain(`send at most ${MAX_BATCH_MESSAGES} messages per batch`);
    expect(sends()).toHaveLength(0);

    const result = await producer.sendBatch(batch(MAX_BATCH_MESSAGES));
    expect(result.msgIds).toHaveLength(MAX_BATCH_MESSAGES);
    expect(sends()).toHaveLength(1);
    await producer.shutdown();
  });
});
