import { describe, expect, it, onTestFinished } from 'vitest';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import { MessageDecodeError } from '../../../src/protocol/message-decoder.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { pullHeader } from '../client/helpers.js';
import {
  createTopic,
  Ledger,
  newClient,
  newProducer,
  newRuntime,
  produce,
  recordingListener,
  sendStoredBody,
  waitFor,
} from './helpers.js';

describe('an undecodable message', () => {
  it('goes to the DLQ by its commit-log offset, and the messages after it keep flowing', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('undecodable');
    const group = uniqueGroup('undecodable');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    const before = await produce(producer, topic, 5);
    // Flagged as zlib-compressed, but the body is not zlib: the broker stores it as sent, and no
    // client can inflate it.
    const broken = await sendStoredBody(client, topic, {
      id: 'BROKEN0000000000000000000000000001',
      stored: Buffer.from('definitely not a zlib stream'),
      sysFlag: MessageSysFlag.COMPRESSED,
    });
    const after = await produce(producer, topic, 5);

    const ledger = new Ledger();
    const { runtime } = newRuntime(
      { topic, consumerGroup: group, startingPosition: 'TRIM_HORIZON' },
      recordingListener(ledger, () => ({ status: 'SUCCESS' })),
    );
    await runtime.start();
    await waitFor('the messages around the broken one', 20_000, async () =>
      ledger.missing([...before, ...after]).length === 0 ? true : undefined,
    );
    const status = await runtime.status();
    expect(status.counters.decodeErrors).toBeGreaterThanOrEqual(1);
    expect(status.counters.undecodableDeadLettered).toBe(1);
    expect(ledger.deliveries.some((d) => d.message.queueOffset === broken.queueOffset)).toBe(false);

    // The broker re-read the record from its commit log: the DLQ holds it, as broken as it was sent.
    const dlq = await waitFor('the broken message in the DLQ', 15_000, async () => {
      const result = await client.broker.pullMessage(
        testBroker().brokerAddr,
        pullHeader({ group: uniqueGroup('dlqreader'), topic: dlqTopicOf(group), queueId: 0, queueOffset: 0 }),
      );
      return result.status === 'FOUND' ? result : undefined;
    });
    expect(dlq.decodeError).toBeInstanceOf(MessageDecodeError);
    expect(dlq.messages).toHaveLength(0);
  });
});
