import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { PullFrameTemplate } from '../../../src/client/pull-frame-template.js';
import { toPullResult } from '../../../src/client/pull-result.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, pullHeader } from './helpers.js';

describe('PULL_MESSAGE from a frame template (binary header)', () => {
  it('the broker reads every field of the binary frame: offset, batch size, tag filter and the committed offset', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('pulltemplate');
    const group = uniqueGroup('pulltemplate');
    await createTopic(client, topic, 1);
    const producer = new Producer({ client });
    await producer.start();
    onTestFinished(() => producer.shutdown());
    for (let i = 0; i < 6; i++) {
      await producer.send({ topic, body: `m${i}`, tags: i % 2 === 0 ? 'even' : 'odd' }, { queueId: 0 });
    }
    const { brokerAddr } = testBroker();
    const base = pullHeader({
      group,
      topic,
      queueId: 0,
      queueOffset: 0,
      subscription: 'even',
      maxMsgNums: 1,
    });
    const template = new PullFrameTemplate(base);
    // No extFields at all: whatever the broker answers, it read from the template's frame.
    const pull = async (queueOffset: number, commitOffset: number) => {
      const header = {
        ...base,
        queueOffset,
        commitOffset,
        sysFlag: buildPullSysFlag({ subscription: true, commitOffset: commitOffset > 0 }),
      };
      expect(template.fits(header)).toBe(true);
      const response = await client.pool.request(
        brokerAddr,
        {
          code: RequestCode.PULL_MESSAGE,
          encodeFrame: (opaque, flag) => template.encode(header, opaque, flag),
        },
        10_000,
      );
      return toPullResult(response, brokerAddr);
    };

    const first = await pull(1, 0);
    if (first.status !== 'FOUND') throw new Error(`first pull: ${first.status}`);
    // From offset 1 the broker skips the "odd" message 1 by its tag and stops after one match
    // (maxMsgNums 1: without it, 2 and 4 would come).
    expect(first.messages.map((m) => [m.queueOffset, m.tags, m.body.toString()])).toEqual([
      [2, 'even', 'm2'],
    ]);
    expect(first.nextBeginOffset).toBe(3);

    const second = await pull(first.nextBeginOffset, 3);
    if (second.status !== 'FOUND') throw new Error(`second pull: ${second.status}`);
    expect(second.messages.map((m) => m.queueOffset)).toEqual([4]);
    expect(
      await client.broker.queryConsumerOffset(brokerAddr, { consumerGroup: group, topic, queueId: 0 }),
    ).toBe(3);
  });
});
