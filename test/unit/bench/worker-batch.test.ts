import { describe, expect, it } from 'vitest';
import { packBatch, unpackBatch } from '../../../bench/worker-batch.js';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { CompressionType } from '../../../src/protocol/compression.js';
import { toPlainMessage } from '../../../src/protocol/decoded-message.js';
import { MessageConst } from '../../../src/protocol/message.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';

/** The messages of one PULL body of `count` messages stored in `topic`, as read from `queueId`. */
function pulled(topic: string, queueId: number, count: number, first = 0): ConsumedMessage[] {
  const body = encodeStoredMessages(
    Array.from({ length: count }, (_, i) => ({
      topic,
      queueId,
      queueOffset: first + i,
      body: Buffer.from(`body ${topic} ${queueId} ${first + i}`),
      properties: { [MessageConst.UNIQ_KEY]: `${topic}-${queueId}-${first + i}`, color: 'blue' },
    })),
  );
  return decodeMessages(body).messages.map((message) => ({
    message,
    topic: topic.startsWith('%RETRY%') ? 'Orders' : topic,
    queue: { topic, brokerName: queueId % 2 === 0 ? 'broker-a' : 'broker-b', queueId },
  }));
}

function view(consumed: readonly ConsumedMessage[]): unknown[] {
  return consumed.map(({ message, topic, queue }) => ({ message: toPlainMessage(message), topic, queue }));
}

describe('packBatch / unpackBatch', () => {
  it('gives the worker the batch it was sent: messages, where each was read, raised reconsumeTimes', () => {
    const retries = pulled('%RETRY%orders-consumer', 1, 3);
    for (const consumed of retries) consumed.message.reconsumeTimes = 2;
    const batch = [...pulled('Orders', 0, 4), ...retries, ...pulled('Orders', 2, 2, 40)];
    const packed = packBatch(7, batch);
    expect(packed.id).toBe(7);
    expect(packed.names, 'each name once').toEqual([
      'Orders',
      'broker-a',
      '%RETRY%orders-consumer',
      'broker-b',
    ]);
    const unpacked = unpackBatch(structuredClone(packed, { transfer: [packed.records] }));
    expect(view(unpacked)).toEqual(view(batch));
    expect(unpacked.map((c) => c.message.reconsumeTimes)).toEqual([0, 0, 0, 0, 2, 2, 2, 0, 0]);
  });

  it('copies a pull body once per run of neighbouring records, and skips what the batch left out', () => {
    const messages = pulled('Orders', 0, 6);
    const whole = packBatch(1, messages);
    expect(whole.copies, 'one pull body in order: one copy').toBe(1);
    expect(view(unpackBatch(whole))).toEqual(view(messages));
    // The 3rd message is not in the batch (e.g. in another batch): two runs, 5 records.
    const gap = [...messages.slice(0, 2), ...messages.slice(3)];
    const packed = packBatch(2, gap);
    expect(packed.copies).toBe(2);
    expect(view(unpackBatch(packed))).toEqual(view(gap));
    // Two pull bodies, interleaved: every message is a run of its own.
    const other = pulled('Orders', 2, 3);
    const mixed = [messages[0], other[0], messages[1], other[1]] as ConsumedMessage[];
    const interleaved = packBatch(3, mixed);
    expect(interleaved.copies).toBe(4);
    expect(view(unpackBatch(interleaved))).toEqual(view(mixed));
  });

  it('refuses a message that keeps no stored record', () => {
    const [compressed] = decodeMessages(
      encodeStoredMessages([
        { topic: 'Orders', body: Buffer.alloc(64, 7), compression: CompressionType.ZLIB },
      ]),
    ).messages;
    const consumed = {
      message: compressed,
      topic: 'Orders',
      queue: { topic: 'Orders', brokerName: 'b', queueId: 0 },
    };
    expect(() => packBatch(1, [consumed as ConsumedMessage])).toThrow(/keeps no stored record/);
  });
});
