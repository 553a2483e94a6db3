import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';

/** A decoded message with plausible defaults; `overrides` replace fields of the MessageExt. */
export function messageExt(overrides: Partial<MessageExt> = {}): MessageExt {
  const properties = overrides.properties ?? {
    UNIQ_KEY: 'AC11000100002A9F0000000000000001',
    TAGS: 'created',
  };
  const offsetMsgId = overrides.offsetMsgId ?? '7F00000100002A9F0000000000000400';
  return {
    topic: 'orders',
    queueId: 1,
    queueOffset: 42,
    physicalOffset: 1024,
    sysFlag: 0,
    flag: 0,
    bornTimestamp: 1_700_000_000_000,
    bornHost: '10.0.0.7:53211',
    storeTimestamp: 1_700_000_000_005,
    storeHost: '127.0.0.1:10911',
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    bodyCrc: 0,
    storeSize: 200,
    body: Buffer.from('hello'),
    offsetMsgId,
    msgId: properties.UNIQ_KEY ?? offsetMsgId,
    tags: properties.TAGS,
    keys: (properties.KEYS ?? '').split(' ').filter((k) => k !== ''),
    ...overrides,
    properties,
  };
}

/** A message of `queue` (default orders@broker-a@1) whose real topic is the queue's topic. */
export function consumed(
  overrides: Partial<MessageExt> = {},
  queue: MessageQueue = { topic: 'orders', brokerName: 'broker-a', queueId: 1 },
): ConsumedMessage {
  return { message: messageExt({ queueId: queue.queueId, ...overrides }), queue, topic: queue.topic };
}

/** A batch of `count` messages with ids `id-0`.. and bodies '0'.. (offsets from 100). */
export function batchOf(count: number): ConsumedMessage[] {
  return Array.from({ length: count }, (_, i) =>
    consumed({
      msgId: `id-${i}`,
      queueOffset: 100 + i,
      body: Buffer.from(String(i)),
      properties: { UNIQ_KEY: `id-${i}` },
    }),
  );
}
