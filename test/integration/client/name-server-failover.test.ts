import { createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient } from './helpers.js';

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('name server failover', () => {
  it('resolves routes when the first name server is down, and sticks to the live one', async () => {
    const dead = `127.0.0.1:${await closedPort()}`;
    const setup = newClient();
    onTestFinished(() => setup.close());
    const topic = uniqueTopic('failover');
    await createTopic(setup, topic, 2);

    const client = newClient({ nameServerAddresses: [dead, testBroker().namesrvAddr] });
    onTestFinished(() => client.close());
    const route = await client.nameServer.getRoute(topic);
    expect(route.queueDatas[0]?.readQueueNums).toBe(2);
    expect(client.nameServer.preferredAddress).toBe(testBroker().namesrvAddr);

    const missing = await client.nameServer.getRoute(uniqueTopic('missing')).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(BrokerError);
    expect(missing).toMatchObject({ code: 17, retriable: false });
  });
});
