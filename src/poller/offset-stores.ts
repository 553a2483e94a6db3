/**
 * Which offset store each mapping of a poller gets. CLUSTERING mappings use the configured store; BROADCASTING mappings keep their
 * offsets locally as RocketMQ does (each poller has its own progress): in files under `offsets.path`, or
 * in memory with `store: memory`.
 */
import type { MappingConfig, OffsetStoreConfig } from '../config/run-config.js';
import { DynamoDbOffsetStore } from '../offsets/dynamodb-offset-store.js';
import { FileOffsetStore } from '../offsets/file-offset-store.js';
import { MemoryOffsetStore } from '../offsets/memory-offset-store.js';
import { DEFAULT_RESET_WATCH_INTERVAL_MS } from '../offsets/offset-reset-watch.js';
import type { OffsetStore } from '../offsets/offset-store.js';

/**
 * The client-instance directory of local offset files. Fixed (not the per-process client id) so that a
 * restarted poller finds its offsets again; hence one poller per `offsets.path`.
 */
export const LOCAL_OFFSETS_INSTANCE = 'default';

/** Which kind of store a mapping gets. */
export type OffsetStoreKind = 'dynamodb' | 'file' | 'memory';

/**
 * The store kind of a mapping: its messageModel decides between the configured store (CLUSTERING) and a
 * local one (BROADCASTING).
 */
export function offsetStoreKindOf(
  offsets: OffsetStoreConfig,
  mapping: Pick<MappingConfig, 'messageModel'>,
): OffsetStoreKind {
  if (mapping.messageModel === 'CLUSTERING') return offsets.store;
  return offsets.store === 'memory' ? 'memory' : 'file';
}

/**
 * Builds the offset stores of a poller's mappings (one per mapping, each DynamoDB store with its own client,
 * request timeouts and retries); `close()` closes them all.
 */
export class OffsetStores {
  readonly #offsets: OffsetStoreConfig;
  readonly #clientId: string;
  readonly #resetWatchIntervalMs: number | false;
  readonly #stores: OffsetStore[] = [];

  /**
   * `options.resetWatchIntervalMs`: how often DynamoDB stores look for operators' resets of the queues
   * they hold (offset-reset-watch.ts); `false` for stores that hold no queue (operator commands).
   * @default DEFAULT_RESET_WATCH_INTERVAL_MS
   */
  constructor(
    offsets: OffsetStoreConfig,
    clientId: string,
    options: { resetWatchIntervalMs?: number | false } = {},
  ) {
    this.#offsets = offsets;
    this.#clientId = clientId;
    this.#resetWatchIntervalMs = options.resetWatchIntervalMs ?? DEFAULT_RESET_WATCH_INTERVAL_MS;
  }

  /** A new store for `mapping` (one per consumer group). */
  forMapping(mapping: Pick<MappingConfig, 'messageModel' | 'consumerGroup'>): OffsetStore {
    const store = this.#create(mapping);
    this.#stores.push(store);
    return store;
  }

  /** Closes every store (it does not persist: the runtimes did). Call after the runtimes stopped. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.#stores.splice(0).map((store) => store.close()));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  #create(mapping: Pick<MappingConfig, 'messageModel' | 'consumerGroup'>): OffsetStore {
    const offsets = this.#offsets;
    switch (offsetStoreKindOf(offsets, mapping)) {
      case 'memory':
        return new MemoryOffsetStore();
      case 'file':
        return new FileOffsetStore({
          baseDir: offsets.path,
          clientInstance: LOCAL_OFFSETS_INSTANCE,
          group: mapping.consumerGroup,
        });
      case 'dynamodb': {
        if (offsets.store !== 'dynamodb')
          throw new Error('unreachable: dynamodb kind without dynamodb config');
        return new DynamoDbOffsetStore({
          ...(offsets.region === undefined ? {} : { region: offsets.region }),
          ...(offsets.endpoint === undefined ? {} : { endpoint: offsets.endpoint }),
          table: offsets.table,
          group: mapping.consumerGroup,
          clientId: this.#clientId,
          createTableIfMissing: offsets.createTable,
          resetWatchIntervalMs: this.#resetWatchIntervalMs,
        });
      }
    }
  }
}
