import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ConsumerRuntimeStatus, QueueStatus } from '../../../src/consumer/consumer-status.js';
import { type QueueLag, summarizeLag } from '../../../src/consumer/queue-lag.js';
import {
  formatMappingLine,
  type MappingLine,
  mappingLineOf,
  StatusDisplay,
  type TextStream,
} from '../../../src/dev/status-display.js';

const line: MappingLine = {
  name: 'orders',
  topic: 'Orders',
  consumerGroup: 'orders-lambda',
  state: 'running',
  queues: 4,
  retryQueues: 1,
  lag: 12,
  invocations: 3,
  failures: 1,
};

function recordingStream(): { stream: TextStream; written: string[] } {
  const written: string[] = [];
  const stream = {
    write: ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as TextStream['write'],
  };
  return { stream, written };
}

describe('StatusDisplay', () => {
  it('formats a mapping line', () => {
    expect(formatMappingLine(line)).toBe(
      'orders  Orders → orders-lambda  running  queues 4 (+1 retry)  lag 12  invocations 3  failures 1',
    );
    expect(formatMappingLine({ ...line, retryQueues: 0, lag: undefined })).toBe(
      'orders  Orders → orders-lambda  running  queues 4  lag ?  invocations 3  failures 1',
    );
  });

  it('counts the topic queues and the retry queues apart, and shows the lag when any queue was measured', () => {
    const queue = (topic: string, queueId: number): QueueStatus =>
      ({ queue: { topic, brokerName: 'broker-a', queueId } }) as QueueStatus;
    const status = {
      name: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-lambda',
      state: 'running',
      queues: [queue('Orders', 0), queue('Orders', 1), queue('%RETRY%orders-lambda', 0)],
      counters: { consumedFailed: 5 },
    } as unknown as ConsumerRuntimeStatus;
    const queueLag = (topic: string, lag: number | undefined): QueueLag => ({
      queue: { topic, brokerName: 'broker-a', queueId: 0 },
      retry: topic.startsWith('%RETRY%'),
      maxOffset: lag === undefined ? undefined : 100,
      consumedOffset: lag === undefined ? undefined : 100 - lag,
      lag,
      error: lag === undefined ? 'broker down' : undefined,
    });
    const mapping = { name: 'orders', consumerGroup: 'orders-lambda', topic: 'Orders' };
    const measured = summarizeLag(mapping, [
      queueLag('Orders', 7),
      queueLag('Orders', 0),
      queueLag('%RETRY%orders-lambda', 2),
    ]);
    expect(mappingLineOf(status, measured, 9)).toEqual({
      name: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-lambda',
      state: 'running',
      queues: 2,
      retryQueues: 1,
      lag: 9,
      invocations: 9,
      failures: 5,
    });
    const partly = summarizeLag(mapping, [queueLag('Orders', 7), queueLag('Orders', undefined)]);
    expect(mappingLineOf(status, partly, 0).lag).toBe(7);
    const none = summarizeLag(mapping, [queueLag('Orders', undefined)]);
    expect(mappingLineOf(status, none, 0).lag).toBeUndefined();
    expect(mappingLineOf(status, undefined, 0).lag).toBeUndefined();
  });

  it('on a terminal, redraws the block in place and erases it before other writes', () => {
    const { stream, written } = recordingStream();
    const display = new StatusDisplay({ stream, tty: true, log: pino({ level: 'silent' }) });
    display.render([line]);
    display.render([{ ...line, invocations: 4 }]);
    stream.write('handler output\n');
    display.close();
    expect(written).toEqual([
      `\x1b[2K${formatMappingLine(line)}\n`,
      '\x1b[1F\x1b[J',
      `\x1b[2K${formatMappingLine({ ...line, invocations: 4 })}\n`,
      '\x1b[1F\x1b[J',
      'handler output\n',
    ]);
  });

  it('without a terminal, logs a mapping only when its numbers changed', () => {
    const { stream, written } = recordingStream();
    const logged: string[] = [];
    const log = pino({ level: 'info' }, { write: (text: string) => logged.push(text) });
    const display = new StatusDisplay({ stream, tty: false, log });
    display.render([line]);
    display.render([line]);
    display.render([{ ...line, failures: 2 }]);
    display.close();
    expect(written).toEqual([]);
    expect(logged.map((text) => (JSON.parse(text) as { failures: number; msg: string }).failures)).toEqual([
      1, 2,
    ]);
  });
});
