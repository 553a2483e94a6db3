/**
 * Fault scenario "hostile headers": a name server answers a route lookup with a header above a header
 * cap (MAX_HEADER_BYTES + 1 bytes, or MAX_HEADER_FIELDS + 1 fields), in each serialization. The client
 * refuses the frame before parsing it, closes the connection (as for any malformed frame) and says why;
 * once the same name server answers sanely (it relays to the real one), the next lookup succeeds over a
 * new connection.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { ConnectionClosedError } from '../../../src/network/errors.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { MAX_HEADER_BYTES, MAX_HEADER_FIELDS } from '../../../src/protocol/header-limits.js';
import { testBroker, uniqueTopic } from '../../support/broker.js';
import { waitFor } from '../../support/wait-for.js';
import { createTopic, newClient } from '../consumer/helpers.js';
import { FakeNameServer, HOSTILE_HEADER_FACES, type HostileHeaderFace } from './fake-name-server.js';

const REFUSAL: Record<HostileHeaderFace, RegExp> = {
  'oversized-json-header': new RegExp(`header of ${MAX_HEADER_BYTES + 1} bytes exceeds the cap`),
  'oversized-binary-header': new RegExp(`header of ${MAX_HEADER_BYTES + 1} bytes exceeds the cap`),
  'many-json-header-fields': new RegExp(
    `JSON header of \\d+ bytes has more than ${MAX_HEADER_FIELDS} fields`,
  ),
  'many-binary-header-fields': new RegExp(
    `binary header of \\d+ bytes has more than ${MAX_HEADER_FIELDS} extFields`,
  ),
};

describe('hostile headers', () => {
  it('refuses every over-cap header, closes the connection, and recovers on the same name server', async () => {
    const admin = newClient();
    onTestFinished(() => admin.close());
    const topic = uniqueTopic('fault_headers');
    await createTopic(admin, topic, 2);

    for (const face of HOSTILE_HEADER_FACES) {
      const fake = await FakeNameServer.start(face);
      const client = new RocketMQClient({ nameServerAddresses: [fake.address] });
      onTestFinished(() => client.close());

      const refused = await client.nameServer.queryRoute(topic).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, face).toBeInstanceOf(ConnectionClosedError);
      const cause = (refused as ConnectionClosedError).cause;
      expect(cause, face).toBeInstanceOf(ProtocolError);
      expect((cause as ProtocolError).message, face).toMatch(REFUSAL[face]);
      await waitFor(`${face}: the refused connection closed`, 5000, () =>
        fake.closedConnections === 1 ? true : undefined,
      );

      fake.forwardTo(testBroker().namesrvAddr);
      const route = await client.nameServer.queryRoute(topic);
      expect(
        route.queueDatas.map((queue) => queue.readQueueNums),
        face,
      ).toEqual([2]);
      expect(fake.connections, `${face}: a new connection after the refusal`).toBe(2);
      expect(fake.requests, face).toBe(2);
    }
  }, 60_000);
});
