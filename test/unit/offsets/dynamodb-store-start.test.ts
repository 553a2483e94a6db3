/**
 * Loading the DynamoDB offset store while DynamoDB cannot be reached: found by the soak (seed 172, +00:27
 * of the short run), where a poller restarted during a DynamoDB outage exited 1 at start. Unreachable
 * (a network error) or a table still being created: load() resolves, reads and writes try again later.
 * A table that does not exist, or access denied: load() still rejects, permanent.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbOffsetStore } from '../../../src/offsets/dynamodb-offset-store.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';

function refusing(error: () => Error): DynamoDBClient {
  return { send: async () => Promise.reject(error()) } as unknown as DynamoDBClient;
}

function connectionRefused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
}

function named(name: string): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 } });
}

function store(client: DynamoDBClient, createTableIfMissing: boolean): DynamoDbOffsetStore {
  return new DynamoDbOffsetStore({
    client,
    table: 'offsets',
    group: 'G',
    clientId: 'me@1#y',
    createTableIfMissing,
    resetWatchIntervalMs: false,
    retry: { maxAttempts: 1 },
  });
}

describe('DynamoDbOffsetStore.load with DynamoDB out of reach', () => {
  for (const createTableIfMissing of [true, false]) {
    it(`resolves when DynamoDB refuses connections (createTableIfMissing ${createTableIfMissing})`, async () => {
      await expect(store(refusing(connectionRefused), createTableIfMissing).load()).resolves.toBeUndefined();
    });
  }

  it('still rejects, permanent, when the table does not exist and may not be created', async () => {
    const error = await store(
      refusing(() => named('ResourceNotFoundException')),
      false,
    )
      .load()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffsetStoreError);
    expect((error as OffsetStoreError).permanent).toBe(true);
    expect((error as Error).message).toMatch(/the offsets table offsets does not exist/);
  });

  it('still rejects when access is denied', async () => {
    await expect(
      store(
        refusing(() => named('AccessDeniedException')),
        false,
      ).load(),
    ).rejects.toThrow(OffsetStoreError);
  });
});
