import { describe, expect, it, onTestFinished } from 'vitest';
import { type MessageExt, userProperties } from '../../../src/protocol/message.js';
import { compressionTypeBits } from '../../../src/protocol/message-sys-flag.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { type JavaSendResult, javaProduce } from '../../support/java-interop.js';
import { createTopic, newClient, pullMessages } from './helpers.js';

interface Sent {
  tags?: string;
  keys?: string[];
  properties?: Record<string, string>;
  body: Buffer;
}

type Stored = Pick<JavaSendResult, 'msgId' | 'offsetMsgId' | 'queueId' | 'queueOffset'>;

function expectSame(
  message: MessageExt | undefined,
  sent: Sent,
  stored: Stored,
  topic: string,
  startedAt: number,
  _inBatch: boolean,
) {
  expect(message).toBeDefined();
  if (message === undefined) return;
  expect(message.topic).toBe(topic);
  // The 5.3.3 broker appends the batch's own properties (its UNIQ_KEY, WAIT, CLUSTER) to every stored
  // message of a batch; Java's decoder lets the batch's UNIQ_KEY win, ours keeps the message's own, so
  // batch messages too arrive with the id the producer reported for them.
  expect(message.msgId).toBe(stored.msgId);
  expect(message.properties.UNIQ_KEY).toBe(stored.msgId);
  expect(message.offsetMsgId).toBe(stored.offsetMsgId);
  expect(message.queueId).toBe(stored.queueId);
  expect(message.queueOffset).toBe(stored.queueOffset);
  expect(message.tags).toBe(sent.tags);
  expect(message.keys).toEqual(sent.keys ?? []);
  expect(userProperties(message.properties)).toEqual(sent.properties ?? {});
  expect(message.body.equals(sent.body)).toBe(true);
  expect(message.reconsumeTimes).toBe(0);
  const now = Date.now();
  expect(message.bornTimestamp).toBeGreaterThanOrEqual(startedAt - 2000);
  expect(message.bornTimestamp).toBeLessThanOrEqual(now + 2000);
  expect(message.storeTimestamp).toBeGreaterThanOrEqual(message.bornTimestamp - 2000);
  expect(message.storeTimestamp).toBeLessThanOrEqual(now + 2000);
  expect(message.storeHost.endsWith(`:${testBroker().brokerAddr.split(':').pop()}`)).toBe(true);
}

describe('messages produced by the Java client', () => {
  it('are pulled and decoded field for field (tags, keys, properties, unicode, tiny, compressed, batch)', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('javaprod');
    const group = uniqueGroup('javaprod');
    await createTopic(client, topic, 2);
    const startedAt = Date.now();

    const large = Buffer.from('0123456789abcdef'.repeat(640)); // 10 KiB: the Java producer compresses it
    const singles: Sent[] = [
      {
        tags: 'TagA',
        keys: ['order-1', 'user-7'],
        properties: { color: 'red', 'clé-ünï': 'värde ✓' },
        body: Buffer.from('hello 世界 🌍 — ünïcödé', 'utf8'),
      },
      { tags: 'TagB', body: Buffer.from([0x7f]) },
      { tags: 'Big', keys: ['big'], properties: { size: String(large.length) }, body: large },
    ];
    const batch: Sent[] = [
      { tags: 'B1', keys: ['b-1'], properties: { i: '1' }, body: Buffer.from('batch one') },
      { tags: 'B1', properties: { i: '2' }, body: Buffer.from('batch two — ✓') },
      { tags: 'B1', keys: ['b-3'], body: Buffer.from([0, 1, 2, 3, 255]) },
    ];
    const toJava = (m: Sent, queueId?: number) => ({
      topic,
      ...(m.tags === undefined ? {} : { tags: m.tags }),
      ...(m.keys === undefined ? {} : { keys: m.keys }),
      ...(m.properties === undefined ? {} : { properties: m.properties }),
      body: m.body,
      ...(queueId === undefined ? {} : { queueId }),
    });

    const singleResults = await javaProduce(
      testBroker().namesrvAddr,
      singles.map((m) => toJava(m)),
    );
    const batchResults = await javaProduce(
      testBroker().namesrvAddr,
      batch.map((m) => toJava(m, 1)),
      { batch: true, brokerName: testBroker().brokerName },
    );
    expect(batchResults).toHaveLength(batch.length);
    expect(singleResults.map((r) => r.status)).toEqual(['SEND_OK', 'SEND_OK', 'SEND_OK']);

    const all = [
      ...singles.map((m, i) => [m, singleResults[i], false] as const),
      ...batch.map((m, i) => [m, batchResults[i], true] as const),
    ];
    const batchMsgIds = new Set<string>();
    for (const [sent, stored, inBatch] of all) {
      if (stored === undefined) throw new Error('missing Java send result');
      const [message] = await pullMessages(client, {
        group,
        topic,
        queueId: stored.queueId,
        fromOffset: stored.queueOffset,
        count: 1,
      });
      expectSame(message, sent, stored, topic, startedAt, inBatch);
      if (inBatch && message) batchMsgIds.add(message.msgId);
      if (sent.body === large) {
        // Stored zlib-compressed by the Java producer: the type bits stay after we inflate.
        expect(compressionTypeBits(message?.sysFlag ?? 0)).toBe(3);
      }
    }
    expect(batchMsgIds.size).toBe(batch.length);
  });
});
