import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  compareJavaStrings,
  compareMessageQueues,
  type MessageQueue,
  messageQueueKey,
  parseMessageQueueKey,
} from '../../../src/protocol/message-queue.js';

const mq = (topic: string, brokerName: string, queueId: number): MessageQueue => ({
  topic,
  brokerName,
  queueId,
});

describe('compareJavaStrings', () => {
  it('compares UTF-16 code units like Java, not locale order', () => {
    expect(compareJavaStrings('B', 'a')).toBeLessThan(0);
    expect('B'.localeCompare('a')).toBeGreaterThan(0);
    expect(compareJavaStrings('a', 'a')).toBe(0);
    expect(compareJavaStrings('ab', 'a')).toBeGreaterThan(0);
    // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FB01 in Java.
    expect(compareJavaStrings('\u{1F600}', '\uFB01')).toBeLessThan(0);
  });
});

describe('compareMessageQueues', () => {
  it('orders by topic, then broker name, then numeric queue id', () => {
    const queues = [
      mq('T', 'broker-b', 0),
      mq('T', 'broker-a', 10),
      mq('S', 'broker-z', 3),
      mq('T', 'broker-a', 2),
      mq('T', 'Broker-c', 1),
    ];
    expect(queues.sort(compareMessageQueues)).toEqual([
      mq('S', 'broker-z', 3),
      mq('T', 'Broker-c', 1),
      mq('T', 'broker-a', 2),
      mq('T', 'broker-a', 10),
      mq('T', 'broker-b', 0),
    ]);
  });

  it('is a consistent total order', () => {
    const arb = fc.record({
      topic: fc.constantFrom('A', 'B', 'a', '%RETRY%g'),
      brokerName: fc.constantFrom('broker-a', 'broker-b', 'B'),
      queueId: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(arb, arb, (a, b) => {
        // Opposite signs, summed (not negated: -Math.sign(0) is -0, which toBe tells from 0).
        expect(Math.sign(compareMessageQueues(a, b)) + Math.sign(compareMessageQueues(b, a))).toBe(0);
        expect(compareMessageQueues(a, b) === 0).toBe(messageQueueKey(a) === messageQueueKey(b));
      }),
    );
  });
});

describe('messageQueueKey / parseMessageQueueKey', () => {
  it('formats topic@brokerName@queueId and parses it back', () => {
    expect(messageQueueKey(mq('%RETRY%group', 'broker-a', 3))).toBe('%RETRY%group@broker-a@3');
    expect(parseMessageQueueKey('%RETRY%group@broker-a@3')).toEqual(mq('%RETRY%group', 'broker-a', 3));
    expect(parseMessageQueueKey('T@odd@name@12')).toEqual(mq('T', 'odd@name', 12));
  });

  it('round-trips any topic without @', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[%|a-zA-Z0-9_-]{1,20}$/),
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (topic, brokerName, queueId) => {
          const queue = mq(topic, brokerName, queueId);
          expect(parseMessageQueueKey(messageQueueKey(queue))).toEqual(queue);
        },
      ),
    );
  });

  it('rejects malformed keys with ProtocolError', () => {
    for (const key of [
      '',
      'T',
      'T@b',
      '@b@1',
      'T@b@',
      'T@b@-1',
      'T@b@01',
      'T@b@1.5',
      'T@b@x',
      'T@b@2147483648',
    ]) {
      expect(() => parseMessageQueueKey(key), key).toThrow(ProtocolError);
    }
  });
});
