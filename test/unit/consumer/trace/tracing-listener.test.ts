import { describe, expect, it } from 'vitest';
import type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from '../../../../src/consumer/message-listener.js';
import { TracingMessageListener } from '../../../../src/consumer/trace/tracing-listener.js';
import type { EncodedTraceRecord } from '../../../../src/protocol/message-trace.js';
import { consumed } from '../../invoke/consumed-message.js';

/** A writer that keeps every record's fields. */
class RecordingWriter {
  readonly records: string[][] = [];
  append(records: readonly EncodedTraceRecord[]): void {
    for (const record of records) this.records.push(record.text.slice(0, -1).split('\u0001'));
  }
  ofType(type: string): string[][] {
    return this.records.filter((fields) => fields[0] === type);
  }
}

function batch(count: number, extra: (i: number) => Record<string, string> = () => ({})): ConsumedMessage[] {
  return Array.from({ length: count }, (_, i) =>
    consumed({
      msgId: `id-${i}`,
      reconsumeTimes: i,
      properties: { UNIQ_KEY: `id-${i}`, ...extra(i) },
    }),
  );
}

function context(overrides: Partial<ConsumeContext> = {}): ConsumeContext {
  return {
    consumerGroup: 'orders-group',
    orderly: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

function listenerAnswering(result: ConsumeResult | Error): MessageListener {
  return {
    consume: async () => {
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

/** A clock that moves 30 ms per reading. */
function ticking(start = 1_000_000): () => number {
  let now = start - 30;
  return () => {
    now += 30;
    return now;
  };
}

describe('TracingMessageListener', () => {
  it('writes a SubBefore per message, then a SubAfter with success, cost per message and end time', async () => {
    const writer = new RecordingWriter();
    const listener = new TracingMessageListener(listenerAnswering({ status: 'SUCCESS' }), writer, ticking());
    const messages = batch(
      3,
      (i): Record<string, string> => (i === 0 ? { KEYS: 'order-1 order-2', MSG_REGION: 'eu' } : {}),
    );
    await expect(listener.consume(messages, context())).resolves.toEqual({ status: 'SUCCESS' });
    const before = writer.ofType('SubBefore');
    const after = writer.ofType('SubAfter');
    expect(before).toHaveLength(3);
    expect(after).toHaveLength(3);
    const requestId = before[0]?.[4];
    expect(requestId).toMatch(/^[0-9A-F]{32}$/);
    expect(before[0]).toEqual([
      'SubBefore',
      '1000000',
      'eu',
      'orders-group',
      requestId,
      'id-0',
      '0',
      'order-1 order-2',
    ]);
    expect(before[2]).toEqual([
      'SubBefore',
      '1000000',
      'DefaultRegion',
      'orders-group',
      requestId,
      'id-2',
      '2',
      'null',
    ]);
    // 30 ms for 3 messages: 10 ms each, as Apache's clients share the batch's time.
    expect(after[0]).toEqual([
      'SubAfter',
      requestId,
      'id-0',
      '10',
      'true',
      'order-1 order-2',
      '0',
      '1000030',
      'orders-group',
    ]);
    expect(after.map((fields) => fields[4])).toEqual(['true', 'true', 'true']);
  });

  it('marks the messages a PARTIAL result lists as failed (FAILED, 4)', async () => {
    const writer = new RecordingWriter();
    const result: ConsumeResult = { status: 'PARTIAL', failedIndexes: [1], reason: 'function said so' };
    const listener = new TracingMessageListener(listenerAnswering(result), writer);
    await listener.consume(batch(3), context());
    expect(writer.ofType('SubAfter').map((f) => [f[2], f[4], f[6]])).toEqual([
      ['id-0', 'true', '0'],
      ['id-1', 'false', '4'],
      ['id-2', 'true', '0'],
    ]);
  });

  it('in orderly mode also fails the messages after the first failure, dead letters excepted', async () => {
    const writer = new RecordingWriter();
    const result: ConsumeResult = {
      status: 'PARTIAL',
      failedIndexes: [0, 2],
      reason: 'x',
      deadLetter: [{ index: 0, reason: 'too old' }],
    };
    const listener = new TracingMessageListener(listenerAnswering(result), writer);
    await listener.consume(batch(4), context({ orderly: true }));
    expect(writer.ofType('SubAfter').map((f) => f[4])).toEqual(['false', 'true', 'false', 'false']);
  });

  it('marks every message failed on FAILED, and TIME_OUT when shutdown aborted the batch', async () => {
    const writer = new RecordingWriter();
    const listener = new TracingMessageListener(listenerAnswering({ status: 'FAILED', reason: 'x' }), writer);
    await listener.consume(batch(2), context());
    expect(writer.ofType('SubAfter').map((f) => [f[4], f[6]])).toEqual([
      ['false', '4'],
      ['false', '4'],
    ]);
    const aborted = new AbortController();
    aborted.abort();
    const writer2 = new RecordingWriter();
    await new TracingMessageListener(listenerAnswering({ status: 'FAILED', reason: 'x' }), writer2).consume(
      batch(1),
      context({ signal: aborted.signal }),
    );
    expect(writer2.ofType('SubAfter').map((f) => [f[4], f[6]])).toEqual([['false', '1']]);
  });

  it('writes EXCEPTION (2) and rethrows when the listener throws', async () => {
    const writer = new RecordingWriter();
    const error = Object.assign(new Error('no such function'), { fatal: true });
    const listener = new TracingMessageListener(listenerAnswering(error), writer);
    await expect(listener.consume(batch(2), context())).rejects.toBe(error);
    expect(writer.ofType('SubAfter').map((f) => [f[4], f[6]])).toEqual([
      ['false', '2'],
      ['false', '2'],
    ]);
  });

  it('skips messages whose producer turned tracing off (TRACE_ON=false)', async () => {
    const writer = new RecordingWriter();
    const listener = new TracingMessageListener(listenerAnswering({ status: 'SUCCESS' }), writer);
    await listener.consume(
      batch(3, (i): Record<string, string> => (i === 1 ? { TRACE_ON: 'false' } : {})),
      context(),
    );
    expect(writer.records.map((f) => `${f[0]}:${f[0] === 'SubBefore' ? f[5] : f[2]}`)).toEqual([
      'SubBefore:id-0',
      'SubBefore:id-2',
      'SubAfter:id-0',
      'SubAfter:id-2',
    ]);
  });

  it('writes nothing for a batch whose messages all turned tracing off', async () => {
    const writer = new RecordingWriter();
    const listener = new TracingMessageListener(listenerAnswering({ status: 'SUCCESS' }), writer);
    await listener.consume(
      batch(2, () => ({ TRACE_ON: 'false' })),
      context(),
    );
    expect(writer.records).toEqual([]);
  });

  it('passes final failures on to the wrapped listener', async () => {
    const seen: string[] = [];
    const inner: MessageListener = {
      consume: async () => ({ status: 'SUCCESS' }),
      notifyFinalFailure: async (messages, reason) => {
        seen.push(`${messages.length}:${reason}`);
      },
    };
    await new TracingMessageListener(inner, new RecordingWriter()).notifyFinalFailure(
      batch(2),
      'out of retries',
    );
    expect(seen).toEqual(['2:out of retries']);
  });
});
