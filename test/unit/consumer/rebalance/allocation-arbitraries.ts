/** fast-check inputs for allocation strategies: queues and client ids sorted the way the rebalancer sorts. */
import fc from 'fast-check';
import {
  compareJavaStrings,
  compareMessageQueues,
  type MessageQueue,
  messageQueueKey,
} from '../../../../src/protocol/message-queue.js';

export const ZONES = ['az1', 'az2', 'az3'] as const;

/** Broker names with and without a `<zone>@` prefix, so zone-aware strategies see known and unknown zones. */
const brokerName = fc.constantFrom('broker-a', 'broker-b', 'az1@broker-c', 'az2@broker-d', 'az3@broker-e');

export const sortedQueues: fc.Arbitrary<MessageQueue[]> = fc
  .uniqueArray(
    fc.record({
      topic: fc.constantFrom('T', '%RETRY%G'),
      brokerName,
      queueId: fc.integer({ min: 0, max: 15 }),
    }),
    { selector: messageQueueKey, maxLength: 48 },
  )
  .map((queues) => [...queues].sort(compareMessageQueues));

/** Client ids `ip@instance[@zone]`, at least one. */
export const sortedClientIds: fc.Arbitrary<string[]> = fc
  .uniqueArray(
    fc
      .tuple(
        fc.integer({ min: 1, max: 254 }),
        fc.stringMatching(/^[0-9a-z#]{1,8}$/),
        fc.option(fc.constantFrom(...ZONES, 'az9'), { nil: undefined }),
      )
      .map(([host, instance, zone]) => `10.0.0.${host}@${instance}${zone === undefined ? '' : `@${zone}`}`),
    { minLength: 1, maxLength: 12 },
  )
  .map((ids) => [...ids].sort(compareJavaStrings));
