/**
 * MessageSendBack's fall-back: a failed message whose broker group cannot take it back (no master, or
 * the send-back refused) is produced to `%RETRY%<group>` with its id, properties and retry counters.
 */
import { describe, expect, it } from 'vitest';
import { NoMasterError } from '../../../../src/client/no-master-error.js';
import type { ProducerMessage } from '../../../../src/client/producer.js';
import { MessageSendBack } from '../../../../src/consumer/consume/message-send-back.js';
import { DEAD_LETTER_DELAY_LEVEL } from '../../../../src/protocol/dead-letter-delay-level.js';
import { msg, queueA } from '../fakes.js';

function setup(options: { master?: string | undefined; sendBackFails?: boolean; producerFails?: boolean }) {
  const sendBacks: unknown[] = [];
  const produced: ProducerMessage[] = [];
  const tookBack: string[] = [];
  const sendBack = new MessageSendBack({
    onSentBack: (brokerName) => tookBack.push(brokerName),
    broker: {
      consumerSendMsgBack: async (address, header) => {
        sendBacks.push({ address, header });
        if (options.sendBackFails === true) throw new Error('connection refused');
      },
    },
    masterAddress: () => options.master,
    consumerGroup: 'orders-fn',
    maxReconsumeTimes: 16,
    retryProducer: {
      send: async (message) => {
        produced.push(message);
        if (options.producerFails === true) throw new Error('no writable queue');
        return {
          status: 'SEND_OK',
          msgId: 'x',
          offsetMsgId: 'y',
          brokerName: 'b2',
          queueId: 0,
          queueOffset: 0,
        };
      },
    },
  });
  return { sendBack, sendBacks, produced, tookBack };
}

const failed = msg(5, {
  msgId: 'UNIQ-5',
  reconsumeTimes: 2,
  flag: 7,
  body: Buffer.from('payload'),
  properties: {
    UNIQ_KEY: 'UNIQ-5',
    TAGS: 'created',
    KEYS: 'order-5',
    user: 'x',
    DELAY: '4',
    TRAN_MSG: 'true',
  },
});

describe('MessageSendBack', () => {
  it('sends back to the master when it takes it, producing nothing', async () => {
    const t = setup({ master: '10.0.0.1:10911' });
    await t.sendBack.sendBack(failed, queueA, 'Orders', 0);
    expect(t.sendBacks).toHaveLength(1);
    expect(t.produced).toEqual([]);
    // That broker group now has %RETRY%<group> (topic-route-table.ts, assumeRetryQueue).
    expect(t.tookBack).toEqual([queueA.brokerName]);
  });

  it('tells of no retry topic when the broker did not take the message or took it as a dead letter', async () => {
    const refused = setup({ master: '10.0.0.1:10911', sendBackFails: true });
    await refused.sendBack.sendBack(failed, queueA, 'Orders', 0);
    const dead = setup({ master: '10.0.0.1:10911' });
    await dead.sendBack.sendBack(failed, queueA, 'Orders', DEAD_LETTER_DELAY_LEVEL);
    expect([refused.tookBack, dead.tookBack]).toEqual([[], []]);
  });

  it.each([
    ['no master', { master: undefined }],
    ['the master refusing', { master: '10.0.0.1:10911', sendBackFails: true }],
  ])(
    'with %s, produces the message to %%RETRY%%<group> with its id, properties and counters',
    async (_, o) => {
      const t = setup(o);
      await t.sendBack.sendBack(failed, queueA, 'Orders', 0);
      expect(t.produced).toEqual([
        {
          topic: '%RETRY%orders-fn',
          body: Buffer.from('payload'),
          flag: 7,
          uniqueKey: 'UNIQ-5',
          // Java: 3 + the attempts so far when the caller lets the broker choose (0).
          delayLevel: 5,
          properties: {
            UNIQ_KEY: 'UNIQ-5',
            TAGS: 'created',
            KEYS: 'order-5',
            user: 'x',
            RETRY_TOPIC: 'Orders',
            ORIGIN_MESSAGE_ID: 'UNIQ-5',
            RECONSUME_TIME: '3',
            MAX_RECONSUME_TIMES: '16',
          },
        },
      ]);
    },
  );

  it('keeps an explicit delay level and the first origin id of a message retried before', async () => {
    const t = setup({ master: undefined });
    const retried = { ...failed, properties: { ...failed.properties, ORIGIN_MESSAGE_ID: 'FIRST' } };
    await t.sendBack.sendBack(retried, queueA, 'Orders', 9);
    expect(t.produced[0]).toMatchObject({ delayLevel: 9, properties: { ORIGIN_MESSAGE_ID: 'FIRST' } });
  });

  it('rejects with the send-back error when the retry topic refuses too (the caller retries locally)', async () => {
    const t = setup({ master: undefined, producerFails: true });
    await expect(t.sendBack.sendBack(failed, queueA, 'Orders', 0)).rejects.toBeInstanceOf(NoMasterError);
    expect(t.produced).toHaveLength(1);
  });

  it('never produces a dead letter: the DLQ move needs the broker', async () => {
    const t = setup({ master: undefined });
    await expect(
      t.sendBack.sendBack(failed, queueA, 'Orders', DEAD_LETTER_DELAY_LEVEL),
    ).rejects.toBeInstanceOf(NoMasterError);
    expect(t.produced).toEqual([]);
  });
});
