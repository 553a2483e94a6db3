/**
 * Creates the offsets table when it is missing and waits until it is ACTIVE: for local runs and tests
 * (production tables come from the CloudFormation templates, with the same schema).
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { isAwsErrorNamed } from '../util/aws-error-classification.js';
import { componentLogger } from '../util/logger.js';
import type { DynamoDbRetryOptions } from './dynamodb-call.js';
import { callDynamoDb } from './dynamodb-call.js';
import { offsetTableDefinition } from './dynamodb-offset-schema.js';
import { OffsetStoreError } from './offset-store-error.js';

const log = componentLogger('offsets.dynamodb');

/** How long {@link ensureOffsetTable} waits for a new table to become ACTIVE. */
export const DEFAULT_TABLE_ACTIVE_TIMEOUT_MS = 60_000;
const POLL_INITIAL_MS = 50;
const POLL_MAX_MS = 1_000;

/** Options of {@link ensureOffsetTable}. */
export interface EnsureOffsetTableOptions {
  /** @default DEFAULT_TABLE_ACTIVE_TIMEOUT_MS */
  activeTimeoutMs?: number;
  retry?: DynamoDbRetryOptions;
}

/**
 * Makes sure table `table` exists and is ACTIVE: DescribeTable first (no CreateTable permission needed
 * when it exists), CreateTable (on demand, {@link offsetTableDefinition}) when missing, tolerating a
 * concurrent creator, then polls until ACTIVE. Rejects with {@link OffsetStoreError}.
 */
export async function ensureOffsetTable(
  client: DynamoDBClient,
  table: string,
  options: EnsureOffsetTableOptions = {},
): Promise<void> {
  const context = { table, retry: options.retry };
  const status = async (): Promise<string | undefined> => {
    try {
      const result = await callDynamoDb('describe table', context, () =>
        client.send(new DescribeTableCommand({ TableName: table })),
      );
      return result.Table?.TableStatus ?? 'UNKNOWN';
    } catch (err) {
      if (err instanceof OffsetStoreError && isAwsErrorNamed(err.cause, 'ResourceNotFoundException')) {
        return undefined;
      }
      throw err;
    }
  };

  const initial = await status();
  if (initial === 'ACTIVE') return;
  if (initial === undefined) {
    log.info({ table }, 'creating offsets table');
    try {
      await callDynamoDb('create table', context, () =>
        client.send(new CreateTableCommand(offsetTableDefinition(table))),
      );
    } catch (err) {
      if (!(err instanceof OffsetStoreError && isAwsErrorNamed(err.cause, 'ResourceInUseException')))
        throw err;
    }
  }
  const timeoutMs = options.activeTimeoutMs ?? DEFAULT_TABLE_ACTIVE_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (let delayMs = POLL_INITIAL_MS; ; delayMs = Math.min(POLL_MAX_MS, delayMs * 2)) {
    const current = await status();
    if (current === 'ACTIVE') return;
    if (Date.now() + delayMs > deadline) {
      throw new OffsetStoreError(
        `offsets table ${table} not ACTIVE after ${timeoutMs} ms (${current ?? 'missing'})`,
        { retriable: true },
      );
    }
    await sleep(delayMs);
  }
}

/**
 * Checks that table `table` exists (DescribeTable), for pollers that must not create it. Rejects with a
 * permanent {@link OffsetStoreError} when it is missing or may not be described (the poller cannot keep
 * offsets, retrying will not help), retriable while it is still being created or DynamoDB is unreachable.
 */
export async function assertOffsetTableExists(
  client: DynamoDBClient,
  table: string,
  options: Pick<EnsureOffsetTableOptions, 'retry'> = {},
): Promise<void> {
  let status: string;
  try {
    const result = await callDynamoDb('describe table', { table, retry: options.retry }, () =>
      client.send(new DescribeTableCommand({ TableName: table })),
    );
    status = result.Table?.TableStatus ?? 'UNKNOWN';
  } catch (err) {
    if (err instanceof OffsetStoreError && isAwsErrorNamed(err.cause, 'ResourceNotFoundException')) {
      throw new OffsetStoreError(
        `the offsets table ${table} does not exist: deploy it (the CloudFormation templates create it) or let the poller create it (offsets.createTable: true, for local use)`,
        { cause: err, permanent: true },
      );
    }
    throw err;
  }
  if (status === 'CREATING') {
    throw new OffsetStoreError(`the offsets table ${table} is still being created`, { retriable: true });
  }
  if (status === 'DELETING' || status === 'INACCESSIBLE_ENCRYPTION_CREDENTIALS' || status === 'ARCHIVED') {
    throw new OffsetStoreError(`the offsets table ${table} cannot be used: it is ${status}`, {
      permanent: true,
    });
  }
}
