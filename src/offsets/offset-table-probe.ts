/**
 * Whether a poller could keep its offsets in a DynamoDB table with the credentials at hand, found without
 * writing anything (for `rocketmq-lambda validate --connect`): the table exists and is usable
 * (DescribeTable, the check a poller makes at start, ensure-offset-table.ts) and an item can be read
 * (GetItem of a key no poller writes: a missing dynamodb:GetItem permission or a key schema other than
 * dynamodb-offset-schema.ts's fails here, not at the first message).
 */

import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { isAwsErrorNamed } from '../util/aws-error-classification.js';
import { anyInCauseChain } from '../util/cause-chain.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { callDynamoDb, type DynamoDbRetryOptions } from './dynamodb-call.js';
import { offsetItemKey } from './dynamodb-offset-schema.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './dynamodb-offset-store.js';
import { assertOffsetTableExists } from './ensure-offset-table.js';

/**
 * Attempts of each probe call: one retry of a throttle, 5xx or network error, so that an endpoint that is
 * down is told in seconds (each attempt waits at most {@link DEFAULT_REQUEST_TIMEOUT_MS}).
 */
const PROBE_RETRY: DynamoDbRetryOptions = { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 500 };

/**
 * The queue key of the probe's GetItem: not `topic@broker@queueId` (message-queue.ts), so no store ever
 * writes it.
 */
const PROBE_QUEUE_KEY = '%validate%';

/** Options of {@link probeOffsetTable}: the `offsets` keys of a config, and a group to read as. */
export interface OffsetTableProbeOptions {
  readonly table: string;
  /** The consumer group whose partition is read. */
  readonly group: string;
  readonly region?: string | undefined;
  /** A DynamoDB on loopback needs no credentials (src/util/local-endpoint-credentials.ts). */
  readonly endpoint?: string | undefined;
  /** A missing table is fine: the poller creates it (`offsets.createTable`). @default false */
  readonly createTableIfMissing?: boolean | undefined;
  /** @default DEFAULT_REQUEST_TIMEOUT_MS */
  readonly requestTimeoutMs?: number | undefined;
}

/** What the probe found: a table the poller can read, or none yet where the poller would create one. */
export type OffsetTableProbeResult = 'readable' | 'missing';

/**
 * Resolves `readable` when the table exists and an item can be read, `missing` when it does not exist and
 * `createTableIfMissing` is set (DescribeTable answered, so DynamoDB is reachable with these credentials);
 * rejects with the {@link OffsetStoreError} of the first call that failed (its message names the table
 * and why: missing, being created, access denied, no answer).
 */
export async function probeOffsetTable(options: OffsetTableProbeOptions): Promise<OffsetTableProbeResult> {
  const client = new DynamoDBClient({
    endpoint: options.endpoint,
    ...awsClientIdentity({ endpoint: options.endpoint, region: options.region }),
    maxAttempts: 1,
    requestHandler: { requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
  });
  try {
    try {
      await assertOffsetTableExists(client, options.table, { retry: PROBE_RETRY });
    } catch (error) {
      if (options.createTableIfMissing === true && isMissingTable(error)) return 'missing';
      throw error;
    }
    await callDynamoDb(
      'read an offset',
      { table: options.table, group: options.group, retry: PROBE_RETRY },
      () =>
        client.send(
          new GetItemCommand({
            TableName: options.table,
            Key: offsetItemKey(options.group, PROBE_QUEUE_KEY),
            ConsistentRead: true,
          }),
        ),
    );
    return 'readable';
  } finally {
    client.destroy();
  }
}

/** DescribeTable's "no such table", under the store's errors. */
function isMissingTable(error: unknown): boolean {
  return anyInCauseChain(error, (candidate) => isAwsErrorNamed(candidate, 'ResourceNotFoundException'));
}
