import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_OFFSET } from '../../../src/offsets/offset-store.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';
import type { PendingWrite } from '../../../src/offsets/offset-table.js';
import { localRecord, OffsetTable, readOffsetThrough } from '../../../src/offsets/offset-table.js';

const KEY = 'T@broker-a@0';

describe('OffsetTable', () => {
  it('answers NO_OFFSET for an unknown queue', () => {
    const table = new OffsetTable();
    expect(table.get(KEY)).toBe(NO_OFFSET);
    expect(table.has(KEY)).toBe(false);
    expect(table.isDirty(KEY)).toBe(false);
  });

  it('ignores smaller values when increase-only, and takes any value otherwise', () => {
    const table = new OffsetTable();
    expect(table.update(KEY, 10, true)).toBe(true);
    expect(table.update(KEY, 7, true)).toBe(false);
    expect(table.get(KEY)).toBe(10);
    expect(table.update(KEY, 12, true)).toBe(true);
    expect(table.update(KEY, 3, false)).toBe(true);
    expect(table.get(KEY)).toBe(3);
  });

  it('rejects offsets that are not non-negative safe integers', () => {
    const table = new OffsetTable();
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => table.update(KEY, bad, false)).toThrow(OffsetStoreError);
    }
    expect(table.has(KEY)).toBe(false);
  });

  it('is dirty exactly while the value differs from the stored one', () => {
    const table = new OffsetTable();
    table.update(KEY, 5, true);
    expect(table.dirtyEntries()).toEqual([[KEY, 5]]);
    table.markStored(table.pendingWrite(KEY) as PendingWrite);
    expect(table.isDirty(KEY)).toBe(false);
    table.update(KEY, 5, true);
    expect(table.isDirty(KEY)).toBe(false);
    table.update(KEY, 8, false);
    expect(table.isDirty(KEY)).toBe(true);
    table.update(KEY, 5, false); // back to what is stored
    expect(table.isDirty(KEY)).toBe(false);
  });

  it('keeps a queue dirty when it moved on while its write was in flight', () => {
    const table = new OffsetTable();
    table.update(KEY, 5, true);
    const [write] = table.dirtyWrites() as [PendingWrite];
    table.update(KEY, 9, true);
    table.markStored(write);
    expect(table.dirtyEntries()).toEqual([[KEY, 9]]);
  });

  it('does not bring back a queue removed while its write was in flight', () => {
    const table = new OffsetTable();
    table.update(KEY, 5, true);
    const write = table.pendingWrite(KEY) as PendingWrite;
    table.remove(KEY);
    table.markStored(write);
    expect(table.has(KEY)).toBe(false);
  });

  it('treats values from the store as clean and restricts dirty entries to the given keys', () => {
    const table = new OffsetTable();
    table.setFromStore(KEY, 4);
    table.update('T@broker-a@1', 1, true);
    table.update('T@broker-b@0', 2, true);
    expect(table.isDirty(KEY)).toBe(false);
    expect(table.dirtyEntries([KEY, 'T@broker-b@0', 'T@broker-b@0', 'unknown'])).toEqual([
      ['T@broker-b@0', 2],
    ]);
    expect(table.size).toBe(3);
    expect(table.entries()).toContainEqual([KEY, 4]);
  });

  it('keeps a correction pending until it is written, as the next generation', () => {
    const table = new OffsetTable();
    table.setFromStore(KEY, 1500, 2);
    table.correct(KEY, 0);
    const correction = table.pendingWrite(KEY) as PendingWrite;
    expect(correction).toMatchObject({ key: KEY, offset: 0, generation: 2, correction: true });
    table.update(KEY, 40, true); // consumption goes on while the correction is written
    table.markStored(correction, 3);
    expect(table.generation(KEY)).toBe(3);
    expect(table.pendingWrite(KEY)).toMatchObject({ offset: 40, generation: 3, correction: false });
  });

  it('keeps a second correction pending when it came while the first was written', () => {
    const table = new OffsetTable();
    table.setFromStore(KEY, 100);
    table.correct(KEY, 10);
    const first = table.pendingWrite(KEY) as PendingWrite;
    table.correct(KEY, 5);
    table.markStored(first, 1);
    expect(table.pendingWrite(KEY)).toMatchObject({ offset: 5, generation: 1, correction: true });
  });

  it('is dirty after a correction to the stored value (the generation must still move)', () => {
    const table = new OffsetTable();
    table.setFromStore(KEY, 7);
    table.correct(KEY, 7);
    expect(table.isDirty(KEY)).toBe(true);
    expect(() => table.correct(KEY, -3)).toThrow(OffsetStoreError);
  });

  it('holds the maximum of any sequence of increase-only updates (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a@b@0', 'a@b@1', 'c@b@0'), fc.nat({ max: 1_000_000 })), {
          minLength: 1,
        }),
        fc.array(fc.nat({ max: 200 })),
        (updates, persistPoints) => {
          const table = new OffsetTable();
          const stored = new Map<string, number>();
          const persistAt = new Set(persistPoints);
          updates.forEach(([key, offset], index) => {
            table.update(key, offset, true);
            if (persistAt.has(index)) {
              for (const write of table.dirtyWrites()) {
                stored.set(write.key, write.offset);
                table.markStored(write);
              }
            }
          });
          for (const [dirtyKey, value] of table.dirtyEntries()) stored.set(dirtyKey, value);
          const expected = new Map<string, number>();
          for (const [key, offset] of updates) expected.set(key, Math.max(expected.get(key) ?? 0, offset));
          for (const [key, max] of expected) {
            expect(table.get(key)).toBe(max);
            expect(stored.get(key)).toBe(max);
          }
        },
      ),
    );
  });
});

describe('readOffsetThrough', () => {
  const queue = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

  it('answers MEMORY from the table without reading the store', async () => {
    const table = new OffsetTable();
    table.update(KEY, 3, true);
    let reads = 0;
    const readStore = async () => {
      reads++;
      return localRecord(99, 0);
    };
    expect(await readOffsetThrough(table, queue, 'MEMORY', readStore)).toBe(3);
    expect(await readOffsetThrough(table, queue, 'MEMORY_THEN_STORE', readStore)).toBe(3);
    expect(reads).toBe(0);
  });

  it('reads the store for STORE and for an unknown queue, caching a found offset as clean', async () => {
    const table = new OffsetTable();
    expect(await readOffsetThrough(table, queue, 'MEMORY_THEN_STORE', async () => undefined)).toBe(NO_OFFSET);
    expect(table.has(KEY)).toBe(false);
    expect(await readOffsetThrough(table, queue, 'STORE', async () => localRecord(40, 3))).toBe(40);
    expect(table.get(KEY)).toBe(40);
    expect(table.generation(KEY)).toBe(3);
    expect(table.isDirty(KEY)).toBe(false);
  });
});
