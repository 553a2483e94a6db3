import { describe, expect, it } from 'vitest';
import type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from '../../../../src/consumer/message-listener.js';
import { InvocationLogCapture } from '../../../../src/dev/console/invocation-log-capture.js';
import { InvocationRecorder } from '../../../../src/dev/console/invocation-recorder.js';
import { RecordingInvoker } from '../../../../src/dev/console/recording-invoker.js';
import { batchOutcomes, RecordingListener } from '../../../../src/dev/console/recording-listener.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../../src/invoke/invoker.js';
import type { MessageExt } from '../../../../src/protocol/message.js';

function consumed(msgId: string, reconsumeTimes = 0): ConsumedMessage {
  const message = {
    msgId,
    topic: 'T',
    queueId: 1,
    queueOffset: 7,
    reconsumeTimes,
    tags: 'created',
    keys: [`k-${msgId}`],
    body: Buffer.from(`body of ${msgId}`),
  } as unknown as MessageExt;
  return { message, queue: { topic: 'T', brokerName: 'broker-a', queueId: 1 }, topic: 'T' };
}

/** An event of the messages, as the function listener lays them out. */
function eventOf(messages: readonly ConsumedMessage[]) {
  return {
    eventSource: 'rocketmq',
    consumerGroup: 'G',
    Records: messages.map(({ message }) => ({
      messageId: message.msgId,
      body: message.body.toString('base64'),
      keys: message.keys,
    })),
  };
}

const context: ConsumeContext = { consumerGroup: 'G', orderly: false, signal: new AbortController().signal };

/** A listener that invokes `invoker` with the messages at `invoked` and answers `result`. */
function fakeListener(
  invoker: Invoker,
  invoked: (messages: readonly ConsumedMessage[]) => ConsumedMessage[],
  result: ConsumeResult,
): MessageListener {
  return {
    async consume(messages) {
      const chosen = invoked(messages);
      if (chosen.length > 0) {
        const event = eventOf(chosen);
        await invoker.invoke({
          functionRef: 'local:/x.mjs#handler',
          payload: Buffer.from(JSON.stringify(event)),
          event: () => structuredClone(event),
        });
      }
      return result;
    },
  };
}

function setUp(answer: InvokeOutcome = { ok: true, payload: Buffer.from('null') }) {
  const recorder = new InvocationRecorder();
  const requests: InvokeRequest[] = [];
  const inner: Invoker = {
    invoke: async (request) => {
      requests.push(request);
      return answer;
    },
    close: () => Promise.resolve(),
  };
  const invoker = new RecordingInvoker(inner, recorder, new InvocationLogCapture());
  return { recorder, invoker, requests };
}

describe('RecordingListener', () => {
  it('records the invocation of a batch and each record outcome: succeeded, retried, dead-lettered, filtered', async () => {
    const { recorder, invoker } = setUp({
      ok: true,
      payload: Buffer.from('{"batchItemFailures":[{"itemIdentifier":"b"}]}'),
    });
    const batch = ['a', 'b', 'c', 'f'].map((id) => consumed(id));
    const inner = fakeListener(invoker, (messages) => messages.slice(0, 3), {
      status: 'PARTIAL',
      failedIndexes: [1, 2],
      reason: 'x',
      deadLetter: [{ index: 2, reason: 'too old' }],
      filteredOut: 1,
    });
    const listener = new RecordingListener({
      inner,
      invoker,
      recorder,
      mappingId: 'orders',
      functionName: 'orders',
    });
    const messages = [...batch];
    await listener.consume(messages, context);

    const [summary] = recorder.list({ limit: 10 });
    expect(summary).toMatchObject({
      mappingId: 'orders',
      outcome: 'partial',
      recordCount: 3,
      messageIds: ['a', 'b', 'c'],
    });
    const view = recorder.get(summary?.id as string)?.view();
    expect(view?.records.map((r) => [r.messageId, r.outcome])).toEqual([
      ['a', 'succeeded'],
      ['b', 'retried'],
      ['c', 'dead-lettered'],
    ]);
    expect(view?.response).toEqual({
      kind: 'result',
      value: { batchItemFailures: [{ itemIdentifier: 'b' }] },
    });
    expect(view?.records[0]?.body).toEqual({ kind: 'text', text: 'body of a' });
    expect(recorder.filteredMessages('orders', 10)).toMatchObject([
      { messageId: 'f', broker: 'broker-a', queueId: 1, queueOffset: 7, keys: ['k-f'], tags: 'created' },
    ]);
    expect(recorder.messageWay('f').endedAs).toBe('filtered');

    // The consumer sends b back at the retry limit: the DLQ took it.
    await listener.notifyFinalFailure([consumed('b', 1)], 'retries exhausted');
    expect(recorder.get(summary?.id as string)?.view().records[1]?.outcome).toBe('dead-lettered');
    expect(recorder.messageWay('b')).toMatchObject({ endedAs: 'dead-lettered', retries: 0 });
  });

  it('passes notifyFinalFailure on to the listener it wraps', async () => {
    const { recorder, invoker } = setUp();
    const told: string[] = [];
    const inner: MessageListener = {
      consume: async () => ({ status: 'SUCCESS' }),
      notifyFinalFailure: async (messages, reason) => void told.push(`${messages.length} ${reason}`),
    };
    const listener = new RecordingListener({ inner, invoker, recorder, mappingId: 'm', functionName: 'f' });
    await listener.notifyFinalFailure([consumed('x')], 'why');
    expect(told).toEqual(['1 why']);
  });

  it('records an invoke failure as an error, and the records of a listener that threw as retried', async () => {
    const { recorder, invoker } = setUp({
      ok: false,
      kind: 'function-error',
      message: JSON.stringify({ errorType: 'TypeError', errorMessage: 'x is undefined' }),
    });
    const failing: MessageListener = {
      async consume(messages) {
        await fakeListener(invoker, (m) => [...m], { status: 'SUCCESS' }).consume(messages, context);
        throw new Error('listener broke');
      },
    };
    const listener = new RecordingListener({
      inner: failing,
      invoker,
      recorder,
      mappingId: 'm',
      functionName: 'f',
    });
    await expect(listener.consume([consumed('z')], context)).rejects.toThrow('listener broke');
    const [summary] = recorder.list({ limit: 1 });
    const view = recorder.get(summary?.id as string)?.view();
    expect(view?.response).toEqual({ kind: 'error', errorType: 'TypeError', errorMessage: 'x is undefined' });
    expect(view?.outcome).toBe('error');
    expect(view?.records[0]?.outcome).toBe('retried');
  });

  it('replays an edited event outside any batch: a new invocation with replayOf, outcomes from the answer', async () => {
    const { recorder, invoker, requests } = setUp({
      ok: true,
      payload: Buffer.from('{"batchItemFailures":[{"itemIdentifier":"b"}]}'),
    });
    const edited = eventOf([consumed('a'), consumed('b')]);
    const replay = await invoker.replay({
      mappingId: 'orders',
      functionName: 'orders',
      functionRef: 'local:/x.mjs#handler',
      event: edited,
      replayOf: 'i1',
    });
    expect(replay.summary()).toMatchObject({ replayOf: 'i1', outcome: 'partial' });
    expect(replay.view().records.map((r) => r.outcome)).toEqual(['succeeded', 'failed']);
    expect(requests[0]?.event?.()).toEqual(edited);
    expect(recorder.messageWay('a').endedAs).toBe('unknown');
  });
});

describe('batchOutcomes', () => {
  it('fails everything from the first failed index on in orderly mode, dead letters excepted', () => {
    expect(
      batchOutcomes(
        5,
        { status: 'PARTIAL', failedIndexes: [1, 3], reason: 'x', deadLetter: [{ index: 1, reason: 'old' }] },
        true,
      ),
    ).toEqual(['succeeded', 'dead-lettered', 'succeeded', 'retried', 'retried']);
    expect(batchOutcomes(3, { status: 'PARTIAL', failedIndexes: [1], reason: 'x' }, false)).toEqual([
      'succeeded',
      'retried',
      'succeeded',
    ]);
    expect(batchOutcomes(2, { status: 'FAILED', reason: 'x' }, false)).toEqual(['retried', 'retried']);
    expect(batchOutcomes(2, undefined, false)).toEqual(['retried', 'retried']);
  });
});
