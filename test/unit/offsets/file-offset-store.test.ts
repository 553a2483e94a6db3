import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileOffsetStore, offsetFilePath } from '../../../src/offsets/file-offset-store.js';
import { parseOffsetFile } from '../../../src/offsets/offset-file.js';
import { NO_OFFSET } from '../../../src/offsets/offset-store.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';

const queue = (queueId: number) => ({ topic: 'T', brokerName: 'broker-a', queueId });
const q0 = queue(0);
const q1 = queue(1);

let baseDir: string;

beforeEach(async () => {
  baseDir = await mkdtemp(join(tmpdir(), 'offsets-'));
});

afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

function newStore(): FileOffsetStore {
  return new FileOffsetStore({ baseDir, clientInstance: '127.0.0.1@42', group: 'orders' });
}

async function fileOffsets(path: string): Promise<Record<string, number>> {
  return JSON.parse(await readFile(path, 'utf8')).offsets;
}

describe('FileOffsetStore', () => {
  it('lays files out as <baseDir>/<clientInstance>/<group>/offsets.json and refuses unsafe names', () => {
    expect(newStore().path).toBe(join(baseDir, '127.0.0.1@42', 'orders', 'offsets.json'));
    expect(() => offsetFilePath(baseDir, '..', 'orders')).toThrow(OffsetStoreError);
    expect(() => offsetFilePath(baseDir, 'c', 'a/b')).toThrow(OffsetStoreError);
    expect(() => offsetFilePath(baseDir, 'c', '')).toThrow(OffsetStoreError);
  });

  it('treats a missing file as an empty store', async () => {
    const store = newStore();
    await store.load();
    expect(await store.readOffset(q0, 'MEMORY_THEN_STORE')).toBe(NO_OFFSET);
  });

  it('round-trips offsets through the file, writing once for all changed queues', async () => {
    const store = newStore();
    await store.load();
    store.updateOffset(q0, 10, true);
    store.updateOffset(q1, 20, true);
    await store.persistAll([q0, q1]);
    expect(await fileOffsets(store.path)).toEqual({ 'T@broker-a@0': 10, 'T@broker-a@1': 20 });
    expect(await readdir(dirname(store.path))).toEqual(['offsets.json']);

    const reopened = newStore();
    await reopened.load();
    expect(await reopened.readOffset(q0, 'MEMORY')).toBe(10);
    expect(await reopened.readOffset(q1, 'MEMORY')).toBe(20);
  });

  it('does not rewrite the file when nothing changed', async () => {
    const store = newStore();
    store.updateOffset(q0, 10, true);
    await store.persist(q0);
    const before = await stat(store.path);
    store.updateOffset(q0, 9, true); // ignored: smaller
    store.updateOffset(q0, 10, true); // equal
    await store.persistAll([q0, q1]);
    expect((await stat(store.path)).ino).toBe(before.ino);
    store.updateOffset(q0, 11, true);
    await store.persistAll([q0]);
    expect((await stat(store.path)).ino).not.toBe(before.ino);
  });

  it('keeps the previous version as .bak and offsets of removed queues in the file', async () => {
    const store = newStore();
    store.updateOffset(q0, 1, true);
    store.updateOffset(q1, 1, true);
    await store.persistAll([q0, q1]);
    store.removeOffset(q0);
    store.updateOffset(q1, 5, true);
    await store.persistAll([q1]);
    expect(await fileOffsets(store.path)).toEqual({ 'T@broker-a@0': 1, 'T@broker-a@1': 5 });
    expect(await fileOffsets(store.backupPath)).toEqual({ 'T@broker-a@0': 1, 'T@broker-a@1': 1 });
  });

  it('does not drop offsets already on disk when persisting before load', async () => {
    const first = newStore();
    first.updateOffset(q0, 7, true);
    await first.persist(q0);
    const second = newStore();
    second.updateOffset(q1, 3, true);
    await second.persist(q1);
    expect(await fileOffsets(second.path)).toEqual({ 'T@broker-a@0': 7, 'T@broker-a@1': 3 });
  });

  it('recovers from .bak when the main file is corrupt, and keeps that .bak when rewriting', async () => {
    const store = newStore();
    store.updateOffset(q0, 5, true);
    await store.persist(q0);
    store.updateOffset(q0, 8, true);
    await store.persist(q0);
    await writeFile(store.path, '{"version":1,"offsets":{"T@broker-a@0":'); // torn write

    const recovered = newStore();
    await recovered.load();
    expect(await recovered.readOffset(q0, 'MEMORY')).toBe(5);
    recovered.updateOffset(q1, 2, true);
    await recovered.persist(q1);
    expect(await fileOffsets(recovered.path)).toEqual({ 'T@broker-a@0': 5, 'T@broker-a@1': 2 });
    expect(await fileOffsets(recovered.backupPath)).toEqual({ 'T@broker-a@0': 5 });
  });

  it('recovers from .bak when a crash left no main file', async () => {
    const store = newStore();
    store.updateOffset(q0, 5, true);
    await store.persist(q0);
    store.updateOffset(q0, 6, true);
    await store.persist(q0);
    await rm(store.path);
    await writeFile(`${store.path}.tmp`, '{"vers'); // a temp file cut short is ignored
    const recovered = newStore();
    expect(await recovered.readOffset(q0, 'STORE')).toBe(5);
  });

  it('fails clearly, naming the path, when neither the file nor its .bak is good', async () => {
    const store = newStore();
    store.updateOffset(q0, 5, true);
    await store.persist(q0);
    await writeFile(store.path, 'garbage');
    const broken = newStore();
    const failure = await broken.load().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(OffsetStoreError);
    expect((failure as OffsetStoreError).message).toContain(store.path);
    expect((failure as OffsetStoreError).message).toContain('not valid JSON');
    expect((failure as OffsetStoreError).retriable).toBe(false);
    // A persist must not replace the unreadable file with partial offsets.
    broken.updateOffset(q1, 1, true);
    await expect(broken.persist(q1)).rejects.toThrow(OffsetStoreError);
    expect(await readFile(store.path, 'utf8')).toBe('garbage');
  });

  it('serialises concurrent persistAll calls: every write lands, every version on disk is complete', async () => {
    const store = newStore();
    const torn: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const text = await readFile(store.path, 'utf8').catch(() => undefined);
        if (text !== undefined && parseOffsetFile(text).kind !== 'ok') torn.push(text);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const writes: Promise<void>[] = [];
    for (let round = 1; round <= 30; round++) {
      for (let queueId = 0; queueId < 4; queueId++) {
        store.updateOffset(queue(queueId), round * 10 + queueId, true);
        writes.push(store.persistAll([queue(queueId)]));
      }
    }
    await Promise.all(writes);
    reading = false;
    await reader;
    expect(torn).toEqual([]);
    expect(await fileOffsets(store.path)).toEqual({
      'T@broker-a@0': 300,
      'T@broker-a@1': 301,
      'T@broker-a@2': 302,
      'T@broker-a@3': 303,
    });
    await store.close();
  });

  it('rejects a write to an impossible path with an OffsetStoreError', async () => {
    await writeFile(join(baseDir, 'not-a-dir'), '');
    const store = new FileOffsetStore({
      baseDir: join(baseDir, 'not-a-dir'),
      clientInstance: 'c',
      group: 'g',
    });
    store.updateOffset(q0, 1, true);
    await expect(store.persist(q0)).rejects.toBeInstanceOf(OffsetStoreError);
    expect(await store.readOffset(q0, 'MEMORY')).toBe(1);
  });
});
