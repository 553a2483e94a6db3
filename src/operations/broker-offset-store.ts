/**
 * The brokers' copy of a consumer group's committed offsets as an {@link OffsetStore}: what an ad hoc
 * target (target.ts: `--name-server --group`, no offsets table) reads and resets. It is the store of
 * Java consumers (RemoteBrokerOffsetStore) and what `mqadmin consumerProgress` shows; a rocketmq-lambda
 * poller with a DynamoDB table keeps its own offsets and copies them there.
 *
 * Reads ask the queue's master (QUERY_CONSUMER_OFFSET; a 4.x broker's ambiguous 0 is settled with its
 * offset table, as the poller's start does: consumer/rebalance/broker-committed-offset.ts). Writes
 * (`persist*`, which an offsets reset uses) send UPDATE_CONSUMER_OFFSET to the master and wait for its
 * answer. It holds no queue: it never claims, releases or watches for resets.
 */
import type { BrokerClient } from '../client/broker-client.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { QueueReader } from '../client/queue-reader.js';
import { BrokerCommittedOffsets } from '../consumer/rebalance/broker-committed-offset.js';
import {
  NO_OFFSET,
  type OffsetResetListener,
  type OffsetStore,
  type OffsetStoreHealth,
  type ReadOffsetType,
  type StoredOffsetRecord,
} from '../offsets/offset-store.js';
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';

/** What the store asks of a client ({@link RocketMQClient} has it all). */
export interface BrokerOffsetStoreClient {
  readonly nameServer: Pick<NameServerClient, 'getRoute'>;
  readonly broker: Pick<
    BrokerClient,
    'pullMessage' | 'queryConsumerOffsetAnswer' | 'getAllConsumerOffset' | 'updateConsumerOffset'
  >;
}

interface Entry {
  readonly queue: MessageQueue;
  offset: number;
  /** Set since the last write to the broker. */
  dirty: boolean;
}

/**
 * The group's offsets on its brokers.
 */
export class BrokerOffsetStore implements OffsetStore {
  readonly #client: BrokerOffsetStoreClient;
  readonly #consumerGroup: string;
  readonly #reader: QueueReader;
  readonly #committed: BrokerCommittedOffsets;
  readonly #entries = new Map<string, Entry>();
  #failingSinceMs: number | undefined;
  #lastError: unknown;

  constructor(client: BrokerOffsetStoreClient, consumerGroup: string) {
    this.#client = client;
    this.#consumerGroup = consumerGroup;
    this.#reader = new QueueReader({ client, consumerGroup });
    this.#committed = new BrokerCommittedOffsets(client.broker, consumerGroup);
  }

  async load(): Promise<void> {
    // Nothing to load: every read asks the broker.
  }

  async readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number> {
    const known = this.#entries.get(messageQueueKey(queue));
    if (type !== 'STORE' && known !== undefined) return known.offset;
    if (type === 'MEMORY') return NO_OFFSET;
    return (await this.readRecord(queue))?.offset ?? NO_OFFSET;
  }

  async readRecord(queue: MessageQueue): Promise<StoredOffsetRecord | undefined> {
    const offset = await this.#committed.read(await this.#reader.masterAddress(queue), queue);
    if (offset === undefined) return undefined;
    this.#entries.set(messageQueueKey(queue), { queue, offset, dirty: false });
    // The broker keeps neither a generation nor who wrote the offset.
    return { offset, generation: 0, holder: undefined, released: true, updatedAtMs: undefined };
  }

  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void {
    const entry = this.#entries.get(messageQueueKey(queue));
    if (entry !== undefined && increaseOnly && offset <= entry.offset) return;
    this.#entries.set(messageQueueKey(queue), { queue, offset, dirty: true });
  }

  /** The broker takes any offset: a correction is an update that may go down. */
  correctOffset(queue: MessageQueue, offset: number): void {
    this.#entries.set(messageQueueKey(queue), { queue, offset, dirty: true });
  }

  persist(queue: MessageQueue): Promise<void> {
    return this.persistAll([queue]);
  }

  async persistAll(queues: readonly MessageQueue[]): Promise<void> {
    for (const queue of queues) {
      const entry = this.#entries.get(messageQueueKey(queue));
      if (entry === undefined || !entry.dirty) continue;
      try {
        await this.#client.broker.updateConsumerOffset(await this.#reader.masterAddress(queue), {
          consumerGroup: this.#consumerGroup,
          topic: queue.topic,
          queueId: queue.queueId,
          commitOffset: entry.offset,
          bname: queue.brokerName,
        });
      } catch (error) {
        this.#failingSinceMs ??= Date.now();
        this.#lastError = error;
        throw error;
      }
      entry.dirty = false;
      this.#failingSinceMs = undefined;
      this.#lastError = undefined;
    }
  }

  claim(queue: MessageQueue): Promise<void> {
    return this.persistAll([queue]);
  }

  release(queues: readonly MessageQueue[]): Promise<void> {
    return this.persistAll(queues);
  }

  removeOffset(queue: MessageQueue): void {
    this.#entries.delete(messageQueueKey(queue));
  }

  /** Nobody else's reset is ever found: the broker takes every write. */
  onOffsetReset(_listener: OffsetResetListener): () => void {
    return () => {
      // Nothing was subscribed.
    };
  }

  health(): OffsetStoreHealth {
    return { failingSinceMs: this.#failingSinceMs, lastError: this.#lastError };
  }

  async close(): Promise<void> {
    // The client is the target's: it closes it.
  }
}
