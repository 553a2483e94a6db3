import { describe, expect, it } from 'vitest';
import type { ProducerMessage } from '../../../src/client/producer.js';
import type { DeadLetterPage } from '../../../src/operations/dead-letter-queue.js';
import {
  type RedriveEvent,
  type RedriveQueueOptions,
  redriveQueue,
} from '../../../src/operations/dead-letter-redrive.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';
import { deadLetter } from './dlq-fixtures.js';

const QUEUE: MessageQueue = { topic: '%DLQ%G', brokerName: 'broker-a', queueId: 0 };

/** A DLQ of `count` messages read in pages of `pageSize`, recording saved positions. */
function fakeDlq(count: number, pageSize = 2) {
  const saved: number[] = [];
  const reads: { from: number; limit: number }[] = [];
  const dlq: RedriveQueueOptions['dlq'] = {
    consumerGroup: 'G',
    async *pages(_queue, fromOffset, limit): AsyncGenerator<DeadLetterPage> {
      reads.push({ from: fromOffset, limit });
      let offset = fromOffset;
      let left = limit;
      while (offset < count && left > 0) {
        const size = Math.min(pageSize, left, count - offset);
        const messages = Array.from({ length: size }, (_, i) => deadLetter(offset + i));
        offset += size;
        left -= size;
        yield { messages, tooLarge: new Map(), nextOffset: offset, minOffset: 0, maxOffset: count };
      }
    },
    async saveRedrivePosition(_queue, offset) {
      saved.push(offset);
    },
  };
  return { dlq, saved, reads };
}

function run(overrides: Partial<RedriveQueueOptions> & Pick<RedriveQueueOptions, 'dlq'>) {
  const events: RedriveEvent[] = [];
  const sent: (ProducerMessage & { topic: string })[] = [];
  const options: RedriveQueueOptions = {
    queue: QUEUE,
    fromOffset: 0,
    limit: Number.MAX_SAFE_INTEGER,
    to: 'retry',
    fallbackTopic: 'Orders',
    send: async (message) => {
      sent.push(message);
      return { msgId: `NEW${sent.length}` };
    },
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { promise: redriveQueue(options), events, sent };
}

describe('redriveQueue', () => {
  it('sends every message in offset order and saves the position after every message', async () => {
    const { dlq, saved } = fakeDlq(5);
    const { promise, sent, events } = run({ dlq });
    expect(await promise).toMatchObject({ sent: 5, alreadySent: 0, failed: undefined, position: 5 });
    expect(sent.map((m) => [m.topic, m.keys])).toEqual(
      [0, 1, 2, 3, 4].map((i) => ['%RETRY%G', [`order-${i}`, 'x']]),
    );
    // The start first (a position never stored means nothing was sent), then past every message.
    expect(saved).toEqual([0, 1, 2, 3, 4, 5]);
    expect(sent.map((m) => m.properties?.REDRIVEN_FROM)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `%DLQ%G/broker-a/0/${i}`),
    );
    expect(events.map((e) => e.kind === 'sent' && e.newMsgId)).toEqual([
      'NEW1',
      'NEW2',
      'NEW3',
      'NEW4',
      'NEW5',
    ]);
  });

  it('stops at the first failed send and never saves a position past it', async () => {
    const { dlq, saved } = fakeDlq(6);
    const refusal = new Error('broker busy');
    let calls = 0;
    const { promise, events } = run({
      dlq,
      send: async () => {
        calls++;
        if (calls === 4) throw refusal;
        return { msgId: `NEW${calls}` };
      },
    });
    const result = await promise;
    expect(result.sent).toBe(3);
    expect(result.failed?.view.dlqOffset).toBe(3);
    expect(result.failed?.error).toBe(refusal);
    expect(result.position).toBe(3);
    expect(saved).toEqual([0, 1, 2, 3]);
    expect(calls).toBe(4);
    expect(events.at(-1)).toMatchObject({ kind: 'failed', topic: '%RETRY%G' });
  });

  it('respects --limit and never moves the position backwards', async () => {
    const { dlq, saved, reads } = fakeDlq(10);
    const { promise } = run({ dlq, fromOffset: 0, limit: 3, position: 7 });
    expect(await promise).toMatchObject({ sent: 3, failed: undefined, position: 7 });
    expect(reads).toEqual([{ from: 0, limit: 3 }]);
    expect(saved).toEqual([]);
  });

  it('dry run: lists, sends nothing, saves nothing', async () => {
    const { dlq, saved } = fakeDlq(3);
    const { promise, sent, events } = run({ dlq, dryRun: true, to: 'topic' });
    expect(await promise).toMatchObject({ sent: 3, failed: undefined, position: undefined });
    expect(sent).toEqual([]);
    expect(saved).toEqual([]);
    expect(events.map((e) => e.kind === 'would-send' && e.topic)).toEqual(['Orders', 'Orders', 'Orders']);
  });

  it('named messages: sends only those (by msgId or original msgId), stops once all are found, leaves the position', async () => {
    const { dlq, saved } = fakeDlq(8);
    const byMsgId = deadLetter(1).msgId;
    const byOrigin = deadLetter(4).properties.ORIGIN_MESSAGE_ID as string;
    const { promise, sent, events } = run({ dlq, msgIds: new Set([byMsgId, byOrigin]) });
    expect(await promise).toMatchObject({ sent: 2, failed: undefined, position: undefined });
    expect(sent.map((m) => m.keys)).toEqual([
      ['order-1', 'x'],
      ['order-4', 'x'],
    ]);
    expect(events.filter((e) => e.kind === 'passed').map((e) => e.view.dlqOffset)).toEqual([0, 2, 3]);
    expect(saved).toEqual([]);
  });
});
