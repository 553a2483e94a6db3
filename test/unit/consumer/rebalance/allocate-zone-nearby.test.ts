import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateMessageQueueAveragely } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely.js';
import { averagelyByCircleStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely-by-circle.js';
import { createZoneNearbyStrategy } from '../../../../src/consumer/rebalance/allocate-zone-nearby.js';
import { brokerZoneLookup, clientZoneFromId } from '../../../../src/consumer/rebalance/zone-conventions.js';
import { type MessageQueue, messageQueueKey } from '../../../../src/protocol/message-queue.js';
import { sortedClientIds, sortedQueues } from './allocation-arbitraries.js';

const q = (brokerName: string, queueId: number): MessageQueue => ({ topic: 'T', brokerName, queueId });
const label = (queue: MessageQueue) => `${queue.brokerName}#${queue.queueId}`;
const range = (brokerName: string, n: number) => Array.from({ length: n }, (_, i) => q(brokerName, i));

// Two pollers in az1, one in az2, none in az3.
const clientIds = ['10.0.0.1@1@az1', '10.0.0.2@2@az1', '10.0.0.3@3@az2'];
const queues = [...range('az1@broker-a', 4), ...range('az2@broker-b', 4), ...range('az3@broker-c', 3)];

describe('createZoneNearbyStrategy', () => {
  it('allocates what Java 5.3.3 AllocateMachineRoomNearby around AVG allocates', () => {
    // Recorded by running the Java 5.3.3 client's strategy on these inputs, with a resolver reading the
    // zone before the `@` of the broker name and the third `@` part of the client id.
    const strategy = createZoneNearbyStrategy({ brokerZone: brokerZoneLookup() });
    expect(strategy.name).toBe('MACHINE_ROOM_NEARBY-AVG');
    expect(clientIds.map((id) => strategy.allocate('G', id, queues, clientIds).map(label))).toEqual([
      ['az1@broker-a#0', 'az1@broker-a#1', 'az3@broker-c#0'],
      ['az1@broker-a#2', 'az1@broker-a#3', 'az3@broker-c#1'],
      ['az2@broker-b#0', 'az2@broker-b#1', 'az2@broker-b#2', 'az2@broker-b#3', 'az3@broker-c#2'],
    ]);
  });

  it('takes broker zones from the mapping and divides each zone with the inner strategy', () => {
    const named = [...range('broker-a', 4), ...range('broker-b', 2)];
    const strategy = createZoneNearbyStrategy({
      inner: averagelyByCircleStrategy,
      brokerZone: brokerZoneLookup({ 'broker-a': 'az1', 'broker-b': 'az2' }),
    });
    expect(strategy.name).toBe('MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE');
    expect(clientIds.map((id) => strategy.allocate('G', id, named, clientIds).map(label))).toEqual([
      ['broker-a#0', 'broker-a#2'],
      ['broker-a#1', 'broker-a#3'],
      ['broker-b#0', 'broker-b#1'],
    ]);
  });

  it('shares the queues of a broker without a known zone among all clients, as one group', () => {
    const strategy = createZoneNearbyStrategy({ brokerZone: brokerZoneLookup() });
    const mixed = [...range('az1@broker-a', 2), ...range('broker-x', 3)];
    expect(clientIds.map((id) => strategy.allocate('G', id, mixed, clientIds).map(label))).toEqual([
      ['az1@broker-a#0', 'broker-x#0'],
      ['az1@broker-a#1', 'broker-x#1'],
      ['broker-x#2'],
    ]);
  });

  it('gives a client without a zone only the queues nobody is near to', () => {
    const strategy = createZoneNearbyStrategy({ brokerZone: brokerZoneLookup() });
    const ids = ['10.0.0.1@1@az1', '10.0.0.9@9'];
    const mine = strategy.allocate('G', '10.0.0.9@9', queues, ids).map(label);
    expect(mine).toEqual(['az2@broker-b#2', 'az2@broker-b#3', 'az3@broker-c#2']);
  });

  it('falls back to all clients when no client is in any broker zone', () => {
    const strategy = createZoneNearbyStrategy({ brokerZone: brokerZoneLookup() });
    const ids = ['10.0.0.1@1@az7', '10.0.0.2@2@az8'];
    const shares = ids.map((id) => strategy.allocate('G', id, queues, ids));
    expect(shares.map((share) => share.length)).toEqual([6, 5]);
  });

  it('keeps the queues of a zone with clients in that zone, divided evenly; other queues go anywhere', () => {
    const strategy = createZoneNearbyStrategy({ brokerZone: brokerZoneLookup() });
    const zoneOfQueue = brokerZoneLookup();
    fc.assert(
      fc.property(sortedQueues, sortedClientIds, (allQueues, ids) => {
        const zonesWithClients = new Set(ids.map(clientZoneFromId));
        for (const zone of zonesWithClients) {
          if (zone === undefined) continue;
          const zoneQueues = allQueues.filter((queue) => zoneOfQueue(queue.brokerName) === zone);
          const zoneClients = ids.filter((id) => clientZoneFromId(id) === zone);
          for (const id of ids) {
            const inZone = strategy
              .allocate('G', id, allQueues, ids)
              .filter((queue) => zoneOfQueue(queue.brokerName) === zone)
              .map(messageQueueKey);
            const expected = zoneClients.includes(id)
              ? allocateMessageQueueAveragely(zoneQueues, zoneClients, id).map(messageQueueKey)
              : [];
            expect(inZone).toEqual(expected);
          }
        }
      }),
    );
  });

  it('reads client zones with a custom resolver when given one', () => {
    const strategy = createZoneNearbyStrategy({
      brokerZone: brokerZoneLookup(),
      clientZone: (id) => (id.startsWith('east') ? 'az1' : 'az2'),
    });
    const ids = ['east-1', 'west-1'];
    expect(strategy.allocate('G', 'east-1', queues, ids).map(label)).toEqual([
      'az1@broker-a#0',
      'az1@broker-a#1',
      'az1@broker-a#2',
      'az1@broker-a#3',
      'az3@broker-c#0',
      'az3@broker-c#1',
    ]);
  });
});
