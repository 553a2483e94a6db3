import { describe, expect, it } from 'vitest';
import { callDynamoDb } from '../../../src/offsets/dynamodb-call.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';

const context = {
  table: 'offsets',
  group: 'orders',
  retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
};

function awsError(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

describe('callDynamoDb', () => {
  it('retries throttling until it succeeds', async () => {
    let calls = 0;
    const result = await callDynamoDb('read offset', context, async () => {
      if (++calls < 3) throw awsError('ProvisionedThroughputExceededException', 400);
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up after the attempts with a retriable OffsetStoreError naming table, group and cause', async () => {
    let calls = 0;
    const cause = awsError('InternalServerError', 500);
    const failure = await callDynamoDb('write offset of T@b@0', context, async () => {
      calls++;
      throw cause;
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(calls).toBe(3);
    expect(failure).toBeInstanceOf(OffsetStoreError);
    expect((failure as OffsetStoreError).retriable).toBe(true);
    expect((failure as OffsetStoreError).cause).toBe(cause);
    expect((failure as Error).message).toBe(
      'cannot write offset of T@b@0 in table offsets (group orders): InternalServerError',
    );
  });

  it('fails a client error at once, not retriable', async () => {
    let calls = 0;
    const failure = await callDynamoDb('write offset', context, async () => {
      calls++;
      throw awsError('ValidationException', 400);
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(calls).toBe(1);
    expect((failure as OffsetStoreError).retriable).toBe(false);
  });
});
