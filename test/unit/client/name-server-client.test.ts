import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { NameServerClient } from '../../../src/client/name-server-client.js';
import { RocketMQError } from '../../../src/errors.js';
import { ConnectError } from '../../../src/network/errors.js';
import { parseNameServerAddresses } from '../../../src/network/name-server-addresses.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { FakeTransport } from './fake-transport.js';

const ROUTE = Buffer.from(
  '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],' +
    '"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}',
);

describe('NameServerClient', () => {
  it('parses address lists', () => {
    expect(parseNameServerAddresses(' a:1 ; b:2,c:3;')).toEqual(['a:1', 'b:2', 'c:3']);
    expect(
      () => new NameServerClient({ addresses: '', transport: new FakeTransport(() => ({ code: 0 })) }),
    ).toThrow(RocketMQError);
  });

  it('sends topic + acceptStandardJsonOnly with a 3 s timeout', async () => {
    const transport = new FakeTransport(() => ({ code: 0, body: ROUTE }));
    const client = new NameServerClient({ addresses: ['ns1:9876'], transport });
    const route = await client.getRoute('T');
    expect(route.brokerDatas[0]?.brokerAddrs.get(0)).toBe('127.0.0.1:10911');
    expect(transport.sent[0]).toMatchObject({
      address: 'ns1:9876',
      timeoutMs: 3000,
      request: { code: 105, extFields: { topic: 'T', acceptStandardJsonOnly: 'true' } },
    });
  });

  it('fails over on network errors and remembers the last good name server', async () => {
    const transport = new FakeTransport(({ address }) => {
      if (address === 'dead:1') throw new ConnectError('refused', { address });
      return { code: 0, body: ROUTE };
    });
    const client = new NameServerClient({ addresses: ['dead:1', 'live:2'], transport });
    await client.getRoute('T');
    expect(transport.sent.map((s) => s.address)).toEqual(['dead:1', 'live:2']);
    expect(client.preferredAddress).toBe('live:2');
    await client.getRoute('U');
    expect(transport.sent.map((s) => s.address)).toEqual(['dead:1', 'live:2', 'live:2']);
  });

  it('tries the next one on a retriable refusal and throws the last error when all fail', async () => {
    const transport = new FakeTransport(({ address }) => {
      if (address === 'busy:1') return { code: 1, remark: 'name server not ready' };
      throw new ConnectError('refused', { address });
    });
    const client = new NameServerClient({ addresses: ['busy:1', 'dead:2'], transport });
    await expect(client.getRoute('T')).rejects.toBeInstanceOf(ConnectError);
    expect(transport.sent).toHaveLength(2);
  });

  it('throws a non-retriable TOPIC_NOT_EXIST BrokerError without trying other name servers', async () => {
    const transport = new FakeTransport(() => ({
      code: 17,
      remark: 'No topic route info in name server for the topic: T',
    }));
    const client = new NameServerClient({ addresses: ['a:1', 'b:2'], transport });
    const error = await client.getRoute('T').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect(error).toMatchObject({ code: 17, retriable: false, staleRoute: true, address: 'a:1' });
    expect(transport.sent).toHaveLength(1);
  });

  it('caches routes, refreshes on demand, shares concurrent lookups and forgets on invalidate', async () => {
    const transport = new FakeTransport(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { code: 0, body: ROUTE };
    });
    const client = new NameServerClient({ addresses: ['a:1'], transport });
    const [r1, r2] = await Promise.all([client.getRoute('T'), client.getRoute('T')]);
    expect(r1).toBe(r2);
    expect(transport.sent).toHaveLength(1);
    await client.getRoute('T');
    expect(transport.sent).toHaveLength(1);
    await client.getRoute('T', { refresh: true });
    expect(transport.sent).toHaveLength(2);
    client.invalidate('T');
    expect(client.cachedRoute('T')).toBeUndefined();
    await client.getRoute('T');
    expect(transport.sent).toHaveLength(3);
  });

  it('refuses a route over the caps, tries the next name server and keeps the cached route', async () => {
    const absurd = Buffer.from(ROUTE.toString().replace('"readQueueNums":4', '"readQueueNums":2147483647'));
    let bad = false;
    const transport = new FakeTransport(({ address }) => ({
      code: 0,
      body: bad && address === 'a:1' ? absurd : ROUTE,
    }));
    const client = new NameServerClient({ addresses: ['a:1', 'b:2'], transport });
    const first = await client.getRoute('T');
    bad = true;
    await expect(client.getRoute('T', { refresh: true })).resolves.toEqual(first);
    expect(transport.sent.map((s) => s.address)).toEqual(['a:1', 'a:1', 'b:2']);
    expect(client.preferredAddress).toBe('b:2');

    const only = new NameServerClient({
      addresses: ['a:1'],
      transport: new FakeTransport(() => ({ code: 0, body: bad ? absurd : ROUTE })),
    });
    bad = false;
    const cached = await only.getRoute('T');
    bad = true;
    const error = await only.getRoute('T', { refresh: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('readQueueNums of broker broker-a is 2147483647');
    expect(only.cachedRoute('T')).toBe(cached);
  });

  it('rejects a success without a body as a protocol error', async () => {
    const client = new NameServerClient({
      addresses: ['a:1'],
      transport: new FakeTransport(() => ({ code: 0 })),
    });
    await expect(client.getRoute('T')).rejects.toBeInstanceOf(ProtocolError);
  });
});
