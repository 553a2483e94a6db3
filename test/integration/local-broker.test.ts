import { describe, expect, it } from 'vitest';
import { probeTopicRoute } from '../../src/local-broker/route-probe.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../support/broker.js';
import { javaConsume, javaProduce } from '../support/java-interop.js';

describe('local RocketMQ broker', () => {
  it('is registered with the name server: the route of TBW102 lists our broker as master', async () => {
    const { namesrvAddr, brokerAddr, brokerName } = testBroker();

    const { code, route } = await probeTopicRoute(namesrvAddr, 'TBW102');

    expect(code).toBe(0);
    const brokerData = route?.brokerDatas.find((data) => data.brokerName === brokerName);
    expect(brokerData?.brokerAddrs['0']).toBe(brokerAddr);
    expect(brokerData?.cluster).toBe('DefaultCluster');
    const queueData = route?.queueDatas.find((data) => data.brokerName === brokerName);
    expect(queueData?.writeQueueNums).toBeGreaterThan(0);
  });

  it('answers TOPIC_NOT_EXIST (17) for a topic nobody created', async () => {
    const { code, route } = await probeTopicRoute(testBroker().namesrvAddr, uniqueTopic('Missing'));

    expect(code).toBe(17);
    expect(route).toBeUndefined();
  });

  it('carries messages from the Java producer to the Java consumer intact', async () => {
    const { namesrvAddr, brokerName } = testBroker();
    const topic = uniqueTopic('JavaRoundTrip');
    const sent = [
      { topic, tags: 'TagA', keys: ['k1', 'k2'], properties: { color: 'red' }, body: 'hello' },
      { topic, tags: 'TagB', body: Buffer.from([0, 1, 2, 254, 255]) },
      { topic, body: 'ünïcödé ✓ 世界' },
    ];

    const results = await javaProduce(namesrvAddr, sent);

    expect(results.map((result) => result.status)).toEqual(['SEND_OK', 'SEND_OK', 'SEND_OK']);
    expect(results.every((result) => result.brokerName === brokerName)).toBe(true);
    const received = await javaConsume(namesrvAddr, {
      topic,
      group: uniqueGroup('JavaRoundTrip'),
      expectedCount: sent.length,
      timeoutMs: 45_000,
    });
    expect(received).toHaveLength(sent.length);
    const byId = new Map(received.map((message) => [message.msgId, message]));
    const first = byId.get(results[0]?.msgId ?? '');
    expect(first?.body.toString('utf8')).toBe('hello');
    expect(first?.tags).toBe('TagA');
    expect(first?.keys).toEqual(['k1', 'k2']);
    expect(first?.properties.color).toBe('red');
    expect(first?.offsetMsgId).toBe(results[0]?.offsetMsgId);
    expect(byId.get(results[1]?.msgId ?? '')?.body).toEqual(Buffer.from([0, 1, 2, 254, 255]));
    expect(byId.get(results[2]?.msgId ?? '')?.body.toString('utf8')).toBe('ünïcödé ✓ 世界');
  });

  it('hands out unique, valid topic and group names', () => {
    const names = [uniqueTopic(), uniqueTopic(), uniqueGroup(), uniqueGroup('Orders-eu')];

    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(() => uniqueTopic('bad name')).toThrow(/prefix/);
  });

  it('lets the Java producer send a compressed body and a batch to a chosen queue', async () => {
    const { namesrvAddr, brokerName } = testBroker();
    const topic = uniqueTopic('JavaBatch');
    const large = Buffer.alloc(8192, 'abc');

    const [compressed] = await javaProduce(namesrvAddr, [{ topic, body: large }], {
      compressOverBytes: 1024,
      compressType: 'ZSTD',
    });
    const batch = await javaProduce(
      namesrvAddr,
      [1, 2, 3].map((i) => ({ topic, body: `batch ${i}`, queueId: 1 })),
      { batch: true, brokerName },
    );

    expect(compressed?.status).toBe('SEND_OK');
    expect(batch.map((result) => result.queueId)).toEqual([1, 1, 1]);
    const firstOffset = batch[0]?.queueOffset ?? -1;
    expect(batch.map((result) => result.queueOffset)).toEqual([
      firstOffset,
      firstOffset + 1,
      firstOffset + 2,
    ]);
    expect(new Set(batch.map((result) => result.msgId)).size).toBe(3);
    const received = await javaConsume(namesrvAddr, {
      topic,
      group: uniqueGroup('JavaBatch'),
      expectedCount: 4,
      timeoutMs: 45_000,
    });
    const bodies = received.map((message) => message.body.toString('utf8')).sort();
    expect(bodies).toEqual([large.toString('utf8'), 'batch 1', 'batch 2', 'batch 3'].sort());
  });
});
