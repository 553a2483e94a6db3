/**
 * The offset store of clustering consumers: offsets of a consumer group in a DynamoDB table shared by
 * all pollers of the group (schema in {@link offsetTableDefinition}).
 *
 * Writes are increase-only conditional updates: a failed condition means another poller is ahead, which
 * is not an error. Only changed offsets are written (at most one write per changed queue per persist),
 * an offset equal to the stored one is never written. Transient failures (throttling, 5xx, network) are
 * retried with backoff and then rejected as a retriable {@link OffsetStoreError}; the next persist tries
 * again.
 */

import type { AttributeValue, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import { isAwsErrorNamed } from '../util/aws-error-classification.js';
import { componentLogger } from '../util/logger.js';
import type { DynamoDbCallContext, DynamoDbRetryOptions } from './dynamodb-call.js';
import { callDynamoDb } from './dynamodb-call.js';
import { OffsetAttribute, offsetItemKey, offsetOfItem, parseOffsetItem } from './dynamodb-offset-schema.js';
import { ensureOffsetTable } from './ensure-offset-table.js';
import type { OffsetStore, ReadOffsetType } from './offset-store.js';
import { NO_OFFSET } from './offset-store.js';
import { assertValidOffset, OffsetStoreError } from './offset-store-error.js';
import { OffsetTable, readOffsetThrough } from './offset-table.js';

const log = componentLogger('offsets.dynamodb');

/** Writes in flight at once during {@link DynamoDbOffsetStore.persistAll}. */
export const DEFAULT_MAX_CONCURRENT_WRITES = 8;
/** Per-request timeout of a client the store creates itself. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/** Options of {@link DynamoDbOffsetStore}, whatever the client. */
interface DynamoDbOffsetStoreCommonOptions {
  /** The offsets table. */
  table: string;
  /** The consumer group whose offsets this store keeps. */
  group: string;
  /** This poller's client id, written with every offset for operators. */
  clientId: string;
  /** Create the table (on-demand billing) when it does not exist; for local use. @default false */
  createTableIfMissing?: boolean;
  /** @default DEFAULT_MAX_CONCURRENT_WRITES */
  maxConcurrentWrites?: number;
  /** @default DEFAULT_TABLE_ACTIVE_TIMEOUT_MS */
  tableActiveTimeoutMs?: number;
  /** Backoff of every call. @default DEFAULT_DYNAMODB_RETRY */
  retry?: DynamoDbRetryOptions;
}

/** Construction options of {@link DynamoDbOffsetStore}: a client of the caller's, or where to connect. */
export type DynamoDbOffsetStoreOptions = DynamoDbOffsetStoreCommonOptions &
  (
    | {
        /** A client owned by the caller (not destroyed by `close`); its own retries add to ours. */
        client: DynamoDBClient;
      }
    | {
        client?: undefined;
        /** @default the SDK's (AWS_REGION) */
        region?: string;
        /** e.g. `http://127.0.0.1:8000` for dynalite or DynamoDB Local. */
        endpoint?: string;
        /** @default the SDK's default credential chain */
        credentials?: DynamoDBClientConfig['credentials'];
        /** @default DEFAULT_REQUEST_TIMEOUT_MS */
        requestTimeoutMs?: number;
      }
  );

/**
 * {@link OffsetStore} in DynamoDB for clustering consumers.
 *
 * @example
 * ```ts
 * const store = new DynamoDbOffsetStore({ table: 'rocketmq-offsets', group: 'orders', clientId, region: 'eu-west-1' });
 * const start = await store.readOffset(queue, 'MEMORY_THEN_STORE'); // NO_OFFSET: use consumeFromWhere
 * store.updateOffset(queue, 1042, true);
 * await store.persistAll([queue]);
 * ```
 */
export class DynamoDbOffsetStore implements OffsetStore {
  readonly #client: DynamoDBClient;
  readonly #ownsClient: boolean;
  readonly #tableName: string;
  readonly #group: string;
  readonly #clientId: string;
  readonly #createTableIfMissing: boolean;
  readonly #maxConcurrentWrites: number;
  readonly #tableActiveTimeoutMs: number | undefined;
  readonly #retry: DynamoDbRetryOptions | undefined;
  readonly #context: DynamoDbCallContext;
  readonly #table = new OffsetTable();
  /** The write in progress per queue key, so one offset is never written twice at once. */
  readonly #writes = new Map<string, Promise<void>>();
  #tableReady: Promise<void> | undefined;

  constructor(options: DynamoDbOffsetStoreOptions) {
    if (options.client === undefined) {
      this.#client = new DynamoDBClient({
        region: options.region,
        endpoint: options.endpoint,
        credentials: options.credentials,
        maxAttempts: 1,
        requestHandler: { requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
      });
      this.#ownsClient = true;
    } else {
      this.#client = options.client;
      this.#ownsClient = false;
    }
    this.#tableName = options.table;
    this.#group = options.group;
    this.#clientId = options.clientId;
    this.#createTableIfMissing = options.createTableIfMissing ?? false;
    this.#maxConcurrentWrites = Math.max(1, options.maxConcurrentWrites ?? DEFAULT_MAX_CONCURRENT_WRITES);
    this.#tableActiveTimeoutMs = options.tableActiveTimeoutMs;
    this.#retry = options.retry;
    this.#context = { table: options.table, group: options.group, retry: options.retry };
  }

  /** Creates the table if asked to (`createTableIfMissing`); otherwise nothing to load. */
  async load(): Promise<void> {
    await this.#ready();
  }

  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number> {
    return readOffsetThrough(this.#table, queue, type, (key) => this.#readStored(key));
  }

  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.#table.update(messageQueueKey(queue), offset, increaseOnly);
  }

  persist(queue: MessageQueue): Promise<void> {
    return this.#persistKey(messageQueueKey(queue));
  }

  /**
   * Writes the changed offsets of `queues`, {@link DEFAULT_MAX_CONCURRENT_WRITES} at a time. Every queue is
   * attempted; then rejects with the failure (several: an {@link OffsetStoreError} whose cause is an
   * AggregateError, retriable when all were).
   */
  async persistAll(queues: readonly MessageQueue[]): Promise<void> {
    const keys = this.#table.dirtyEntries(queues.map(messageQueueKey)).map(([key]) => key);
    const failures: unknown[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let key = keys[next++]; key !== undefined; key = keys[next++]) {
        try {
          await this.#persistKey(key);
        } catch (err) {
          failures.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#maxConcurrentWrites, keys.length) }, worker));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) {
      throw new OffsetStoreError(
        `${failures.length} of ${keys.length} offsets of group ${this.#group} not persisted`,
        {
          cause: new AggregateError(failures),
          retriable: failures.every((err) => err instanceof OffsetStoreError && err.retriable),
        },
      );
    }
  }

  removeOffset(queue: MessageQueue): void {
    this.#table.remove(messageQueueKey(queue));
  }

  /** Waits for writes in progress, then destroys the client if the store created it. Does not persist. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#writes.values());
    if (this.#ownsClient) this.#client.destroy();
  }

  /**
   * Admin operation: stores `offset` for `queue` unconditionally, even below the stored offset. Not used by
   * consumers; an operator stops the group's pollers first, or a running owner may write a higher offset.
   *
   * @example
   * ```ts
   * await store.resetOffset({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 0); // replay the queue
   * ```
   */
  async resetOffset(queue: MessageQueue, offset: number): Promise<void> {
    const key = messageQueueKey(queue);
    assertValidOffset(offset, key);
    await this.#ready();
    await callDynamoDb(`reset offset of ${key}`, this.#context, () =>
      this.#client.send(
        new PutItemCommand({
          TableName: this.#tableName,
          Item: { ...offsetItemKey(this.#group, key), ...this.#offsetAttributes(offset) },
        }),
      ),
    );
    if (this.#table.has(key)) this.#table.setFromStore(key, offset);
  }

  /**
   * Every stored offset of the group, by queue key (a consistent Query, all pages).
   *
   * @example
   * ```ts
   * for (const [queueKey, offset] of await store.listOffsets()) console.log(queueKey, offset);
   * ```
   */
  async listOffsets(): Promise<Map<string, number>> {
    await this.#ready();
    const offsets = new Map<string, number>();
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await callDynamoDb('list offsets', this.#context, () =>
        this.#client.send(
          new QueryCommand({
            TableName: this.#tableName,
            KeyConditionExpression: '#group = :group',
            ExpressionAttributeNames: { '#group': OffsetAttribute.group },
            ExpressionAttributeValues: { ':group': { S: this.#group } },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      for (const item of page.Items ?? []) {
        const entry = parseOffsetItem(item);
        if (entry !== undefined) offsets.set(entry[0], entry[1]);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return offsets;
  }

  /**
   * Makes sure the table exists and is ACTIVE, creating it when missing (a concurrent creator is fine).
   * Called by every operation when `createTableIfMissing` is set; callable on its own for setup scripts.
   *
   * @example
   * ```ts
   * await new DynamoDbOffsetStore({ table, group, clientId, endpoint, region: 'local' }).ensureTable();
   * ```
   */
  ensureTable(): Promise<void> {
    return ensureOffsetTable(this.#client, this.#tableName, {
      activeTimeoutMs: this.#tableActiveTimeoutMs,
      retry: this.#retry,
    });
  }

  #ready(): Promise<void> {
    if (!this.#createTableIfMissing) return Promise.resolve();
    if (this.#tableReady === undefined) {
      const ready = this.ensureTable();
      this.#tableReady = ready;
      ready.catch((err: unknown) => {
        log.warn({ err, table: this.#tableName }, 'offsets table not ready, next operation tries again');
        if (this.#tableReady === ready) this.#tableReady = undefined;
      });
    }
    return this.#tableReady;
  }

  async #readStored(key: string): Promise<number> {
    await this.#ready();
    const result = await callDynamoDb(`read offset of ${key}`, this.#context, () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.#tableName,
          Key: offsetItemKey(this.#group, key),
          ProjectionExpression: '#offset',
          ExpressionAttributeNames: { '#offset': OffsetAttribute.offset },
          ConsistentRead: true,
        }),
      ),
    );
    return result.Item === undefined ? NO_OFFSET : (offsetOfItem(result.Item, key) ?? NO_OFFSET);
  }

  async #persistKey(key: string): Promise<void> {
    for (let running = this.#writes.get(key); running !== undefined; running = this.#writes.get(key)) {
      // That write's failure belongs to its own caller; this one re-checks and writes what is still dirty.
      await running.then(
        () => undefined,
        () => undefined,
      );
    }
    if (!this.#table.isDirty(key)) return;
    const offset = this.#table.get(key);
    const write = this.#writeIncreasing(key, offset);
    this.#writes.set(key, write);
    try {
      await write;
      this.#table.markStored(key, offset);
    } finally {
      this.#writes.delete(key);
    }
  }

  async #writeIncreasing(key: string, offset: number): Promise<void> {
    await this.#ready();
    try {
      await callDynamoDb(`write offset of ${key}`, this.#context, () =>
        this.#client.send(
          new UpdateItemCommand({
            TableName: this.#tableName,
            Key: offsetItemKey(this.#group, key),
            UpdateExpression: 'SET #offset = :offset, #updatedAt = :updatedAt, #clientId = :clientId',
            ConditionExpression: 'attribute_not_exists(#offset) OR #offset < :offset',
            ExpressionAttributeNames: {
              '#offset': OffsetAttribute.offset,
              '#updatedAt': OffsetAttribute.updatedAt,
              '#clientId': OffsetAttribute.clientId,
            },
            ExpressionAttributeValues: {
              ':offset': { N: String(offset) },
              ':updatedAt': { N: String(Date.now()) },
              ':clientId': { S: this.#clientId },
            },
          }),
        ),
      );
    } catch (err) {
      if (err instanceof OffsetStoreError && isAwsErrorNamed(err.cause, 'ConditionalCheckFailedException')) {
        log.debug(
          { group: this.#group, queue: key, offset },
          'stored offset already at or ahead, not written',
        );
        return;
      }
      throw err;
    }
  }

  #offsetAttributes(offset: number): Record<string, AttributeValue> {
    return {
      [OffsetAttribute.offset]: { N: String(offset) },
      [OffsetAttribute.updatedAt]: { N: String(Date.now()) },
      [OffsetAttribute.clientId]: { S: this.#clientId },
    };
  }
}
