import { describe, expect, it } from 'vitest';
import { BrokerClient } from '../../../src/client/broker-client.js';
import { committedOffsetOf } from '../../../src/protocol/consumer-offset-table.js';
import { FakeTransport } from './fake-transport.js';

const ADDR = '127.0.0.1:10911';

describe('BrokerClient offset answers across broker versions', () => {
  it("returns QUERY_CONSUMER_OFFSET's answer with the broker's version code", async () => {
    const transport = new FakeTransport(({ request }) =>
      request.extFields?.queueId === '0'
        ? { code: 0, version: 407, extFields: { offset: '0' } }
        : { code: 22, version: 479 },
    );
    const broker = new BrokerClient({ transport });
    const query = { consumerGroup: 'G', topic: 'T', queueId: 0, setZeroIfNotFound: false };
    expect(await broker.queryConsumerOffsetAnswer(ADDR, query)).toEqual({ offset: 0, brokerVersion: 407 });
    expect(await broker.queryConsumerOffsetAnswer(ADDR, { ...query, queueId: 1 })).toEqual({
      offset: undefined,
      brokerVersion: 479,
    });
    expect(transport.sent[0]?.request).toMatchObject({ code: 14, extFields: { setZeroIfNotFound: 'false' } });
  });

  it('reads GET_ALL_CONSUMER_OFFSET (43) with an empty header', async () => {
    const transport = new FakeTransport(() => ({
      code: 0,
      body: Buffer.from('{"offsetTable":{"T@G":{0:0}}}'),
    }));
    const table = await new BrokerClient({ transport }).getAllConsumerOffset(ADDR);
    expect(committedOffsetOf(table, 'G', 'T', 0)).toBe(0);
    expect(transport.sent[0]).toMatchObject({ timeoutMs: 5000, request: { code: 43, extFields: {} } });
  });
});
