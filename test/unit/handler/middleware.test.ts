import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { rocketmqBatchProcessor } from '../../../src/handler/middleware.js';
import type { RocketMQRecordHandler } from '../../../src/handler/process-batch.js';
import type { RocketMQEvent, RocketMQRecord } from '../../../src/handler/types.js';
import { eventOf, failedIds, lambdaContext } from './fixtures.js';

const bodies = (count: number): string[] => Array.from({ length: count }, (_, i) => String(i));

/** Fails the records whose body is in `failing`; remembers the order records ran in. */
function failing(...bad: string[]) {
  const ran: string[] = [];
  const recordHandler: RocketMQRecordHandler = async (record) => {
    ran.push(record.messageId);
    await Promise.resolve();
    if (bad.includes(Buffer.from(record.body, 'base64').toString('utf8'))) throw new Error('failed');
  };
  return { recordHandler, ran };
}

describe('rocketmqBatchProcessor with @middy/core', () => {
  it('concurrent mode: responds with exactly the failed records', async () => {
    const { recordHandler, ran } = failing('1', '4');
    const handler = middy().use(rocketmqBatchProcessor({ recordHandler, concurrency: 2 }));
    const response = await handler(eventOf(bodies(6)), lambdaContext());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'id-1' }, { itemIdentifier: 'id-4' }] });
    expect([...ran].sort()).toEqual(['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
  });

  it('orderly mode: stops at the first failure and reports it and all after it', async () => {
    const { recordHandler, ran } = failing('2', '3');
    const handler = middy().use(rocketmqBatchProcessor({ recordHandler, orderly: true }));
    const response = await handler(eventOf(bodies(5)), lambdaContext());
    expect(failedIds(response)).toEqual(['id-2', 'id-3', 'id-4']);
    expect(ran).toEqual(['id-0', 'id-1', 'id-2']);
  });

  it('all records succeed: an empty batchItemFailures', async () => {
    const handler = middy().use(rocketmqBatchProcessor({ recordHandler: failing().recordHandler }));
    expect(await handler(eventOf(bodies(3)), lambdaContext())).toEqual({ batchItemFailures: [] });
  });

  it('fails records whose handler throws non-Error values', async () => {
    const errors: Error[] = [];
    const handler = middy().use(
      rocketmqBatchProcessor({
        recordHandler: (record: RocketMQRecord) => {
          if (record.messageId === 'id-0') throw 'plain string';
          if (record.messageId === 'id-2') return Promise.reject(42);
        },
        onRecordError: (error) => errors.push(error),
      }),
    );
    expect(failedIds(await handler(eventOf(bodies(3)), lambdaContext()))).toEqual(['id-0', 'id-2']);
    expect(errors.map((error) => error.cause)).toEqual(['plain string', 42]);
  });

  it('gives record handlers the context that before middlewares prepared', async () => {
    const seen: string[] = [];
    const handler = middy()
      .before((request) => {
        Object.assign(request.context, { tenant: 'acme' });
      })
      .use(
        rocketmqBatchProcessor({
          recordHandler: (record, context) => {
            seen.push(
              `${record.messageId}:${(context as { tenant?: string }).tenant}:${context.awsRequestId}`,
            );
          },
        }),
      );
    await handler(eventOf(bodies(2)), lambdaContext('req-7'));
    expect(seen).toEqual(['id-0:acme:req-7', 'id-1:acme:req-7']);
  });

  it('runs after the base handler, replaces its response, and is seen by after middlewares used before it', async () => {
    const order: string[] = [];
    let seenByAfter: unknown;
    const handler = middy(async () => {
      order.push('base handler');
      return 'ignored';
    })
      .use({
        after: (request) => {
          order.push('outer after');
          seenByAfter = request.response;
        },
      })
      .use(
        rocketmqBatchProcessor({
          recordHandler: () => {
            order.push('record');
          },
        }),
      );
    const response = await handler(eventOf(bodies(1)), lambdaContext());
    expect(order).toEqual(['base handler', 'record', 'outer after']);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(seenByAfter).toEqual({ batchItemFailures: [] });
  });

  it('fails the invoke for an event that is not a RocketMQ batch', async () => {
    const handler = middy().use(rocketmqBatchProcessor({ recordHandler: failing().recordHandler }));
    const notOurs = { detail: {} } as unknown as RocketMQEvent;
    await expect(handler(notOurs, lambdaContext())).rejects.toThrow(
      'invalid RocketMQ event: Records: expected an array',
    );
  });

  it('rejects option typos and a missing record handler when it is created', () => {
    const { recordHandler } = failing();
    const typo = { recordHandler, concurrancy: 2 } as unknown as Parameters<typeof rocketmqBatchProcessor>[0];
    expect(() => rocketmqBatchProcessor(typo)).toThrow(
      'rocketmqBatchProcessor: unknown option "concurrancy" (did you mean "concurrency"?)',
    );
    const oldName = { handler: recordHandler } as unknown as Parameters<typeof rocketmqBatchProcessor>[0];
    expect(() => rocketmqBatchProcessor(oldName)).toThrow(
      'rocketmqBatchProcessor: unknown option "handler" (did you mean "recordHandler"?)',
    );
    const missing = {} as unknown as Parameters<typeof rocketmqBatchProcessor>[0];
    expect(() => rocketmqBatchProcessor(missing)).toThrow(
      'rocketmqBatchProcessor: the record handler must be a function, got undefined',
    );
    expect(() => rocketmqBatchProcessor({ recordHandler, orderly: true, concurrency: 3 })).toThrow(
      'must be 1 or left out in orderly mode',
    );
  });
});
