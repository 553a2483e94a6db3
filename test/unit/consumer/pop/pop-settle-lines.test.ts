/**
 * A broker that refuses every ack, change of invisible time and send-back makes a line per message
 * unless throttled: per broker address and kind of call, each line standing for itself and its
 * `suppressed`, the counters exact.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { newConsumerCounters } from '../../../../src/consumer/consumer-counters.js';
import { PopBatchSettler } from '../../../../src/consumer/pop/pop-batch-settler.js';
import { newPopCounters } from '../../../../src/consumer/pop/pop-status.js';
import { popDelivery } from './pop-delivery.js';

interface Line {
  msg: string;
  broker?: string;
  suppressed?: number;
}

const MESSAGES = 300;

/** The lines saying `message` about `broker`: how many, and how many occurrences they stand for. */
function occurrences(lines: readonly Line[], message: string, broker: string) {
  const said = lines.filter((line) => line.msg.startsWith(message) && line.broker === broker);
  return { lines: said.length, occurrences: said.reduce((sum, line) => sum + 1 + (line.suppressed ?? 0), 0) };
}

describe('PopBatchSettler under a broker refusing everything', () => {
  it('logs a few lines per broker and kind whose counts add up to the messages, and keeps the counters', async () => {
    const lines: Line[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const counters = newConsumerCounters();
    const popCounters = newPopCounters();
    const refuse = async (): Promise<never> => {
      throw new Error('broker refuses');
    };
    const settler = new PopBatchSettler({
      pop: { ackMessage: refuse, changeInvisibleTime: refuse },
      broker: { consumerSendMsgBack: refuse },
      listener: { consume: async () => ({ status: 'SUCCESS' }) },
      consumerGroup: 'G',
      topic: 'orders',
      maxReconsumeTimes: 2,
      retryDelaysMs: [1000],
      counters,
      popCounters,
      log,
    });
    const brokers = ['a:10911', 'b:10911'];
    for (const broker of brokers) {
      const index = (i: number) => i + (broker === 'a:10911' ? 0 : MESSAGES);
      const succeeded = Array.from({ length: MESSAGES }, (_, i) => popDelivery(index(i), 0));
      const toRetry = Array.from({ length: MESSAGES }, (_, i) => popDelivery(index(i), 0));
      const atLimit = Array.from({ length: MESSAGES }, (_, i) => popDelivery(index(i), 2));
      await settler.settle(broker, succeeded, { status: 'SUCCESS' });
      await settler.settle(broker, toRetry, { status: 'FAILED', reason: 'boom' });
      await settler.settle(broker, atLimit, { status: 'FAILED', reason: 'boom' });
    }
    settler.flushLogs();

    expect(popCounters.ackFailures).toBe(2 * MESSAGES);
    expect(popCounters.invisibleTimeChangeFailures).toBe(2 * MESSAGES);
    expect(counters.sendBackFailures).toBe(2 * MESSAGES);
    for (const broker of brokers) {
      for (const message of ['ack failed', 'change of invisible time failed', 'dead-lettering failed']) {
        const said = occurrences(lines, message, broker);
        expect(said.lines, `${message} at ${broker}`).toBeLessThanOrEqual(3);
        expect(said.lines, `${message} at ${broker}`).toBeGreaterThanOrEqual(1);
        expect(said.occurrences, `${message} at ${broker}`).toBe(MESSAGES);
      }
    }
  });
});
