import { describe, expect, it, onTestFinished } from 'vitest';
import { PopClient } from '../../../src/client/pop-client.js';
import type { PopFound, PopResult } from '../../../src/client/pop-result.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { popAckHeader } from '../../../src/protocol/pop-extra-info.js';
import { PopInitMode } from '../../../src/protocol/pop-headers.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, waitFor } from '../client/helpers.js';
import { newProducer, produce } from '../consumer/helpers.js';

/**
 * How long a message given a new invisible time may take to come back: the revive service brings it back
 * 1-10 s after its invisible time, also right after pop-consumer.test.ts on the same broker. It once did
 * not come back at all after other POP traffic: the broker had run out of direct memory, and its timer no
 * longer delivered checkpoints (docs/protocol.md, POP consumption). This wait is short enough that such a
 * stall fails the test instead of hiding in a long wait.
 */
const REVIVE_TIMEOUT_MS = 40_000;

function popper(client: RocketMQClient, group: string, topic: string, invisibleTime: number) {
  const pop = new PopClient({ transport: client.pool });
  const { brokerAddr, brokerName } = testBroker();
  return {
    pop,
    once: (pollTime = 0, maxMsgNums = 32): Promise<PopResult> =>
      pop.popMessage(brokerAddr, brokerName, {
        consumerGroup: group,
        topic,
        queueId: -1,
        maxMsgNums,
        invisibleTime,
        pollTime,
        bornTime: Date.now(),
        initMode: PopInitMode.MIN,
        expType: 'TAG',
        exp: '*',
      }),
    /** Pops until `count` messages came (each pop long-polls 1 s). */
    async collect(count: number, timeoutMs = 20_000): Promise<PopFound['messages']> {
      const got: PopFound['messages'] = [];
      await waitFor(`${count} popped messages`, timeoutMs, async () => {
        const result = await this.once(1000);
        if (result.status === 'FOUND') got.push(...result.messages);
        return got.length >= count ? true : undefined;
      });
      return got;
    },
  };
}

describe('POP calls against the real broker', () => {
  it('pops from any queue with receipts that ack, and an acked message does not come back', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('pop');
    const group = uniqueGroup('pop');
    await createTopic(client, topic, 2);
    const sent = await produce(await newProducer(client), topic, 6, { queues: 2 });
    const p = popper(client, group, topic, 3000);
    const popped = await p.collect(6);
    expect(new Set(popped.map((m) => m.message.msgId))).toEqual(new Set(sent));
    const { brokerAddr, brokerName } = testBroker();
    for (const { message, receipt } of popped) {
      expect(receipt).toMatchObject({
        brokerName,
        queueId: message.queueId,
        queueOffset: message.queueOffset,
      });
      expect(receipt.retryMark).toBe('0');
      expect(message.reconsumeTimes).toBe(0);
      expect(await p.pop.ackMessage(brokerAddr, popAckHeader(receipt, group, topic))).toBe('OK');
    }
    expect(new Set(popped.map((m) => m.receipt.queueId))).toEqual(new Set([0, 1]));
    // Past the 3 s invisible time (plus the broker's revive scan), nothing acked comes back.
    const later = await p.once(8000);
    expect(later.status).toBe('NO_NEW_MSG');
  });

  it('a message given a new invisible time comes back once with reconsumeTimes + 1 from the POP retry topic', {
    timeout: 3 * REVIVE_TIMEOUT_MS,
  }, async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('popcit');
    const group = uniqueGroup('popcit');
    await createTopic(client, topic, 2);
    const [sentId] = await produce(await newProducer(client), topic, 1);
    const p = popper(client, group, topic, 60_000);
    const [first] = await p.collect(1);
    if (first === undefined) throw new Error('nothing popped');
    const { brokerAddr } = testBroker();
    const changed = await p.pop.changeInvisibleTime(brokerAddr, {
      ...popAckHeader(first.receipt, group, topic),
      invisibleTime: 1000,
    });
    expect(changed.status).toBe('OK');
    const [again] = await p.collect(1, REVIVE_TIMEOUT_MS);
    if (again === undefined) throw new Error('nothing popped again');
    expect(again.message.msgId).toBe(sentId);
    expect(again.message.reconsumeTimes).toBe(1);
    // The broker hands the retried message over under the original topic, its own receipt in POP_CK.
    expect(again.message.topic).toBe(topic);
    expect(again.message.properties.POP_CK).toBeDefined();
    expect(again.receipt.retryMark).toBe('1');
    const ack = popAckHeader(again.receipt, group, topic);
    expect(ack.topic).toBe(`%RETRY%${group}_${topic}`);
    expect(await p.pop.ackMessage(brokerAddr, ack)).toBe('OK');
    expect((await p.once(6000)).status).toBe('NO_NEW_MSG');
  });

  it('the broker itself never dead-letters a POP message: past retryMaxTimes it keeps redelivering', {
    timeout: 4 * REVIVE_TIMEOUT_MS,
  }, async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('popnodlq');
    const group = uniqueGroup('popnodlq');
    const { brokerAddr } = testBroker();
    await createTopic(client, topic, 1);
    await client.admin.createSubscriptionGroup(brokerAddr, { groupName: group, retryMaxTimes: 1 });
    await produce(await newProducer(client), topic, 1);
    const p = popper(client, group, topic, 60_000);
    const seen: number[] = [];
    for (let delivery = 0; delivery < 3; delivery++) {
      const [m] = await p.collect(1, REVIVE_TIMEOUT_MS);
      if (m === undefined) throw new Error('nothing popped');
      seen.push(m.message.reconsumeTimes);
      const changed = await p.pop.changeInvisibleTime(brokerAddr, {
        ...popAckHeader(m.receipt, group, topic),
        invisibleTime: 1000,
      });
      expect(changed.status).toBe('OK');
    }
    expect(seen).toEqual([0, 1, 2]);
    // No DLQ topic was ever created for the group.
    await expect(client.nameServer.getRoute(`%DLQ%${group}`, { refresh: true })).rejects.toMatchObject({
      code: 17,
    });
  });
});
