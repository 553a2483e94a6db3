import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { type DeadLetterDepthClient, readDeadLetterDepth } from '../../../src/client/dead-letter-depth.js';
import { NoMasterError } from '../../../src/client/no-master-error.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import type { TopicRouteData } from '../../../src/protocol/route-data.js';

function route(masters: Record<string, string | undefined>, queues = 2): TopicRouteData {
  return {
    brokerDatas: Object.entries(masters).map(([brokerName, address]) => ({
      cluster: 'C',
      brokerName,
      brokerAddrs: new Map(address === undefined ? [[1, 'slave:1']] : [[0, address]]),
    })),
    queueDatas: Object.keys(masters).map((brokerName) => ({
      brokerName,
      readQueueNums: queues,
      writeQueueNums: queues,
      perm: 6,
      topicSysFlag: 0,
    })),
  };
}

/** A client whose route lookup gives `answer` and whose offsets come from `offsets[address@queueId]`. */
function fakeClient(
  answer: TopicRouteData | Error,
  offsets: Record<string, { min: number; max: number } | Error>,
) {
  const lookups: { topic: string; refresh: boolean }[] = [];
  const asked: string[] = [];
  const offsetOf = (address: string, queueId: number, which: 'min' | 'max') => {
    asked.push(`${which} ${address}@${queueId}`);
    const found = offsets[`${address}@${queueId}`];
    if (found === undefined) throw new Error(`no offsets for ${address}@${queueId}`);
    if (found instanceof Error) throw found;
    return found[which];
  };
  const client: DeadLetterDepthClient = {
    nameServer: {
      async getRoute(topic, options = {}) {
        lookups.push({ topic, refresh: options.refresh === true });
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    broker: {
      getMaxOffset: async (address, header) => offsetOf(address, header.queueId, 'max'),
      getMinOffset: async (address, header) => offsetOf(address, header.queueId, 'min'),
    },
  };
  return { client, lookups, asked };
}

describe('readDeadLetterDepth', () => {
  it("sums max minus min offset over every queue of the group's %DLQ% topic, on a fresh route", async () => {
    const { client, lookups } = fakeClient(route({ 'broker-a': 'a:1', 'broker-b': 'b:1' }), {
      'a:1@0': { min: 0, max: 5 },
      'a:1@1': { min: 3, max: 10 },
      'b:1@0': { min: 100, max: 100 },
      'b:1@1': { min: 0, max: 1 },
    });
    await expect(readDeadLetterDepth(client, 'orders')).resolves.toEqual({ depth: 13, queues: 4 });
    expect(lookups).toEqual([{ topic: '%DLQ%orders', refresh: true }]);
  });

  it('is 0 with no queue when no name server knows the topic (the group never dead-lettered)', async () => {
    const missing = new BrokerError({
      code: ResponseCode.TOPIC_NOT_EXIST,
      requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
      address: 'ns:9876',
      retriable: false,
    });
    const { client, asked } = fakeClient(missing, {});
    await expect(readDeadLetterDepth(client, 'fresh')).resolves.toEqual({ depth: 0, queues: 0 });
    expect(asked).toEqual([]);
  });

  it('throws every other failure: a name server refusal, a broker failure, a broker group without a master', async () => {
    const refused = new BrokerError({
      code: ResponseCode.SYSTEM_ERROR,
      requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
      address: 'ns:9876',
    });
    await expect(readDeadLetterDepth(fakeClient(refused, {}).client, 'g')).rejects.toBe(refused);

    const down = new Error('connect ECONNREFUSED a:1');
    const { client } = fakeClient(route({ 'broker-a': 'a:1' }), {
      'a:1@0': { min: 0, max: 5 },
      'a:1@1': down,
    });
    await expect(readDeadLetterDepth(client, 'g')).rejects.toBe(down);

    const noMaster = fakeClient(route({ 'broker-a': undefined }), {}).client;
    await expect(readDeadLetterDepth(noMaster, 'g')).rejects.toBeInstanceOf(NoMasterError);
  });

  it('refuses offsets out of order rather than report a negative depth', async () => {
    const { client } = fakeClient(route({ 'broker-a': 'a:1' }, 1), { 'a:1@0': { min: 9, max: 4 } });
    await expect(readDeadLetterDepth(client, 'g')).rejects.toThrow(
      '%DLQ%g queue broker-a@0 on a:1: offsets out of order (min 9, max 4)',
    );
  });
});
