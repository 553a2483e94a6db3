/**
 * One DynamoDB call of the offset stores: retried with backoff on throttling, 5xx and network errors
 * (through the one retry helper), then failed as an {@link OffsetStoreError} that names the table and
 * keeps the SDK error as its `cause`.
 */

import { isPermanentAwsError, isTransientAwsError } from '../util/aws-error-classification.js';
import { describeError } from '../util/describe-error.js';
import { componentLogger } from '../util/logger.js';
import type { RetryOptions } from '../util/retry.js';
import { retry } from '../util/retry.js';
import { OffsetStoreError } from './offset-store-error.js';

const log = componentLogger('offsets.dynamodb');

/** Backoff settings of DynamoDB calls (what is retriable is fixed: throttling, 5xx, network). */
export type DynamoDbRetryOptions = Pick<
  RetryOptions,
  'maxAttempts' | 'initialDelayMs' | 'maxDelayMs' | 'multiplier'
>;

/** Backoff of every DynamoDB call of the offset stores. */
export const DEFAULT_DYNAMODB_RETRY: Readonly<DynamoDbRetryOptions> = {
  maxAttempts: 4,
  initialDelayMs: 100,
  maxDelayMs: 2_000,
};

/** What a call is about, for retries, logs and error messages. */
export interface DynamoDbCallContext {
  table: string;
  group?: string;
  retry?: DynamoDbRetryOptions;
}

/**
 * Runs `operation` (one SDK `send`), retrying transient failures; rejects with an {@link OffsetStoreError}
 * (retriable when the last failure was transient, permanent when only a change of the deployment helps:
 * a missing table, access denied) whose message says what failed, on which table, and why.
 */
export async function callDynamoDb<T>(
  what: string,
  context: DynamoDbCallContext,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await retry(operation, {
      ...DEFAULT_DYNAMODB_RETRY,
      ...context.retry,
      isRetriable: isTransientAwsError,
      onRetry: (err, attempt, delayMs) =>
        log.warn(
          { err, operation: what, table: context.table, group: context.group, attempt, delayMs },
          'dynamodb call failed, retrying',
        ),
    });
  } catch (err) {
    const group = context.group === undefined ? '' : ` (group ${context.group})`;
    throw new OffsetStoreError(`cannot ${what} in table ${context.table}${group}: ${describeError(err)}`, {
      cause: err,
      retriable: isTransientAwsError(err),
      permanent: isPermanentAwsError(err),
    });
  }
}
