import { describe, expect, it } from 'vitest';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { NO_OFFSET } from '../../../src/offsets/offset-store.js';

const q0 = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
const q1 = { topic: 'T', brokerName: 'broker-a', queueId: 1 };

describe('MemoryOffsetStore', () => {
  it('keeps increase-only offsets and marks persisted queues clean', async () => {
    const store = new MemoryOffsetStore();
    await store.load();
    store.updateOffset(q0, 10, true);
    store.updateOffset(q0, 4, true);
    store.updateOffset(q1, 2, true);
    expect(await store.readOffset(q0, 'MEMORY')).toBe(10);
    expect(await store.readOffset(q0, 'STORE')).toBe(10);
    await store.persist(q0);
    expect(store.isDirty(q0)).toBe(false);
    expect(store.isDirty(q1)).toBe(true);
    await store.persistAll([q0, q1]);
    expect(store.isDirty(q1)).toBe(false);
    store.updateOffset(q1, 1, false);
    expect(await store.readOffset(q1, 'MEMORY_THEN_STORE')).toBe(1);
    store.removeOffset(q0);
    expect(await store.readOffset(q0, 'MEMORY_THEN_STORE')).toBe(NO_OFFSET);
    await store.close();
  });
});
