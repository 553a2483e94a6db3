/**
 * A poller's zone (the run config's `zone`, or `ROCKETMQ_LAMBDA_ZONE`) travels as the third `@` part of its
 * client id, where the brokers' consumer lists carry it to every member's zone-nearby allocation.
 */
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { clientZoneFromId } from '../../../src/consumer/rebalance/zone-conventions.js';
import { startPoller } from '../../../src/poller/poller.js';
import { rocketMQClientOf } from '../../../src/poller/rocketmq-client-of-config.js';

const HANDLERS = fileURLToPath(new URL('../../fixtures/handlers/', import.meta.url));

/** A loopback port that refuses connections (bound, then closed). */
async function refusingPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('the poller zone in the client id', () => {
  it('rocketMQClientOf appends the zone to a fresh ip@instance id, and adds nothing without one', async () => {
    const zoned = rocketMQClientOf({
      nameServerAddresses: ['127.0.0.1:9876'],
      acl: undefined,
      tls: undefined,
      zone: 'az1',
    });
    const plain = rocketMQClientOf({
      nameServerAddresses: ['127.0.0.1:9876'],
      acl: undefined,
      tls: undefined,
    });
    onTestFinished(async () => {
      await zoned.close();
      await plain.close();
    });
    expect(zoned.clientId).toMatch(/^[^@]+@[^@]+@az1$/);
    expect(clientZoneFromId(zoned.clientId)).toBe('az1');
    expect(plain.clientId.split('@')).toHaveLength(2);
    expect(clientZoneFromId(plain.clientId)).toBeUndefined();
  });

  it('a poller started with ROCKETMQ_LAMBDA_ZONE registers with a client id in that zone', async () => {
    const config = parseConfig(
      {
        nameServer: `127.0.0.1:${await refusingPort()}`,
        offsets: { store: 'memory' },
        mappings: [
          { name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./handlers.ts' },
        ],
      },
      // The handler must load: a poller refuses to start without it (start-checks.ts).
      { env: { ROCKETMQ_LAMBDA_ZONE: 'eu-west-1a' }, baseDir: HANDLERS },
    );
    const poller = await startPoller(config, { logger: pino({ level: 'silent' }) });
    onTestFinished(() => poller.stop().then(() => undefined));
    expect(clientZoneFromId(poller.clientId)).toBe('eu-west-1a');
    expect((await poller.status())[0]?.clientId).toBe(poller.clientId);
  });
});
