import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ConsumeContext } from '../../../src/consumer/message-listener.js';
import { FunctionMessageListener } from '../../../src/invoke/function-listener.js';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import type { InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { LocalInvoker } from '../../../src/invoke/local-invoker.js';
import { batchOf, consumed } from './consumed-message.js';

const fixturesDir = fileURLToPath(new URL('../../fixtures/handlers/', import.meta.url));
const context: ConsumeContext = {
  consumerGroup: 'orders-consumer',
  orderly: false,
  signal: new AbortController().signal,
};

/** A logger that keeps its lines. */
function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function listener(exportName: string, logger?: pino.Logger, timeoutMs?: number): FunctionMessageListener {
  return new FunctionMessageListener({
    invoker: new LocalInvoker({ baseDir: fixturesDir, timeoutMs }),
    functionRef: `local:./handlers.ts#${exportName}`,
    consumerGroup: 'orders-consumer',
    logger,
  });
}

describe('FunctionMessageListener with the LocalInvoker', () => {
  it('succeeds when the handler returns nothing, without logging', async () => {
    const { logger, lines } = capturingLogger();
    expect(await listener('success', logger).consume(batchOf(4), context)).toEqual({ status: 'SUCCESS' });
    expect(lines).toEqual([]);
  });

  it('fails exactly the records the handler names, and logs the batch', async () => {
    const { logger, lines } = capturingLogger();
    const result = await listener('oddFailures', logger).consume(batchOf(6), context);
    expect(result).toEqual({
      status: 'PARTIAL',
      failedIndexes: [1, 3, 5],
      reason: 'function reported 3 of 6 records failed (batchItemFailures)',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      component: 'invoke.function-listener',
      msg: 'batch failed',
      functionRef: 'local:./handlers.ts#oddFailures',
      consumerGroup: 'orders-consumer',
      status: 'PARTIAL',
      reason: 'function reported 3 of 6 records failed (batchItemFailures)',
      batchSize: 6,
      failedCount: 3,
      failedMessageIds: ['id-1', 'id-3', 'id-5'],
    });
  });

  it('applies ackIndex', async () => {
    const batch = batchOf(5).map((m, i) =>
      i === 0 ? consumed({ ...m.message, properties: { ...m.message.properties, ackIndex: '2' } }) : m,
    );
    expect(await listener('statusAck').consume(batch, context)).toMatchObject({
      status: 'PARTIAL',
      failedIndexes: [3, 4],
    });
  });

  it.each([
    ['throws', 'invoke failed (function-error): {"errorType":"TypeError","errorMessage":"boom"}'],
    ['reconsumeLater', 'function returned RECONSUME_LATER'],
    [
      'unknownIdentifier',
      'batchItemFailures[0].itemIdentifier "no-such-message" names no record of the batch',
    ],
    [
      'malformedBatchItemFailures',
      'malformed function response: batchItemFailures is a string ("all of them"), not an array',
    ],
    [
      'malformedItem',
      'malformed function response: batchItemFailures[0].itemIdentifier is missing, not a string',
    ],
    [
      'malformedStatus',
      'malformed function response: status "OK" is neither CONSUME_SUCCESS nor RECONSUME_LATER',
    ],
    ['malformedAckIndex', 'malformed function response: ackIndex 1.5 is not an integer'],
  ])('fails the whole batch for %s, with the reason in the log', async (exportName, reason) => {
    const { logger, lines } = capturingLogger();
    expect(await listener(exportName, logger).consume(batchOf(3), context)).toEqual({
      status: 'FAILED',
      reason,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 'FAILED', reason, failedCount: 3 });
  });

  it('fails the whole batch on a timeout', async () => {
    const result = await listener('sleepsPastTimeout', undefined, 50).consume(batchOf(2), context);
    expect(result).toEqual({
      status: 'FAILED',
      reason: 'invoke failed (timeout): Task timed out after 0.05 seconds',
    });
  });

  it('succeeds for a response that is neither a batch nor a status response', async () => {
    expect(await listener('returnsString').consume(batchOf(2), context)).toEqual({ status: 'SUCCESS' });
    expect(await listener('echo').consume(batchOf(2), context)).toEqual({ status: 'SUCCESS' });
  });

  it('lets a fatal error through', async () => {
    const result = listener('doesNotExist').consume(batchOf(1), context);
    await expect(result).rejects.toBeInstanceOf(InvokeError);
    await expect(result).rejects.toMatchObject({ fatal: true });
  });

  it('sends the serialized event with its group and the consume signal, and logs odd responses', async () => {
    const requests: InvokeRequest[] = [];
    const payloads: Buffer[] = [];
    const fake: Invoker = {
      async invoke(request) {
        requests.push(request);
        payloads.push(request.payload);
        return { ok: true, payload: Buffer.from('not json') };
      },
      async close() {
        // nothing to release
      },
    };
    const { logger, lines } = capturingLogger();
    const signal = new AbortController().signal;
    const result = await new FunctionMessageListener({
      invoker: fake,
      functionRef: 'my-function',
      consumerGroup: 'orders-consumer',
      logger,
    }).consume(batchOf(2), { ...context, signal });
    expect(result).toEqual({ status: 'SUCCESS' });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.signal).toBe(signal);
    expect(requests[0]?.functionRef).toBe('my-function');
    const event = JSON.parse(payloads[0]?.toString('utf8') ?? '') as {
      consumerGroup: string;
      Records: unknown[];
    };
    expect(event.consumerGroup).toBe('orders-consumer');
    expect(event.Records).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'function response ignored',
      notice: { kind: 'non-json-payload' },
    });
  });

  it('offers the event as fresh objects equal to the parse of the payload, while the invoke runs', async () => {
    const requests: InvokeRequest[] = [];
    const seen: { event: unknown; again: unknown; payload: Buffer; payloadAgain: Buffer }[] = [];
    const fake: Invoker = {
      async invoke(request) {
        requests.push(request);
        const event = request.event?.();
        seen.push({
          event,
          again: request.event?.(),
          payload: request.payload,
          payloadAgain: request.payload,
        });
        return { ok: true, payload: Buffer.from('null') };
      },
      async close() {
        // nothing to release
      },
    };
    const batch = [
      consumed({ msgId: 'a', keys: ['k1'], properties: { UNIQ_KEY: 'a', color: 'red' } }),
      consumed({ msgId: 'b', body: Buffer.from([0xff, 0x00]) }),
    ];
    await new FunctionMessageListener({
      invoker: fake,
      functionRef: 'my-function',
      consumerGroup: 'orders-consumer',
    }).consume(batch, context);
    const { event, again, payload, payloadAgain } = seen[0] ?? { payload: Buffer.alloc(0) };
    expect(event).toMatchObject({ Records: [{ messageId: 'a' }, { messageId: 'b' }] });
    expect(event).toStrictEqual(JSON.parse(payload.toString('utf8')));
    expect(again).toStrictEqual(event);
    expect(again).not.toBe(event);
    expect(payloadAgain).toBe(payload); // serialized once
    // Once the batch is done the request lets go of its records (docs/architecture.md, "Garbage"): a
    // request is read while its invoke runs.
    expect(requests[0]?.event?.()).toMatchObject({ Records: [] });
  });

  it('makes every invoke request with the payload getter on a shared prototype, not per request', async () => {
    // An object literal with a getter gets a V8 map of its own per request (in the old generation),
    // which kept each batch alive through scavenges: the requests must share one shape.
    const requests: InvokeRequest[] = [];
    const fake: Invoker = {
      async invoke(request) {
        requests.push(request);
        expect(JSON.parse(request.payload.toString('utf8'))).toStrictEqual(request.event?.());
        return { ok: false, kind: 'function-error', message: '{"errorType":"Error","errorMessage":"x"}' };
      },
      async close() {
        // nothing to release
      },
    };
    await new FunctionMessageListener({
      invoker: fake,
      functionRef: 'my-function',
      consumerGroup: 'orders-consumer',
      bisectBatchOnError: true,
    }).consume(batchOf(2), context);
    expect(requests).toHaveLength(3);
    const [first, ...others] = requests as [InvokeRequest, ...InvokeRequest[]];
    expect(Object.getOwnPropertyDescriptor(first, 'payload')).toBeUndefined();
    for (const other of others) expect(Object.getPrototypeOf(other)).toBe(Object.getPrototypeOf(first));
  });

  it('never serializes the payload for the LocalInvoker, which takes the event objects', async () => {
    const local = new LocalInvoker({ baseDir: fixturesDir });
    const requests: InvokeRequest[] = [];
    const payloadReads: string[] = [];
    const watching: Invoker = {
      invoke(request) {
        requests.push(request);
        const watched = new Proxy(request, {
          get(target, key, receiver) {
            if (key === 'payload') payloadReads.push(request.functionRef);
            return Reflect.get(target, key, receiver);
          },
        });
        return local.invoke(watched);
      },
      close: () => local.close(),
    };
    const result = await new FunctionMessageListener({
      invoker: watching,
      functionRef: 'local:./handlers.ts#oddFailures',
      consumerGroup: 'orders-consumer',
    }).consume(batchOf(4), context);
    expect(result).toMatchObject({ status: 'PARTIAL', failedIndexes: [1, 3] });
    expect(requests).toHaveLength(1);
    expect(payloadReads).toEqual([]);
    await watching.close();
  });
});
