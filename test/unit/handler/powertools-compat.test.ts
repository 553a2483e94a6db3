/**
 * Proof that Powertools for AWS Lambda's batch utility works on our event unchanged: its SQS processor
 * reads only `Records[].messageId` (to report failures) and hands the record as it is to the record
 * handler, so the response it builds is one the poller maps to exactly the failed records.
 */
import {
  BatchProcessor,
  EventType,
  FullBatchFailureError,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import { describe, expect, it } from 'vitest';
import { processRocketMQBatch } from '../../../src/handler/process-batch.js';
import { recordJson } from '../../../src/handler/record-body.js';
import { RocketMQBatchResponseSchema } from '../../../src/handler/schemas.js';
import type { RocketMQEvent, RocketMQRecord } from '../../../src/handler/types.js';
import { mapFunctionResult } from '../../../src/invoke/result-mapper.js';
import { eventOf, lambdaContext } from './fixtures.js';

/** Orders `{ "n": i }`; the ones whose n is in `bad` fail. */
function orders(count: number): RocketMQEvent {
  return eventOf(Array.from({ length: count }, (_, i) => JSON.stringify({ n: i })));
}

function failingFor(bad: readonly number[]) {
  const seen: string[] = [];
  const recordHandler = async (record: RocketMQRecord): Promise<void> => {
    seen.push(record.messageId);
    const { n } = recordJson(record) as { n: number };
    await new Promise((resolve) => setTimeout(resolve, (n % 3) * 2));
    if (bad.includes(n)) throw new Error(`order ${n} failed`);
  };
  return { recordHandler, seen };
}

/** What the poller makes of a function's return value, as it would receive it over Lambda's Invoke API. */
function pollerOutcome(event: RocketMQEvent, response: unknown) {
  return mapFunctionResult({ ok: true, payload: Buffer.from(JSON.stringify(response)) }, event.Records);
}

describe('Powertools processPartialResponse with BatchProcessor(EventType.SQS)', () => {
  it('reports failed records by messageId, which the poller maps to exactly those records', async () => {
    const event = orders(8);
    const { recordHandler, seen } = failingFor([1, 4, 5]);
    const response = await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
      context: lambdaContext(),
    });
    expect(RocketMQBatchResponseSchema.parse(response)).toEqual(response);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['id-1', 'id-4', 'id-5']);
    expect(seen.sort()).toEqual(event.Records.map((record) => record.messageId).sort());
    expect(pollerOutcome(event, response)).toMatchObject({ status: 'PARTIAL', failedIndexes: [1, 4, 5] });
  });

  it('agrees with our own processor', async () => {
    const event = orders(6);
    const theirs = await processPartialResponse(
      event,
      failingFor([0, 3]).recordHandler,
      new BatchProcessor(EventType.SQS),
      { processInParallel: false },
    );
    const ours = await processRocketMQBatch(event, failingFor([0, 3]).recordHandler);
    expect(theirs).toEqual(ours);
  });

  it('answers an empty list when every record succeeds (the poller commits all)', async () => {
    const event = orders(3);
    const response = await processPartialResponse(
      event,
      failingFor([]).recordHandler,
      new BatchProcessor(EventType.SQS),
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(pollerOutcome(event, response)).toEqual({ status: 'SUCCESS' });
  });

  it('throws when every record failed, which fails the whole batch, as our response would', async () => {
    const event = orders(2);
    const processor = new BatchProcessor(EventType.SQS);
    await expect(
      processPartialResponse(event, failingFor([0, 1]).recordHandler, processor),
    ).rejects.toBeInstanceOf(FullBatchFailureError);
    // Lambda reports the throw as a FunctionError: an invoke failure.
    expect(
      mapFunctionResult(
        { ok: false, kind: 'function-error', message: 'FullBatchFailureError' },
        event.Records,
      ),
    ).toMatchObject({ status: 'FAILED' });
    const ours = await processRocketMQBatch(event, failingFor([0, 1]).recordHandler);
    expect(pollerOutcome(event, ours)).toMatchObject({ status: 'FAILED' });
    const listed = await processPartialResponse(event, failingFor([0, 1]).recordHandler, processor, {
      throwOnFullBatchFailure: false,
    });
    expect(pollerOutcome(event, listed)).toMatchObject({ status: 'FAILED' });
  });
});

describe('Powertools SqsFifoPartialProcessorAsync (for orderly mappings)', () => {
  it('stops at the first failure and reports it and the rest, like orderly mode', async () => {
    const event = orders(6);
    const { recordHandler, seen } = failingFor([2, 4]);
    const response = await processPartialResponse(event, recordHandler, new SqsFifoPartialProcessorAsync());
    expect(seen).toEqual(['id-0', 'id-1', 'id-2']);
    expect(response).toEqual({
      batchItemFailures: ['id-2', 'id-3', 'id-4', 'id-5'].map((itemIdentifier) => ({ itemIdentifier })),
    });
    expect(response).toEqual(
      await processRocketMQBatch(event, failingFor([2, 4]).recordHandler, { orderly: true }),
    );
    expect(pollerOutcome(event, response)).toMatchObject({ status: 'PARTIAL', failedIndexes: [2, 3, 4, 5] });
  });
});
