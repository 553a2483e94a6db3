import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ConsumerRuntimeStatus, QueueStatus } from '../../../src/consumer/consumer-status.js';
import {
  formatMappingLine,
  LastInvokeTracker,
  type MappingLine,
  mappingLineOf,
  StatusDisplay,
  type TextStream,
} from '../../../src/dev/status-display.js';
import { type QueueLag, summarizeLag } from '../../../src/metrics/queue-lag.js';

const line: MappingLine = {
  name: 'orders',
  topic: 'Orders',
  consumerGroup: 'orders-lambda',
  state: 'running',
  queues: 4,
  retryQueues: 1,
  lag: 12,
  invocations: 3,
  consumed: 30,
  failures: 1,
  lastInvokeAtMs: 1_000_000,
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
  it('formats a mapping line: consumed, failed, lag, invocations and the age of the last one', () => {
    expect(formatMappingLine(line, 1_004_500)).toBe(
      'orders  Orders → orders-lambda  running  queues 4 (+1 retry)  consumed 30  failed 1  lag 12  invocations 3 (last 4s ago)',
    );
    expect(
      formatMappingLine({ ...line, retryQueues: 0, lag: undefined, lastInvokeAtMs: undefined }, 1_004_500),
    ).toBe('orders  Orders → orders-lambda  running  queues 4  consumed 30  failed 1  lag ?  invocations 3');
    expect(formatMappingLine(line, 1_000_000 + 192_000)).toContain('(last 3m12s ago)');
  });

  it('keeps the time an invocation count last grew', () => {
    const tracker = new LastInvokeTracker();
    expect(tracker.observe('orders', 0, 1000)).toBeUndefined();
    expect(tracker.observe('orders', 2, 2000)).toBe(2000);
    expect(tracker.observe('orders', 2, 3000)).toBe(2000);
    expect(tracker.observe('orders', 3, 4000)).toBe(4000);
    expect(tracker.observe('payments', 0, 4000)).toBeUndefined();
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
      counters: { consumedOk: 40, consumedFailed: 5 },
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
      consumed: 40,
      failures: 5,
      lastInvokeAtMs: undefined,
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
    expect(written.map((text) => text.replace(/ \(last \d+\w+ ago\)/, ''))).toEqual([
      `\x1b[2K${formatMappingLine({ ...line, lastInvokeAtMs: undefined })}\n`,
      '\x1b[1F\x1b[J',
      `\x1b[2K${formatMappingLine({ ...line, invocations: 4, lastInvokeAtMs: undefined })}\n`,
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
