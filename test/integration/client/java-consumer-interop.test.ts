import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer, type ProducerMessage } from '../../../src/client/producer.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { javaConsume } from '../../support/java-interop.js';
import { createTopic, newClient } from './helpers.js';

describe('messages produced by our Producer', () => {
  it('are received intact by the Java consumer (single, unicode, compressed, batch)', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('ourprod');
    await createTopic(client, topic, 2);
    const producer = new Producer({ client });
    await producer.start();
    onTestFinished(() => producer.shutdown());

    const large = Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(200)); // ~9 KiB, compressed
    const singles: ProducerMessage[] = [
      { topic, body: 'plain', tags: 'TagA' },
      {
        topic,
        body: Buffer.from('ünïcödé 世界 🌍', 'utf8'),
        tags: 'TagB',
        keys: ['k-1', 'k-2'],
        properties: { color: 'blue', ключ: 'значение' },
      },
      { topic, body: large, tags: 'Big', keys: 'big' },
    ];
    const batch: ProducerMessage[] = [
      { topic, body: 'batch one', tags: 'B', properties: { i: '1' } },
      { topic, body: Buffer.from([0, 1, 2, 250]), tags: 'B', keys: ['b-2'] },
      { topic, body: 'batch three ✓', tags: 'B', properties: { i: '3' } },
    ];
    const sent = new Map<string, ProducerMessage>();
    for (const message of singles) {
      const result = await producer.send(message);
      expect(result.status).toBe('SEND_OK');
      sent.set(result.msgId, message);
    }
    const batchResult = await producer.sendBatch(batch, { queueId: 1 });
    expect(batchResult.status).toBe('SEND_OK');
    batchResult.msgIds.forEach((id, i) => {
      const message = batch[i];
      if (message) sent.set(id, message);
    });

    const received = await javaConsume(testBroker().namesrvAddr, {
      topic,
      group: uniqueGroup('ourprod'),
      expectedCount: sent.size,
      timeoutMs: 60_000,
    });
    expect(received).toHaveLength(sent.size);
    for (const got of received) {
      const message = sent.get(got.msgId);
      expect(message, `unexpected msgId ${got.msgId}`).toBeDefined();
      if (message === undefined) continue;
      const body = typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : message.body;
      expect(got.body.equals(body)).toBe(true);
      expect(got.topic).toBe(topic);
      expect(got.tags ?? undefined).toBe(message.tags);
      const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
      expect(got.keys ?? []).toEqual(keys);
      for (const [key, value] of Object.entries(message.properties ?? {})) {
        expect(got.properties[key]).toBe(value);
      }
      expect(got.reconsumeTimes).toBe(0);
    }
  });
});
