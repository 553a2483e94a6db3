import { describe, expect, it } from 'vitest';
import type { PullResult } from '../../../src/client/pull-result.js';
import { QueueReader, type QueueReaderClient } from '../../../src/client/queue-reader.js';
import type { PullMessageRequestHeader } from '../../../src/protocol/headers.js';
import { PullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import type { TopicRouteData } from '../../../src/protocol/route-data.js';

function route(masters: Record<string, string | undefined>, perm = 6): TopicRouteData {
  return {
    brokerDatas: Object.entries(masters).map(([brokerName, address]) => ({
      cluster: 'C',
      brokerName,
      brokerAddrs: new Map(address === undefined ? [[1, 'slave:1']] : [[0, address]]),
    })),
    queueDatas: Object.keys(masters).map((brokerName) => ({
      brokerName,
      readQueueNums: 2,
      writeQueueNums: 2,
      perm,
      topicSysFlag: 0,
    })),
  };
}

/** A client whose route lookups answer from `routes` in turn and whose pulls answer `result`. */
function fakeClient(routes: TopicRouteData[], result: PullResult) {
  const pulls: { address: string; header: PullMessageRequestHeader; timeoutMs: number | undefined }[] = [];
  const lookups: boolean[] = [];
  const client: QueueReaderClient = {
    nameServer: {
      async getRoute(_topic, options = {}) {
        lookups.push(options.refresh === true);
        return (routes.length > 1 ? routes.shift() : routes[0]) as TopicRouteData;
      },
    },
    broker: {
      async pullMessage(address, header, options = {}) {
        pulls.push({ address, header, timeoutMs: options.timeoutMs });
        return result;
      },
    },
  };
  return { client, pulls, lookups };
}

const EMPTY: PullResult = {
  status: 'NO_NEW_MSG',
  nextBeginOffset: 7,
  minOffset: 0,
  maxOffset: 7,
  suggestWhichBrokerId: 0,
};

describe('QueueReader', () => {
  it('pulls from the master without SUSPEND or COMMIT_OFFSET, filtering by its own `*`', async () => {
    const { client, pulls } = fakeClient([route({ 'broker-a': 'a:10911', 'broker-b': 'b:10911' })], EMPTY);
    const reader = new QueueReader({ client, consumerGroup: 'G' });
    const result = await reader.read({ topic: 'T', brokerName: 'broker-b', queueId: 1 }, 7, {
      maxMessages: 5,
    });
    expect(result).toEqual({ status: 'NO_NEW_MSG', messages: [], nextOffset: 7, minOffset: 0, maxOffset: 7 });
    expect(pulls).toHaveLength(1);
    const [pull] = pulls;
    expect(pull?.address).toBe('b:10911');
    expect(pull?.header).toMatchObject({
      consumerGroup: 'G',
      topic: 'T',
      queueId: 1,
      queueOffset: 7,
      maxMsgNums: 5,
      sysFlag: PullSysFlag.SUBSCRIPTION,
      commitOffset: 0,
      subscription: '*',
      expressionType: 'TAG',
      bname: 'broker-b',
    });
    expect((pull?.header.sysFlag ?? 0) & (PullSysFlag.SUSPEND | PullSysFlag.COMMIT_OFFSET)).toBe(0);
    expect(pull?.timeoutMs).toBeGreaterThan(pull?.header.suspendTimeoutMillis ?? 0);
  });

  it('passes the broker suggestion of an illegal offset on as nextOffset', async () => {
    const illegal: PullResult = { ...EMPTY, status: 'OFFSET_ILLEGAL', nextBeginOffset: 3, minOffset: 3 };
    const { client } = fakeClient([route({ 'broker-a': 'a:1' })], illegal);
    const reader = new QueueReader({ client, consumerGroup: 'G' });
    const result = await reader.read({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 0);
    expect(result).toMatchObject({ status: 'OFFSET_ILLEGAL', nextOffset: 3, minOffset: 3 });
  });

  it('clamps maxMessages to 1..1024', async () => {
    const { client, pulls } = fakeClient([route({ 'broker-a': 'a:1' })], EMPTY);
    const reader = new QueueReader({ client, consumerGroup: 'G' });
    const queue = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
    await reader.read(queue, 0, { maxMessages: 0 });
    await reader.read(queue, 0, { maxMessages: 100_000 });
    expect(pulls.map((p) => p.header.maxMsgNums)).toEqual([1, 1024]);
  });

  it('looks the route up again when the cached one has no master, and fails retriably when none has', async () => {
    const { client, pulls, lookups } = fakeClient(
      [route({ 'broker-a': undefined }), route({ 'broker-a': 'a:2' })],
      EMPTY,
    );
    const reader = new QueueReader({ client, consumerGroup: 'G' });
    await reader.read({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 0);
    expect(lookups).toEqual([false, true]);
    expect(pulls[0]?.address).toBe('a:2');

    const none = fakeClient([route({ 'broker-a': undefined })], EMPTY);
    const stuck = new QueueReader({ client: none.client, consumerGroup: 'G' });
    await expect(stuck.read({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 0)).rejects.toMatchObject({
      retriable: true,
    });
    expect(none.pulls).toHaveLength(0);
  });

  it('refuses a negative or fractional offset before any I/O', async () => {
    const { client, pulls } = fakeClient([route({ 'broker-a': 'a:1' })], EMPTY);
    const reader = new QueueReader({ client, consumerGroup: 'G' });
    const queue = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
    await expect(reader.read(queue, -1)).rejects.toThrow(/not a non-negative integer/);
    await expect(reader.read(queue, 1.5)).rejects.toThrow(/not a non-negative integer/);
    expect(pulls).toHaveLength(0);
  });

  it('lists every queue of the route with its READ permission', async () => {
    const { client, lookups } = fakeClient([route({ 'broker-b': 'b:1', 'broker-a': 'a:1' }, 2)], EMPTY);
    const reader = new QueueReader({ client, consumerGroup: 'G' });
    const queues = await reader.queues('%DLQ%G');
    expect(queues.map((q) => `${q.queue.brokerName}#${q.queue.queueId}:${q.readable}`)).toEqual([
      'broker-a#0:false',
      'broker-a#1:false',
      'broker-b#0:false',
      'broker-b#1:false',
    ]);
    expect(lookups).toEqual([true]);
  });
});
