import { describe, expect, it } from 'vitest';
import { InvocationRecorder } from '../../../../src/dev/console/invocation-recorder.js';
import type { InvocationSummary } from '../../../../src/dev/console/recorded-invocation.js';

/** An event of records with these ids (and a key each: `key-<id>`). */
function eventOf(...ids: string[]) {
  return {
    eventSource: 'rocketmq',
    consumerGroup: 'G',
    Records: ids.map((id, index) => ({
      messageId: id,
      topic: 'T',
      brokerName: 'broker-a',
      queueId: 0,
      queueOffset: index,
      tags: 'order',
      keys: [`key-${id}`],
      reconsumeTimes: 0,
      body: Buffer.from(JSON.stringify({ id })).toString('base64'),
      properties: {},
    })),
  };
}

function begin(recorder: InvocationRecorder, functionName: string, ...ids: string[]) {
  return recorder.begin({ mappingId: functionName, functionName, event: eventOf(...ids) });
}

describe('InvocationRecorder', () => {
  it('keeps the newest invocations per function, counts the dropped ones, and forgets them everywhere', () => {
    const recorder = new InvocationRecorder({ bounds: { invocationsPerFunction: 3 } });
    const invocations = Array.from({ length: 5 }, (_, n) => begin(recorder, 'orders', `m${n}`));
    const ids = invocations.map((invocation) => invocation.id);
    const other = begin(recorder, 'ledger', 'x');
    // Unsettled invocations are not listed yet.
    expect(recorder.list({ limit: 100 })).toEqual([]);
    recorder.settle([...invocations, other], () => undefined);
    expect(recorder.list({ mappingId: 'orders', limit: 100 }).map((s) => s.id)).toEqual(
      ids.slice(2).reverse(),
    );
    expect(recorder.dropped('orders')).toBe(2);
    expect(recorder.dropped('ledger')).toBe(0);
    expect(recorder.get(ids[0] as string)).toBeUndefined();
    expect(recorder.get(other.id)?.functionName).toBe('ledger');
    // The message of a dropped invocation still has its way, without the invocation.
    expect(recorder.messageWay('m0')).toMatchObject({ invocations: [], endedAs: 'in-flight' });
    expect(recorder.list({ limit: 2 })).toHaveLength(2);
  });

  it('forgets the oldest messages past its bound, and keeps filtered messages per mapping within theirs', () => {
    const recorder = new InvocationRecorder({ bounds: { trackedMessages: 2, filteredPerMapping: 2 } });
    begin(recorder, 'orders', 'a', 'b', 'c');
    expect(recorder.messageWay('a').endedAs).toBe('unknown');
    expect(recorder.messageWay('c').endedAs).toBe('in-flight');
    for (const id of ['f1', 'f2', 'f3']) {
      recorder.filtered({
        mappingId: 'orders',
        messageId: id,
        keys: [],
        topic: 'T',
        broker: 'broker-a',
        queueId: 0,
        queueOffset: 0,
        reconsumeTimes: 0,
        body: Buffer.from([0xff, 0x00]),
      });
    }
    const filtered = recorder.filteredMessages('orders', 10);
    expect(filtered.map((m) => m.messageId).sort()).toEqual(['f2', 'f3']);
    expect(filtered[0]?.body).toEqual({ kind: 'binary', hex: 'ff00', bytes: 2 });
    expect(recorder.messageWay('f3').endedAs).toBe('filtered');
  });

  it('settles record outcomes, derives the invocation outcome, and tells listeners once settled', () => {
    const recorder = new InvocationRecorder();
    const told: InvocationSummary[] = [];
    recorder.onInvocation((summary) => told.push(summary));
    const invocation = begin(recorder, 'orders', 'ok', 'bad', 'dead');
    invocation.finish({ kind: 'result', value: { batchItemFailures: [{ itemIdentifier: 'bad' }] } }, 5);
    expect(told).toEqual([]);
    expect(invocation.view().records.map((r) => r.outcome)).toEqual(['pending', 'pending', 'pending']);
    const outcomes: Record<string, 'succeeded' | 'retried' | 'dead-lettered'> = {
      ok: 'succeeded',
      bad: 'retried',
      dead: 'dead-lettered',
    };
    recorder.settle([invocation], (id) => outcomes[id]);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ id: invocation.id, outcome: 'partial', recordCount: 3, durationMs: 5 });
    const view = invocation.view();
    expect(view.records.map((r) => r.outcome)).toEqual(['succeeded', 'retried', 'dead-lettered']);
    expect(view.records[0]).toMatchObject({
      messageId: 'ok',
      keys: ['key-ok'],
      tags: 'order',
      broker: 'broker-a',
      body: { kind: 'json', json: { id: 'ok' } },
    });
    expect(recorder.messageWay('ok')).toMatchObject({ endedAs: 'succeeded', retries: 0 });
    expect(recorder.messageWay('bad')).toMatchObject({ endedAs: 'in-flight', retries: 1 });
    expect(recorder.messageWay('dead')).toMatchObject({ endedAs: 'dead-lettered' });

    // The filter matches invocation outcomes, record outcomes, message ids and keys.
    expect(recorder.list({ outcome: 'partial', limit: 10 })).toHaveLength(1);
    expect(recorder.list({ outcome: 'retried', limit: 10 })).toHaveLength(1);
    expect(recorder.list({ outcome: 'filtered', limit: 10 })).toHaveLength(0);
    expect(recorder.list({ messageId: 'bad', limit: 10 })).toHaveLength(1);
    expect(recorder.list({ key: 'key-dead', limit: 10 })).toHaveLength(1);
    expect(recorder.list({ key: 'nope', limit: 10 })).toHaveLength(0);
  });

  it('turns a retried record dead-lettered when the consumer reports the DLQ took it, and tells it again', () => {
    const recorder = new InvocationRecorder();
    const told: InvocationSummary[] = [];
    recorder.onInvocation((summary) => told.push(summary));
    const first = begin(recorder, 'orders', 'm');
    first.finish({ kind: 'error', errorType: 'Error', errorMessage: 'boom' }, 1);
    recorder.settle([first], () => 'retried');
    const second = begin(recorder, 'orders', 'm');
    second.finish({ kind: 'error', errorType: 'Error', errorMessage: 'boom' }, 1);
    recorder.settle([second], () => 'retried');
    expect(recorder.messageWay('m')).toMatchObject({ retries: 2, endedAs: 'in-flight' });

    recorder.deadLettered(['m']);
    const way = recorder.messageWay('m');
    expect(way).toMatchObject({ retries: 1, endedAs: 'dead-lettered' });
    expect(way.invocations.map((s) => s.id)).toEqual([first.id, second.id]);
    expect(second.view().records[0]?.outcome).toBe('dead-lettered');
    expect(first.view().records[0]?.outcome).toBe('retried');
    expect(told.map((s) => s.id)).toEqual([first.id, second.id, second.id]);
    expect(told.at(-1)?.outcome).toBe('error');
  });

  it('keeps the newest log lines within the line and byte bounds, and marks the truncation', () => {
    const recorder = new InvocationRecorder({ bounds: { log: { maxLines: 3, maxBytes: 10 } } });
    const byLines = begin(recorder, 'orders', 'a');
    for (const text of ['1', '2', '3', '4']) byLines.appendLog('log', text);
    expect(byLines.view().logs.map((l) => l.text)).toEqual(['1', '2', '3']);
    expect(byLines.view().logsTruncated).toBe(true);
    const byBytes = begin(recorder, 'orders', 'b');
    byBytes.appendLog('error', '12345678');
    byBytes.appendLog('error', '123');
    expect(byBytes.view().logs).toHaveLength(1);
    expect(byBytes.view().logsTruncated).toBe(true);
    const fine = begin(recorder, 'orders', 'c');
    fine.appendLog('info', 'hi');
    expect(fine.view()).toMatchObject({ logs: [{ level: 'info', text: 'hi' }], logsTruncated: false });
  });

  it('does not count replays in a message way', () => {
    const recorder = new InvocationRecorder();
    const original = begin(recorder, 'orders', 'm');
    recorder.settle([original], () => 'succeeded');
    const replay = recorder.begin({
      mappingId: 'orders',
      functionName: 'orders',
      event: eventOf('m'),
      replayOf: original.id,
    });
    recorder.settle([replay], () => 'failed');
    expect(recorder.messageWay('m')).toMatchObject({ endedAs: 'succeeded', retries: 0 });
    expect(recorder.messageWay('m').invocations.map((s) => s.id)).toEqual([original.id]);
    expect(replay.summary()).toMatchObject({ replayOf: original.id, outcome: 'failed' });
  });
});
