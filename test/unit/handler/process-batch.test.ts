import { describe, expect, it, vi } from 'vitest';
import { RocketMQParseError } from '../../../src/handler/errors.js';
import { createBatchHandler, processRocketMQBatch } from '../../../src/handler/process-batch.js';
import type { RocketMQRecord } from '../../../src/handler/types.js';
import { mapFunctionResult } from '../../../src/invoke/result-mapper.js';
import { eventOf, failedIds, lambdaContext } from './fixtures.js';

const bodies = (count: number): string[] => Array.from({ length: count }, (_, i) => String(i));

/** A record handler that fails the records whose body is in `failing`, and records what it saw. */
function recorder(failing: readonly string[] = [], delayMs = 0) {
  const started: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const handler = async (record: RocketMQRecord): Promise<void> => {
    started.push(record.messageId);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const body = Buffer.from(record.body, 'base64').toString('utf8');
      if (failing.includes(body)) throw new Error(`record ${body} failed`);
    } finally {
      inFlight -= 1;
    }
  };
  return { handler, started, maxInFlight: () => maxInFlight };
}

describe('processRocketMQBatch, concurrent mode', () => {
  it('runs every record and fails exactly the ones that threw', async () => {
    const run = recorder(['1', '3', '4']);
    const response = await processRocketMQBatch(eventOf(bodies(6)), run.handler);
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: 'id-1' }, { itemIdentifier: 'id-3' }, { itemIdentifier: 'id-4' }],
    });
    expect(run.started).toEqual(['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
  });

  it('runs one record at a time by default, in batch order', async () => {
    const run = recorder([], 2);
    await processRocketMQBatch(eventOf(bodies(5)), run.handler);
    expect(run.maxInFlight()).toBe(1);
    expect(run.started).toEqual(['id-0', 'id-1', 'id-2', 'id-3', 'id-4']);
  });

  it('runs up to `concurrency` records at once', async () => {
    const run = recorder(['7'], 5);
    const response = await processRocketMQBatch(eventOf(bodies(10)), run.handler, { concurrency: 3 });
    expect(run.maxInFlight()).toBe(3);
    expect(run.started).toHaveLength(10);
    expect(failedIds(response)).toEqual(['id-7']);
  });

  it('runs all records at once with concurrency Infinity', async () => {
    const run = recorder(['0', '9'], 5);
    const response = await processRocketMQBatch(eventOf(bodies(10)), run.handler, {
      concurrency: Number.POSITIVE_INFINITY,
    });
    expect(run.maxInFlight()).toBe(10);
    expect(failedIds(response)).toEqual(['id-0', 'id-9']);
  });

  it('answers an empty list when every record succeeds, and for an empty batch', async () => {
    expect(await processRocketMQBatch(eventOf(bodies(3)), recorder().handler)).toEqual({
      batchItemFailures: [],
    });
    expect(await processRocketMQBatch(eventOf([]), recorder().handler)).toEqual({ batchItemFailures: [] });
  });

  it('fails records whose handler throws synchronously or throws non-Error values', async () => {
    const thrownValues: unknown[] = ['a string', undefined, { code: 42 }, null];
    const errors: Error[] = [];
    const response = await processRocketMQBatch(
      eventOf(bodies(5)),
      (record) => {
        const index = Number(record.messageId.slice(3));
        if (index < thrownValues.length) throw thrownValues[index];
        return 'ignored';
      },
      { onRecordError: (error) => errors.push(error) },
    );
    expect(failedIds(response)).toEqual(['id-0', 'id-1', 'id-2', 'id-3']);
    expect(errors.every((error) => error instanceof Error)).toBe(true);
    expect(errors.map((error) => error.cause)).toEqual(thrownValues);
    expect(errors[0]?.message).toBe('record handler threw a non-Error value: a string ("a string")');
  });

  it('tells onRecordError about each failure with the original Error and the record', async () => {
    const onRecordError = vi.fn();
    await processRocketMQBatch(eventOf(bodies(3)), recorder(['2']).handler, { onRecordError });
    expect(onRecordError).toHaveBeenCalledTimes(1);
    expect(onRecordError.mock.calls[0]?.[0]).toEqual(new Error('record 2 failed'));
    expect(onRecordError.mock.calls[0]?.[1]).toMatchObject({ messageId: 'id-2' });
  });

  it('names a shared messageId once (a message and its redelivery in one batch)', async () => {
    const event = eventOf(['a', 'b', 'c']);
    const [first, second, third] = event.Records;
    if (first === undefined || second === undefined || third === undefined) throw new Error('three records');
    third.messageId = first.messageId;
    const response = await processRocketMQBatch(event, () => Promise.reject(new Error('down')));
    expect(failedIds(response)).toEqual(['id-0', 'id-1']);
  });

  it('fails the invoke when onRecordError throws, after the running records finish', async () => {
    const run = recorder(['0'], 5);
    const finished: string[] = [];
    const handler = async (record: RocketMQRecord) => {
      await run.handler(record);
      finished.push(record.messageId);
    };
    const boom = new Error('logger down');
    await expect(
      processRocketMQBatch(eventOf(bodies(8)), handler, {
        concurrency: 3,
        onRecordError: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    // id-0 failed while id-1 and id-2 ran; those finished and nothing else started.
    expect(run.started).toEqual(['id-0', 'id-1', 'id-2']);
    expect(finished).toEqual(['id-1', 'id-2']);
  });

  it('hands each record handler the context', async () => {
    const context = lambdaContext('req-42');
    const seen: string[] = [];
    await processRocketMQBatch(
      eventOf(bodies(2)),
      (_record, ctx: typeof context) => seen.push(ctx.awsRequestId),
      {
        context,
      },
    );
    expect(seen).toEqual(['req-42', 'req-42']);
  });
});

describe('processRocketMQBatch, orderly mode', () => {
  it('stops at the first failure and reports it and every record after it', async () => {
    const run = recorder(['2', '4']);
    const response = await processRocketMQBatch(eventOf(bodies(6)), run.handler, { orderly: true });
    expect(run.started).toEqual(['id-0', 'id-1', 'id-2']);
    expect(failedIds(response)).toEqual(['id-2', 'id-3', 'id-4', 'id-5']);
  });

  it('reports the whole batch when the first record fails, and nothing when none does', async () => {
    const first = recorder(['0']);
    expect(
      failedIds(await processRocketMQBatch(eventOf(bodies(3)), first.handler, { orderly: true })),
    ).toEqual(['id-0', 'id-1', 'id-2']);
    expect(first.started).toEqual(['id-0']);
    const none = await processRocketMQBatch(eventOf(bodies(3)), recorder().handler, { orderly: true });
    expect(none).toEqual({ batchItemFailures: [] });
  });

  it('is mapped by the poller to "commit the records before the failure, retry the rest"', async () => {
    const event = eventOf(bodies(5));
    const response = await processRocketMQBatch(event, recorder(['3']).handler, { orderly: true });
    const result = mapFunctionResult(
      { ok: true, payload: Buffer.from(JSON.stringify(response)) },
      event.Records,
    );
    expect(result).toMatchObject({ status: 'PARTIAL', failedIndexes: [3, 4] });
  });

  it('calls onRecordError only for the failed record, not for the ones it skipped', async () => {
    const onRecordError = vi.fn();
    await processRocketMQBatch(eventOf(bodies(4)), recorder(['1']).handler, { orderly: true, onRecordError });
    expect(onRecordError).toHaveBeenCalledOnce();
  });
});

describe('processRocketMQBatch, options and events', () => {
  const handler = recorder().handler;
  const event = eventOf(bodies(1));

  it('rejects a misspelt option, suggesting the right one', async () => {
    const options = { concurency: 4 } as unknown as Record<string, never>;
    await expect(processRocketMQBatch(event, handler, options)).rejects.toThrow(
      'processRocketMQBatch: unknown option "concurency" (did you mean "concurrency"?)',
    );
    const other = { Orderly: true, banana: 1 } as unknown as Record<string, never>;
    await expect(processRocketMQBatch(event, handler, other)).rejects.toThrow(
      'unknown option "Orderly" (did you mean "orderly"?); unknown option "banana"',
    );
  });

  it('rejects bad values, naming every bad option', async () => {
    const bad = (options: unknown) =>
      processRocketMQBatch(event, handler, options as Record<string, never>).then(
        () => 'accepted',
        (error: unknown) =>
          error instanceof TypeError ? error.message : `not a TypeError: ${String(error)}`,
      );
    expect(await bad({ concurrency: 0 })).toMatch(
      /"concurrency" must be a positive integer or Infinity, got a number \(0\)/,
    );
    expect(await bad({ concurrency: 1.5 })).toMatch(/"concurrency" must be a positive integer/);
    expect(await bad({ concurrency: '2' })).toMatch(/got a string \("2"\)/);
    expect(await bad({ orderly: 'yes', onRecordError: 'log' })).toMatch(
      /"orderly" must be a boolean, got a string \("yes"\); "onRecordError" must be a function/,
    );
    expect(await bad({ orderly: true, concurrency: 4 })).toMatch(/must be 1 or left out in orderly mode/);
    expect(await bad([])).toMatch(/options must be an object, got an array/);
    expect(await bad({ orderly: true, concurrency: 1, onRecordError: undefined })).toBe('accepted');
  });

  it('rejects a record handler that is not a function', async () => {
    const notAFunction = 'handler' as unknown as () => void;
    await expect(processRocketMQBatch(event, notAFunction)).rejects.toThrow(
      'processRocketMQBatch: the record handler must be a function, got a string ("handler")',
    );
  });

  it('fails the whole invoke for an event without usable Records, before running anything', async () => {
    const run = recorder();
    const noRecords = {} as unknown as typeof event;
    await expect(processRocketMQBatch(noRecords, run.handler)).rejects.toThrow(
      'invalid RocketMQ event: Records: expected an array, got undefined',
    );
    const badIds = { Records: [{ messageId: 'a' }, { messageId: 7 }, 'x'] } as unknown as typeof event;
    const error: unknown = await processRocketMQBatch(badIds, run.handler).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RocketMQParseError);
    expect((error as RocketMQParseError).issues.map((issue) => issue.path)).toEqual([
      'Records[1].messageId',
      'Records[2]',
    ]);
    expect(run.started).toEqual([]);
  });
});

describe('createBatchHandler', () => {
  it('makes a handler that processes each invoke with its context', async () => {
    const seen: string[] = [];
    const handler = createBatchHandler(
      async (record, context) => {
        seen.push(`${record.messageId}@${context.awsRequestId}`);
        if (record.messageId === 'id-1') throw new Error('no');
      },
      { orderly: true },
    );
    expect(failedIds(await handler(eventOf(bodies(3)), lambdaContext('r1')))).toEqual(['id-1', 'id-2']);
    expect(failedIds(await handler(eventOf(bodies(1)), lambdaContext('r2')))).toEqual([]);
    expect(seen).toEqual(['id-0@r1', 'id-1@r1', 'id-0@r2']);
  });

  it('checks its options when it is created', () => {
    const options = { ordery: true } as unknown as Record<string, never>;
    expect(() => createBatchHandler(() => undefined, options)).toThrow(
      'createBatchHandler: unknown option "ordery" (did you mean "orderly"?)',
    );
  });
});
