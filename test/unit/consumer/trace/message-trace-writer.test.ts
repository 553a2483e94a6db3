import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MessageTraceWriter,
  type TraceDropReason,
  type TraceTopicSender,
} from '../../../../src/consumer/trace/message-trace-writer.js';
import { encodeSubBefore, type TraceMessage } from '../../../../src/protocol/message-trace.js';

const TOPIC = 'RMQ_SYS_TRACE_TOPIC';

function records(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) =>
    encodeSubBefore({
      beginMs: 1,
      regionId: 'DefaultRegion',
      group: 'g',
      requestId: 'R',
      msgId: `m${from + i}`,
      reconsumeTimes: 0,
      keys: undefined,
    }),
  );
}

/** A sender that records what it sent; `route` and `fail` steer it. */
class FakeSender implements TraceTopicSender {
  readonly sent: TraceMessage[] = [];
  routeChecks = 0;
  route: boolean | Error = true;
  fail: Error | undefined;
  /** When set, sends wait for it. */
  gate: Promise<void> | undefined;

  async hasRoute(): Promise<boolean> {
    this.routeChecks++;
    if (this.route instanceof Error) throw this.route;
    return this.route;
  }

  async send(_topic: string, message: TraceMessage): Promise<void> {
    if (this.gate !== undefined) await this.gate;
    if (this.fail !== undefined) throw this.fail;
    this.sent.push(message);
  }

  msgIds(): string[] {
    return this.sent.flatMap((m) => m.keys.split(' '));
  }
}

function observed() {
  const counts = { written: 0, dropped: {} as Partial<Record<TraceDropReason, number>> };
  return {
    counts,
    observer: {
      written: (n: number) => {
        counts.written += n;
      },
      dropped: (n: number, reason: TraceDropReason) => {
        counts.dropped[reason] = (counts.dropped[reason] ?? 0) + n;
      },
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('MessageTraceWriter', () => {
  it('sends a full trace message (20 records) at once and a partial one after the flush interval', async () => {
    const sender = new FakeSender();
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({ topic: TOPIC, sender, observer, flushIntervalMs: 1000 });
    writer.append(records(25));
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.sent.map((m) => m.records)).toEqual([20]);
    await vi.advanceTimersByTimeAsync(999);
    expect(sender.sent.map((m) => m.records)).toEqual([20]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sender.sent.map((m) => m.records)).toEqual([20, 5]);
    expect(sender.msgIds()).toEqual(records(25).map((_, i) => `m${i}`));
    expect(counts.written).toBe(25);
    expect(writer.stats()).toMatchObject({ written: 25, queued: 0 });
  });

  it('bounds its queue by records: what does not fit is dropped and counted, append returns at once', async () => {
    const sender = new FakeSender();
    let open: () => void = () => undefined;
    sender.gate = new Promise((resolve) => {
      open = resolve;
    });
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({ topic: TOPIC, sender, observer, maxQueuedRecords: 50 });
    writer.append(records(20));
    await vi.advanceTimersByTimeAsync(0);
    // 20 in flight (the sender hangs), 50 queued, 30 dropped.
    writer.append(records(80, 20));
    expect(counts.dropped['queue-full']).toBe(30);
    expect(writer.stats().queued).toBe(50);
    open();
    await writer.close(10_000);
    expect(counts.written).toBe(70);
    expect(sender.msgIds()).toEqual(records(70).map((_, i) => `m${i}`));
  });

  it('bounds its queue by bytes', () => {
    const sender = new FakeSender();
    const { counts, observer } = observed();
    const one = records(1)[0]?.bytes ?? 0;
    const writer = new MessageTraceWriter({ topic: TOPIC, sender, observer, maxQueuedBytes: one * 3 });
    writer.append(records(5));
    expect(writer.stats().queued).toBe(3);
    expect(counts.dropped['queue-full']).toBe(2);
  });

  it('drops and counts records while the trace topic does not exist, and asks its route again after the back-off', async () => {
    const sender = new FakeSender();
    sender.route = false;
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({
      topic: TOPIC,
      sender,
      observer,
      flushIntervalMs: 100,
      unavailableBackoffMs: 30_000,
    });
    expect(() => writer.append(records(5))).not.toThrow();
    await vi.advanceTimersByTimeAsync(100);
    expect(counts.dropped['topic-unavailable']).toBe(5);
    expect(sender.sent).toEqual([]);
    // During the back-off: dropped at once, no route lookup.
    writer.append(records(3));
    expect(counts.dropped['topic-unavailable']).toBe(8);
    expect(writer.stats().queued).toBe(0);
    expect(sender.routeChecks).toBe(1);
    // The topic appears; after the back-off records flow again.
    sender.route = true;
    await vi.advanceTimersByTimeAsync(30_000);
    writer.append(records(2));
    await vi.advanceTimersByTimeAsync(100);
    expect(sender.sent.map((m) => m.records)).toEqual([2]);
    expect(counts.written).toBe(2);
  });

  it('counts a failed send, pauses, and goes on with later records', async () => {
    const sender = new FakeSender();
    sender.fail = new Error('broker down');
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({
      topic: TOPIC,
      sender,
      observer,
      flushIntervalMs: 100,
      sendFailureBackoffMs: 1000,
    });
    writer.append(records(4));
    await vi.advanceTimersByTimeAsync(100);
    expect(counts.dropped['send-failed']).toBe(4);
    sender.fail = undefined;
    writer.append(records(2, 4));
    await vi.advanceTimersByTimeAsync(100);
    expect(sender.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sender.msgIds()).toEqual(['m4', 'm5']);
  });

  it('counts records as send-failed when the name server cannot be asked', async () => {
    const sender = new FakeSender();
    sender.route = new Error('connect ECONNREFUSED');
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({ topic: TOPIC, sender, observer, flushIntervalMs: 100 });
    writer.append(records(3));
    await vi.advanceTimersByTimeAsync(100);
    expect(counts.dropped['send-failed']).toBe(3);
  });

  it('close sends what is queued, then drops later appends', async () => {
    const sender = new FakeSender();
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({ topic: TOPIC, sender, observer, flushIntervalMs: 60_000 });
    writer.append(records(45));
    await writer.close(5000);
    expect(counts.written).toBe(45);
    writer.append(records(1));
    expect(counts.dropped.closed).toBe(1);
  });

  it('close gives up on a hanging send after its timeout and counts the rest as closed', async () => {
    const sender = new FakeSender();
    sender.gate = new Promise(() => undefined);
    const { counts, observer } = observed();
    const writer = new MessageTraceWriter({ topic: TOPIC, sender, observer });
    writer.append(records(30));
    await vi.advanceTimersByTimeAsync(0);
    const closing = writer.close(5000);
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(4999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed).toBe(true);
    // 20 still in flight, 10 queued and dropped.
    expect(counts.dropped.closed).toBe(10);
  });

  it('keeps an armed flush armed while appends keep coming (re-arming put it off: 6.3 M records dropped in bench:message-trace)', async () => {
    const sender = new FakeSender();
    const writer = new MessageTraceWriter({ topic: TOPIC, sender });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    writer.append(records(20));
    for (let i = 0; i < 50; i++) writer.append(records(1, 20 + i));
    expect(timers).toHaveBeenCalledTimes(1);
    timers.mockRestore();
    await vi.advanceTimersByTimeAsync(0);
    // The flush sends every full trace message waiting: 60 of the 70 records.
    expect(sender.sent.map((m) => m.records)).toEqual([20, 20, 20]);
  });

  it('ignores an observer that throws', async () => {
    const sender = new FakeSender();
    const writer = new MessageTraceWriter({
      topic: TOPIC,
      sender,
      observer: {
        written: () => {
          throw new Error('observer bug');
        },
      },
      flushIntervalMs: 10,
    });
    writer.append(records(2));
    await vi.advanceTimersByTimeAsync(10);
    expect(sender.sent).toHaveLength(1);
    expect(writer.stats().written).toBe(2);
  });
});
