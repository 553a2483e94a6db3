/**
 * The offset store of clustering consumers: offsets of a consumer group in a DynamoDB table shared by
 * all pollers of the group (schema in dynamodb-offset-schema.ts).
 *
 * Writes are conditional updates within an offset generation (offset-store.ts): an offset only rises
 * within its generation, and a correction (the broker says the stored offset is gone) starts the next
 * generation, which may go down. A refused write is never taken for a success: the store reads the item
 * back and either finds another writer ahead in the same generation (fine: our offset is covered), or a
 * newer generation (a reset: adopted, and told to {@link OffsetStore.onOffsetReset} listeners).
 * Only changed offsets are written (at most one write per changed queue per persist). Every write names
 * its poller (`clientId`); {@link DynamoDbOffsetStore.release} marks a queue handed over, which the next
 * owner waits for (see start-offset.ts). Transient failures (throttling, 5xx, network) are retried with
 * backoff and then rejected as a retriable {@link OffsetStoreError}; the next persist tries again. A
 * missing table or denied access is a permanent error.
 */

import type { AttributeValue, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient, GetItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey, parseMessageQueueKey } from '../protocol/message-queue.js';
import { isAwsErrorNamed } from '../util/aws-error-classification.js';
import { describeError } from '../util/describe-error.js';
import { forEachConcurrently } from '../util/for-each-concurrently.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { componentLogger } from '../util/logger.js';
import type { DynamoDbCallContext, DynamoDbRetryOptions } from './dynamodb-call.js';
import { callDynamoDb } from './dynamodb-call.js';
import { OffsetAttribute, offsetItemKey, parseOffsetItem, recordOfItem } from './dynamodb-offset-schema.js';
import { assertOffsetTableExists, ensureOffsetTable } from './ensure-offset-table.js';
import { OffsetResetWatch } from './offset-reset-watch.js';
import type { OffsetStore, StoredOffsetRecord } from './offset-store.js';
import { assertValidOffset, OffsetStoreError } from './offset-store-error.js';
import type { PendingWrite } from './offset-table.js';
import { TableOffsetStore } from './table-offset-store.js';

const log = componentLogger('offsets.dynamodb');

/** Writes in flight at once during {@link DynamoDbOffsetStore.persistAll}. */
export const DEFAULT_MAX_CONCURRENT_WRITES = 8;
/** Per-request timeout of a client the store creates itself. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
/** Attempts of {@link DynamoDbOffsetStore.resetOffset} when other writers keep changing the item. */
const RESET_ATTEMPTS = 3;

/** How a write ended: stored, or refused and why. */
type WriteOutcome = 'stored' | 'ahead' | 'reset' | 'missing';

/**
 * Why a queue is written: its offset changed; this poller just took it (written even when unchanged,
 * naming us as its holder); this poller gives it up (written even when unchanged, marked released).
 */
type WriteMode = 'changed' | 'claim' | 'release';

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
  /**
   * Look for resets of the queues this store holds every this many ms, from `load()` until `close()`
   * (offset-reset-watch.ts; a poller uses DEFAULT_RESET_WATCH_INTERVAL_MS). `false`: only writes find
   * resets (an operator's store). @default false
   */
  resetWatchIntervalMs?: number | false;
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
        /** @default the SDK's (AWS_REGION); for a loopback endpoint AWS_REGION, else a placeholder */
        region?: string;
        /** e.g. `http://127.0.0.1:8000` for dynalite or DynamoDB Local. */
        endpoint?: string;
        /**
         * @default the SDK's default credential chain; for a loopback endpoint, placeholders when the chain
         * has none (src/util/local-endpoint-credentials.ts)
         */
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
 * await store.load(); // rejects (permanent) when the table does not exist
 * const start = await store.readOffset(queue, 'MEMORY_THEN_STORE'); // NO_OFFSET: use consumeFromWhere
 * store.updateOffset(queue, 1042, true);
 * await store.persistAll([queue]);
 * ```
 */
export class DynamoDbOffsetStore extends TableOffsetStore {
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
  /** The write in progress per queue key, so one offset is never written twice at once. */
  readonly #writes = new Map<string, Promise<void>>();
  readonly #resetWatch: OffsetResetWatch | undefined;
  #tableReady: Promise<void> | undefined;

  constructor(options: DynamoDbOffsetStoreOptions) {
    super(log);
    if (options.client === undefined) {
      this.#client = new DynamoDBClient({
        endpoint: options.endpoint,
        // A loopback endpoint (dynalite, DynamoDB Local) works without AWS credentials or a region.
        ...awsClientIdentity({
          endpoint: options.endpoint,
          region: options.region,
          credentials: options.credentials,
        }),
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
    const watchMs = options.resetWatchIntervalMs ?? false;
    this.#resetWatch =
      watchMs === false
        ? undefined
        : new OffsetResetWatch({
            intervalMs: watchMs,
            scan: () => this.scanResets(),
            log: log.child({ group: options.group }),
          });
  }

  /**
   * Creates the table if asked to (`createTableIfMissing`); otherwise checks that it exists, so that a
   * missing table stops the poller at start (permanent {@link OffsetStoreError}) instead of failing
   * every read and write. DynamoDB out of reach (or the table still being created) does not stop it: a
   * running poller consumes through the same outage, and a poller restarted during one must too (else
   * it dies at every restart until DynamoDB is back); each read and write tries again.
   */
  async load(): Promise<void> {
    try {
      if (this.#createTableIfMissing) await this.#ready();
      else await assertOffsetTableExists(this.#client, this.#tableName, { retry: this.#retry });
    } catch (err) {
      if (!(err instanceof OffsetStoreError && err.retriable)) throw err;
      log.warn(
        { err, table: this.#tableName },
        'offsets table not reachable at start: consuming on; offsets are read and written once it is',
      );
    }
    this.#resetWatch?.start();
  }

  persist(queue: MessageQueue): Promise<void> {
    return this.#persistKey(messageQueueKey(queue), 'changed');
  }

  /**
   * Writes the changed offsets of `queues`, {@link DEFAULT_MAX_CONCURRENT_WRITES} at a time. Every queue is
   * attempted; then rejects with the failure (several: an {@link OffsetStoreError} whose cause is an
   * AggregateError, retriable when all were).
   */
  persistAll(queues: readonly MessageQueue[]): Promise<void> {
    const keys = this.table.dirtyWrites(queues.map(messageQueueKey)).map((write) => write.key);
    return this.#writeAll(keys, 'changed', 'persisted');
  }

  /**
   * Writes the offsets of `queues` (changed or not) marked as released: their next owner may start at
   * once. A queue another poller has written beyond ours since is left alone.
   */
  release(queues: readonly MessageQueue[]): Promise<void> {
    const keys = [...new Set(queues.map(messageQueueKey))].filter((key) => this.table.has(key));
    return this.#writeAll(keys, 'release', 'released');
  }

  /** Writes the offset of a queue just taken, naming this poller as its holder (also when unchanged). */
  claim(queue: MessageQueue): Promise<void> {
    return this.#persistKey(messageQueueKey(queue), 'claim');
  }

  /** Waits for writes in progress, then destroys the client if the store created it. Does not persist. */
  async close(): Promise<void> {
    await this.#resetWatch?.stop();
    await Promise.allSettled(this.#writes.values());
    if (this.#ownsClient) this.#client.destroy();
  }

  /**
   * Admin operation: stores `offset` for `queue` as a new offset generation, below the stored offset if
   * need be, written as released (the operator holds nothing: a poller starting the queue need not wait).
   * Pollers holding the queue find the new generation at their next write, or with their reset watch, and
   * resume from it. Resolves with the record it replaced (undefined when there was none).
   *
   * @example
   * ```ts
   * await store.resetOffset({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 0); // replay the queue
   * ```
   */
  async resetOffset(queue: MessageQueue, offset: number): Promise<StoredOffsetRecord | undefined> {
    const key = messageQueueKey(queue);
    assertValidOffset(offset, key);
    await this.#ready();
    for (let attempt = 1; ; attempt++) {
      const current = await this.readStoredRecord(key);
      const generation = current?.generation ?? 0;
      try {
        await this.#update(`reset offset of ${key}`, key, offset, generation + 1, true, {
          condition:
            current === undefined ? 'attribute_not_exists(#offset)' : generationCondition(generation),
          generation,
        });
        if (this.table.has(key)) this.table.setFromStore(key, offset, generation + 1);
        return current;
      } catch (err) {
        if (!isConditionFailure(err) || attempt >= RESET_ATTEMPTS) throw err;
      }
    }
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
    const records = await this.listRecords();
    return new Map([...records].map(([key, record]) => [key, record.offset]));
  }

  /**
   * Every stored record of the group (offset, generation, holder, released, updatedAt), by queue key:
   * one Query, all pages. `consistent: false` halves its cost and may miss writes of the last second.
   *
   * @example
   * ```ts
   * for (const [queueKey, { offset, holder }] of await store.listRecords()) console.log(queueKey, offset, holder);
   * ```
   */
  async listRecords(options: { consistent?: boolean } = {}): Promise<Map<string, StoredOffsetRecord>> {
    await this.#ready();
    const records = new Map<string, StoredOffsetRecord>();
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await callDynamoDb('list offsets', this.#context, () =>
        this.#client.send(
          new QueryCommand({
            TableName: this.#tableName,
            KeyConditionExpression: '#group = :group',
            ExpressionAttributeNames: { '#group': OffsetAttribute.group },
            ExpressionAttributeValues: { ':group': { S: this.#group } },
            ConsistentRead: options.consistent ?? true,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      for (const item of page.Items ?? []) {
        const entry = parseOffsetItem(item);
        if (entry === undefined) continue;
        const stored = recordOfItem(item, entry[0]);
        if (stored !== undefined) records.set(entry[0], stored);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return records;
  }

  /**
   * One scan of the reset watch (offset-reset-watch.ts), also callable on its own: reads the group's
   * records (one eventually consistent Query; none while this store holds no queue) and adopts every
   * newer generation of a held queue, telling {@link onOffsetReset} listeners. A queue with a write in
   * flight is left to that write, which finds the reset itself.
   *
   * @example
   * ```ts
   * await store.scanResets(); // listeners heard of every queue reset since its last write
   * ```
   */
  async scanResets(): Promise<void> {
    if (this.table.size === 0) return;
    const records = await this.listRecords({ consistent: false });
    for (const [key, record] of records) {
      if (!this.table.has(key) || this.#writes.has(key)) continue;
      if (record.generation <= this.table.generation(key)) continue;
      this.#adoptReset(key, record, this.table.get(key));
    }
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

  async #writeAll(keys: readonly string[], mode: WriteMode, what: string): Promise<void> {
    const failures: unknown[] = [];
    await forEachConcurrently(keys, this.#maxConcurrentWrites, async (key) => {
      try {
        await this.#persistKey(key, mode);
      } catch (err) {
        failures.push(err);
      }
    });
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) {
      throw new OffsetStoreError(
        `${failures.length} of ${keys.length} offsets of group ${this.#group} not ${what}: ${describeError(failures[0])}`,
        {
          cause: new AggregateError(failures),
          retriable: failures.every((err) => err instanceof OffsetStoreError && err.retriable),
          permanent: failures.some((err) => err instanceof OffsetStoreError && err.permanent),
        },
      );
    }
  }

  protected async readStoredRecord(key: string): Promise<StoredOffsetRecord | undefined> {
    await this.#ready();
    const result = await callDynamoDb(`read offset of ${key}`, this.#context, () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.#tableName,
          Key: offsetItemKey(this.#group, key),
          ConsistentRead: true,
        }),
      ),
    );
    return result.Item === undefined ? undefined : recordOfItem(result.Item, key);
  }

  async #persistKey(key: string, mode: WriteMode): Promise<void> {
    for (let running = this.#writes.get(key); running !== undefined; running = this.#writes.get(key)) {
      // That write's failure belongs to its own caller; this one re-checks and writes what is still dirty.
      await running.then(
        () => undefined,
        () => undefined,
      );
    }
    const pending = mode === 'changed' ? this.table.pendingWrite(key) : this.table.currentWrite(key);
    if (pending === undefined) return;
    const write = this.#write(pending, mode);
    this.#writes.set(key, write);
    try {
      await write;
      this.observers.writeSucceeded();
    } catch (err) {
      this.observers.writeFailed(err);
      throw err;
    } finally {
      this.#writes.delete(key);
    }
  }

  /** One conditional write of `write`; a refusal is resolved by reading the item back. */
  async #write(write: PendingWrite, mode: WriteMode): Promise<void> {
    await this.#ready();
    const outcome = write.correction
      ? await this.#writeCorrection(write)
      : await this.#writeRaise(write, mode);
    if (outcome === 'stored')
      this.table.markStored(write, write.correction ? write.generation + 1 : write.generation);
  }

  /** An offset within its generation: only above the stored one (a claim or release: at least it). */
  async #writeRaise(write: PendingWrite, mode: WriteMode): Promise<WriteOutcome> {
    const rise = mode === 'changed' ? '#offset < :offset' : '#offset <= :offset';
    const released = mode === 'release';
    try {
      await this.#update(
        `write offset of ${write.key}`,
        write.key,
        write.offset,
        write.generation,
        released,
        {
          condition: `attribute_not_exists(#offset) OR (${rise} AND ${generationCondition(write.generation)})`,
          generation: write.generation,
        },
      );
      return 'stored';
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    return this.#refused(write);
  }

  /** A correction: the next generation, at `write.offset` whatever the stored offset. */
  async #writeCorrection(write: PendingWrite, retried = false): Promise<WriteOutcome> {
    const next = write.generation + 1;
    try {
      await this.#update(`correct offset of ${write.key}`, write.key, write.offset, next, false, {
        condition: `attribute_not_exists(#offset) OR ${generationCondition(write.generation)}`,
        generation: write.generation,
      });
      log.warn(
        { group: this.#group, queue: write.key, offset: write.offset, generation: next },
        'offset corrected below the stored one: new offset generation',
      );
      return 'stored';
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    // Another writer started a generation meanwhile. The broker's word still stands if the store holds
    // an offset above our correction: correct again on top of that generation (once).
    const record = await this.readStoredRecord(write.key);
    if (record === undefined) return 'missing';
    if (record.offset > write.offset && !retried) {
      return this.#writeCorrection({ ...write, generation: record.generation }, true);
    }
    this.table.setFromStore(write.key, Math.min(record.offset, write.offset), record.generation);
    if (record.offset > write.offset) this.table.correct(write.key, write.offset);
    return 'reset';
  }

  /** Why a write was refused: another writer ahead in our generation, or a newer generation (a reset). */
  async #refused(write: PendingWrite): Promise<WriteOutcome> {
    const record = await this.readStoredRecord(write.key);
    if (record === undefined) return 'missing';
    if (record.generation === write.generation) {
      log.debug(
        {
          group: this.#group,
          queue: write.key,
          offset: write.offset,
          stored: record.offset,
          holder: record.holder,
        },
        'stored offset already at or ahead, not written',
      );
      this.table.markStored(write);
      return 'ahead';
    }
    // The reset watch may have adopted this generation while the write was in flight: told once is enough.
    if (record.generation > this.table.generation(write.key))
      this.#adoptReset(write.key, record, write.offset);
    return 'reset';
  }

  /** Takes a newer generation found in the store as ours, and tells the listeners to restart the queue. */
  #adoptReset(key: string, record: StoredOffsetRecord, ownOffset: number): void {
    this.table.setFromStore(key, record.offset, record.generation);
    log.warn(
      {
        group: this.#group,
        queue: key,
        offset: ownOffset,
        storedOffset: record.offset,
        storedGeneration: record.generation,
        holder: record.holder,
      },
      'the stored offset was reset (a newer offset generation): resuming from it',
    );
    this.observers.resetFound(parseMessageQueueKey(key), record);
  }

  async #update(
    what: string,
    key: string,
    offset: number,
    generation: number,
    released: boolean,
    guard: { condition: string; generation: number },
  ): Promise<void> {
    await callDynamoDb(what, this.#context, () =>
      this.#client.send(
        new UpdateItemCommand({
          TableName: this.#tableName,
          Key: offsetItemKey(this.#group, key),
          UpdateExpression:
            'SET #offset = :offset, #generation = :generation, #updatedAt = :updatedAt, #clientId = :clientId, #released = :released',
          ConditionExpression: guard.condition,
          ExpressionAttributeNames: {
            '#offset': OffsetAttribute.offset,
            '#generation': OffsetAttribute.generation,
            '#updatedAt': OffsetAttribute.updatedAt,
            '#clientId': OffsetAttribute.clientId,
            '#released': OffsetAttribute.released,
          },
          ExpressionAttributeValues: {
            ':offset': { N: String(offset) },
            ':generation': { N: String(generation) },
            ':updatedAt': { N: String(Date.now()) },
            ':clientId': { S: this.#clientId },
            ':released': { BOOL: released },
            ...(guard.condition.includes(':known') ? { ':known': { N: String(guard.generation) } } : {}),
          },
        }),
      ),
    );
  }
}

/** The condition "the item is of generation `generation`" (items written before generations count as 0). */
function generationCondition(generation: number): string {
  return generation === 0
    ? '(attribute_not_exists(#generation) OR #generation = :known)'
    : '#generation = :known';
}

function isConditionFailure(err: unknown): boolean {
  return err instanceof OffsetStoreError && isAwsErrorNamed(err.cause, 'ConditionalCheckFailedException');
}
