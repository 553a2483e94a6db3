import { describe, expect, it } from 'vitest';
import type { ConsumerOffsetAnswer } from '../../../../src/client/broker-client.js';
import { StartOffsetResolver } from '../../../../src/consumer/rebalance/start-offset.js';
import { MemoryOffsetStore } from '../../../../src/offsets/memory-offset-store.js';
import type { OffsetStore } from '../../../../src/offsets/offset-store.js';
import type { ConsumerOffsetTable } from '../../../../src/protocol/consumer-offset-table.js';
import type { MessageQueue } from '../../../../src/protocol/message-queue.js';
import { MQVersionCode } from '../../../../src/protocol/mq-version.js';
import { rootLogger } from '../../../../src/util/logger.js';

const q = (topic: string, queueId: number): MessageQueue => ({ topic, brokerName: 'b', queueId });

describe('StartOffsetResolver', () => {
  const broker = {
    getMaxOffset: async () => 50,
    getMinOffset: async () => 5,
    // The group is named in the reads a 4.x broker's answer needs (broker-client.ts): it must be ours.
    firstOffsetAtOrAfter: async (_a: string, r: { consumerGroup: string; timestamp: number }) =>
      r.consumerGroup === 'G' ? r.timestamp / 1000 : -1,
  };
  /** What the fake master answers: the group's offset, its version code, its offset table. */
  interface FakeMaster {
    brokerVersion?: number;
    table?: () => Promise<ConsumerOffsetTable>;
    tableReads?: { count: number };
  }
  const resolver = (
    startingPosition: 'LATEST' | 'TRIM_HORIZON' | 'AT_TIMESTAMP',
    store: Pick<OffsetStore, 'readRecord'> = new MemoryOffsetStore(),
    brokerOffset: number | undefined = undefined,
    handOverTimeoutMs = 1000,
    master: FakeMaster = {},
    topicCreatedAfterStart: (() => boolean) | undefined = undefined,
  ) =>
    new StartOffsetResolver({
      offsetStore: store,
      broker: {
        ...broker,
        queryConsumerOffsetAnswer: async (): Promise<ConsumerOffsetAnswer> => ({
          offset: brokerOffset,
          brokerVersion: master.brokerVersion ?? MQVersionCode.V5_3_3,
        }),
        getAllConsumerOffset: async () => {
          if (master.tableReads !== undefined) master.tableReads.count++;
          if (master.table === undefined) throw new Error('unexpected getAllConsumerOffset');
          return master.table();
        },
      },
      clientId: 'me',
      consumerGroup: 'G',
      brokerOffsets: true,
      handOverTimeoutMs,
      log: rootLogger,
      masterAddress: () => 'm:1',
      startingPosition,
      startingPositionTimestamp: 9000,
      retryTopic: '%RETRY%G',
      topicCreatedAfterStart,
    });

  /** A store whose record of every queue is scripted: holder `holder`, released once `release()` ran. */
  function heldStore(offset: number, holder: string) {
    let released = false;
    let reads = 0;
    const store: Pick<OffsetStore, 'readRecord'> = {
      readRecord: async () => {
        reads++;
        return { offset: released ? offset + 20 : offset, generation: 0, holder, released, updatedAtMs: 1 };
      },
    };
    return {
      store,
      release: () => {
        released = true;
      },
      reads: () => reads,
    };
  }

  it('waits for a holder still in the group to hand over, then starts at its final offset', async () => {
    const held = heldStore(40, 'other');
    const start = resolver('LATEST', held.store).startOffset(q('T', 0), {
      members: new Set(['me', 'other']),
    });
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(held.reads()).toBeGreaterThan(1);
    held.release();
    expect(await start).toBe(60);
  });

  it('does not wait for a holder that left the group, nor for a released record', async () => {
    const gone = heldStore(40, 'crashed');
    expect(await resolver('LATEST', gone.store).startOffset(q('T', 0), { members: new Set(['me']) })).toBe(
      40,
    );
    expect(gone.reads()).toBe(1);
    const done = heldStore(40, 'other');
    done.release();
    expect(
      await resolver('LATEST', done.store).startOffset(q('T', 0), { members: new Set(['me', 'other']) }),
    ).toBe(60);
  });

  it('gives up waiting after the hand-over bound plus its grace, and when cancelled', async () => {
    const stuck = heldStore(40, 'other');
    const members = new Set(['me', 'other']);
    let stopping = false;
    const cancelled = resolver('LATEST', stuck.store, undefined, 60_000).startOffset(q('T', 0), {
      members,
      cancelled: () => stopping,
    });
    stopping = true;
    await expect(cancelled).rejects.toThrow(/stopped waiting for the hand-over/);
    const started = Date.now();
    expect(await resolver('LATEST', stuck.store, undefined, 0).startOffset(q('T', 0), { members })).toBe(40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000); // HAND_OVER_GRACE_MS
  }, 15_000);

  it("starts at the broker's committed offset when it is ahead of the store (a crash after the last persist)", async () => {
    const store = new MemoryOffsetStore();
    store.updateOffset(q('T', 0), 33, true);
    expect(await resolver('LATEST', store, 37).startOffset(q('T', 0))).toBe(37);
    expect(await resolver('LATEST', store, 20).startOffset(q('T', 0))).toBe(33);
    expect(await resolver('LATEST', new MemoryOffsetStore(), 12).startOffset(q('T', 0))).toBe(12);
  });

  it('starts a queue without a stored offset where its starting position says', async () => {
    expect(await resolver('LATEST').startOffset(q('T', 0))).toBe(50);
    expect(await resolver('LATEST').startOffset(q('%RETRY%G', 0))).toBe(0);
    expect(await resolver('TRIM_HORIZON').startOffset(q('T', 0))).toBe(5);
    expect(await resolver('TRIM_HORIZON').startOffset(q('%RETRY%G', 0))).toBe(0);
    expect(await resolver('AT_TIMESTAMP').startOffset(q('T', 0))).toBe(9);
    expect(await resolver('AT_TIMESTAMP').startOffset(q('%RETRY%G', 0))).toBe(50);
  });

  it('starts LATEST at the beginning of a topic created after the consumer started (nothing in it is older)', async () => {
    const created = (createdAfterStart: boolean) =>
      resolver('LATEST', undefined, undefined, undefined, undefined, () => createdAfterStart);
    expect(await created(true).startOffset(q('T', 0))).toBe(5);
    expect(await created(false).startOffset(q('T', 0))).toBe(50);
    // The retry topic and a stored offset are not affected.
    expect(await created(true).startOffset(q('%RETRY%G', 0))).toBe(0);
  });

  it('prefers the stored offset', async () => {
    const store = new MemoryOffsetStore();
    store.updateOffset(q('T', 0), 33, true);
    expect(await resolver('LATEST', store).startOffset(q('T', 0))).toBe(33);
  });

  describe('a broker before 5.0 (answers 0 for a group without an offset)', () => {
    const v4 = MQVersionCode.V4_9_7;
    const table = (entries: Record<string, Record<number, number>>): (() => Promise<ConsumerOffsetTable>) => {
      const map = new Map(
        Object.entries(entries).map(([key, queues]) => [
          key,
          new Map(Object.entries(queues).map(([id, offset]) => [Number(id), offset])),
        ]),
      );
      return async () => map;
    };

    it('starts a new group at its starting position when the offset table has no entry for the queue', async () => {
      const master = { brokerVersion: v4, table: table({ 'T@OTHER': { 0: 7 }, 'T@G': { 1: 3 } }) };
      const store = new MemoryOffsetStore();
      expect(await resolver('LATEST', store, 0, 1000, master).startOffset(q('T', 0))).toBe(50);
      expect(await resolver('TRIM_HORIZON', store, 0, 1000, master).startOffset(q('T', 0))).toBe(5);
      expect(await resolver('AT_TIMESTAMP', store, 0, 1000, master).startOffset(q('T', 0))).toBe(9);
    });

    it('keeps a committed 0 (the table has the entry)', async () => {
      const master = { brokerVersion: v4, table: table({ 'T@G': { 0: 0 } }) };
      expect(await resolver('LATEST', new MemoryOffsetStore(), 0, 1000, master).startOffset(q('T', 0))).toBe(
        0,
      );
    });

    it('takes the 0 as committed when the table cannot be read (what Java does on 4.x: no skip)', async () => {
      const master = {
        brokerVersion: v4,
        table: async (): Promise<ConsumerOffsetTable> => {
          throw new Error('refused');
        },
      };
      expect(await resolver('LATEST', new MemoryOffsetStore(), 0, 1000, master).startOffset(q('T', 0))).toBe(
        0,
      );
    });

    it('does not ask for the table when the store has a record, the offset is not 0, or the broker is 5.x', async () => {
      const tableReads = { count: 0 };
      const stored = new MemoryOffsetStore();
      stored.updateOffset(q('T', 0), 33, true);
      expect(
        await resolver('LATEST', stored, 0, 1000, { brokerVersion: v4, tableReads }).startOffset(q('T', 0)),
      ).toBe(33);
      expect(
        await resolver('LATEST', new MemoryOffsetStore(), 12, 1000, {
          brokerVersion: v4,
          tableReads,
        }).startOffset(q('T', 0)),
      ).toBe(12);
      expect(
        await resolver('LATEST', new MemoryOffsetStore(), 0, 1000, { tableReads }).startOffset(q('T', 0)),
      ).toBe(0);
      expect(
        await resolver('LATEST', new MemoryOffsetStore(), 0, 1000, {
          brokerVersion: 0,
          tableReads,
        }).startOffset(q('T', 0)),
      ).toBe(0);
      expect(tableReads.count).toBe(0);
    });

    it('asks for one broker table once for the queues a rebalance adds together', async () => {
      const tableReads = { count: 0 };
      const start = resolver('LATEST', new MemoryOffsetStore(), 0, 1000, {
        brokerVersion: v4,
        table: table({}),
        tableReads,
      });
      const offsets = await Promise.all([0, 1, 2, 3].map((id) => start.startOffset(q('T', id))));
      expect(offsets).toEqual([50, 50, 50, 50]);
      expect(tableReads.count).toBe(1);
    });
  });
});
