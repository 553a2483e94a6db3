import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, pullHeader } from './helpers.js';

/** The broker-side suspend of the probe pull, well under the first pull's 15 s. */
const PROBE_SUSPEND_MS = 1_000;

describe('long polling', () => {
  it('holds a pull on an empty queue and answers it right after a send', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('longpoll');
    const group = uniqueGroup('longpoll');
    await createTopic(client, topic, 1);
    const producer = new Producer({ client });
    await producer.start();

    let resolvedAt: number | undefined;
    const pull = client.broker
      .pullMessage(
        testBroker().brokerAddr,
        pullHeader({ group, topic, queueId: 0, queueOffset: 0, suspend: true }),
      )
      .then((result) => {
        resolvedAt = performance.now();
        return result;
      });
    // Proof that the broker holds the pull, without a fixed sleep: a second pull of the same queue,
    // sent after it with a 1 s suspend, comes back empty once the broker's hold service has swept the
    // queue's held pulls and timed it out. That sweep had the first pull in hand too, and left it held.
    const probe = await client.broker.pullMessage(testBroker().brokerAddr, {
      ...pullHeader({ group, topic, queueId: 0, queueOffset: 0, suspend: true }),
      suspendTimeoutMillis: PROBE_SUSPEND_MS,
    });
    expect(probe.status).toBe('NO_NEW_MSG');
    expect(resolvedAt).toBeUndefined();

    const sendStartedAt = performance.now();
    const sent = await producer.send({ topic, body: 'wake up' }, { queueId: 0 });
    const sendAckAt = performance.now();
    const result = await pull;
    const pullResolvedAt = resolvedAt ?? performance.now();

    expect(result.status).toBe('FOUND');
    if (result.status === 'FOUND') expect(result.messages[0]?.msgId).toBe(sent.msgId);
    const ackToPullMs = pullResolvedAt - sendAckAt;
    const sendToPullMs = pullResolvedAt - sendStartedAt;
    console.info(
      `long-poll latency: send-ack -> pull-resolve ${ackToPullMs.toFixed(1)} ms; ` +
        `send-start -> pull-resolve ${sendToPullMs.toFixed(1)} ms (send round trip ${(sendAckAt - sendStartedAt).toFixed(1)} ms)`,
    );
    expect(ackToPullMs).toBeLessThan(1000);
    expect(sendToPullMs).toBeLessThan(1000);
  });
});
