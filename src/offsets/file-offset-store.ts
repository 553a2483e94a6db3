/**
 * The offset store of broadcasting consumers: each client instance keeps its own offsets of a group in a
 * local JSON file, `<baseDir>/<clientInstance>/<group>/offsets.json` (the layout of Java's
 * LocalFileOffsetStore).
 *
 * Writes replace the file atomically: the new content goes to `offsets.json.tmp` in the same directory
 * and is fsynced, the current file becomes `offsets.json.bak`, and the temp file is renamed into place.
 * A crash at any point leaves a complete main file, or a complete `.bak` that {@link FileOffsetStore.load}
 * falls back to (offsets at most one persist old: redelivery, never loss).
 */

import { rename } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import { componentLogger } from '../util/logger.js';
import type { OffsetFileRead } from './offset-file.js';
import { errorCode, readOffsetFile, syncDirectory, writeFileDurably } from './offset-file.js';
import type { OffsetStore, StoredOffsetRecord } from './offset-store.js';
import { OffsetStoreError } from './offset-store-error.js';
import { localRecord } from './offset-table.js';
import { TableOffsetStore } from './table-offset-store.js';

const log = componentLogger('offsets.file');

/** Java's default, `~/.rocketmq_offsets`. */
export const DEFAULT_OFFSET_BASE_DIR = join(homedir(), '.rocketmq_offsets');

/** File system errors that may go away when tried again. */
const TRANSIENT_FS_CODES: ReadonlySet<string> = new Set([
  'EMFILE',
  'ENFILE',
  'EAGAIN',
  'EBUSY',
  'ENOSPC',
  'EIO',
]);

/** Construction options of {@link FileOffsetStore}. */
export interface FileOffsetStoreOptions {
  /** Directory holding one sub-directory per client instance. @default DEFAULT_OFFSET_BASE_DIR */
  baseDir?: string;
  /** The client instance (e.g. its client id); one path segment. */
  clientInstance: string;
  /** The consumer group; one path segment. */
  group: string;
}

/**
 * The path of the offsets file of (`clientInstance`, `group`) under `baseDir`. Throws a non-retriable
 * {@link OffsetStoreError} when a name is not a single safe path segment.
 */
export function offsetFilePath(baseDir: string, clientInstance: string, group: string): string {
  for (const [what, name] of [
    ['client instance', clientInstance],
    ['group', group],
  ] as const) {
    if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
      throw new OffsetStoreError(
        `${what} ${JSON.stringify(name)} cannot name a directory of the offsets file`,
      );
    }
  }
  return join(baseDir, clientInstance, group, 'offsets.json');
}

/**
 * {@link OffsetStore} in a local JSON file, for broadcasting mode. All file I/O of one store runs one
 * operation at a time, so concurrent `persistAll` calls are written one after the other.
 *
 * @example
 * ```ts
 * const store = new FileOffsetStore({ clientInstance: clientId, group: 'orders' });
 * await store.load();
 * store.updateOffset(queue, 42, true);
 * await store.persistAll([queue]);
 * ```
 */
export class FileOffsetStore extends TableOffsetStore {
  /** The offsets file. */
  readonly path: string;
  /** The previous good version of the offsets file. */
  readonly backupPath: string;
  readonly #tempPath: string;
  /** What the main file holds (queues removed from the table stay in the file), once read. */
  #onDisk: Map<string, number> | undefined;
  /** The main file holds a good version worth keeping as `.bak` (false after recovering from `.bak`). */
  #mainIsGood = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: FileOffsetStoreOptions) {
    super(log);
    this.path = offsetFilePath(
      options.baseDir ?? DEFAULT_OFFSET_BASE_DIR,
      options.clientInstance,
      options.group,
    );
    this.backupPath = `${this.path}.bak`;
    this.#tempPath = `${this.path}.tmp`;
  }

  /**
   * Reads the file into memory: a missing file is an empty store; a corrupt one is replaced by its `.bak`
   * (logged). Rejects with {@link OffsetStoreError} naming the path when neither holds good offsets.
   */
  load(): Promise<void> {
    return this.#serialised(async () => {
      for (const [key, offset] of await this.#readDisk()) this.table.setFromStore(key, offset);
    });
  }

  persist(queue: MessageQueue): Promise<void> {
    return this.persistAll([queue]);
  }

  /** Writes the file once if any of `queues` changed; rejects with {@link OffsetStoreError} on I/O errors. */
  persistAll(queues: readonly MessageQueue[]): Promise<void> {
    const keys = queues.map(messageQueueKey);
    return this.#serialised(async () => {
      if (this.table.dirtyWrites(keys).length === 0) return;
      try {
        const onDisk = this.#onDisk ?? (await this.#readDisk());
        // Taken after any read above, so offsets updated meanwhile are written too.
        const dirty = this.table.dirtyWrites(keys);
        const next = new Map(onDisk);
        for (const write of dirty) next.set(write.key, write.offset);
        await this.#write(next);
        this.#onDisk = next;
        for (const write of dirty) this.table.markStored(write);
        this.observers.writeSucceeded();
        log.debug({ path: this.path, queues: dirty.length }, 'offsets persisted');
      } catch (err) {
        this.observers.writeFailed(err);
        throw err;
      }
    });
  }

  /** One poller per file: releasing is persisting. */
  /** One poller per store: a claim is a persist. */
  claim(queue: MessageQueue): Promise<void> {
    return this.persistAll([queue]);
  }

  release(queues: readonly MessageQueue[]): Promise<void> {
    return this.persistAll(queues);
  }

  /** Waits for a write in progress; does not persist. */
  async close(): Promise<void> {
    await this.#queue.then(
      () => undefined,
      () => undefined,
    );
  }

  protected readStoredRecord(key: string): Promise<StoredOffsetRecord | undefined> {
    return this.#serialised(async () => {
      const offset = (await this.#readDisk()).get(key);
      return offset === undefined ? undefined : localRecord(offset, 0);
    });
  }

  #serialised<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation, operation);
    this.#queue = result.catch((err: unknown) =>
      log.debug({ err, path: this.path }, 'offset file operation failed'),
    );
    return result;
  }

  async #readDisk(): Promise<Map<string, number>> {
    const main = await this.#readOrThrow(this.path);
    let chosen: Map<string, number>;
    if (main.kind === 'ok') {
      chosen = main.offsets;
      this.#mainIsGood = true;
    } else {
      chosen = await this.#recoverFromBackup(main);
      this.#mainIsGood = false;
    }
    this.#onDisk = chosen;
    return new Map(chosen);
  }

  async #recoverFromBackup(main: Exclude<OffsetFileRead, { kind: 'ok' }>): Promise<Map<string, number>> {
    const backup = await this.#readOrThrow(this.backupPath);
    if (backup.kind === 'ok') {
      log.warn(
        {
          path: this.path,
          backupPath: this.backupPath,
          reason: main.kind === 'corrupt' ? main.reason : 'missing',
        },
        'offsets file unusable, using its backup',
      );
      return backup.offsets;
    }
    if (main.kind === 'missing' && backup.kind === 'missing') return new Map();
    const reasons = [
      main.kind === 'corrupt' ? `${this.path}: ${main.reason}` : `${this.path}: missing`,
      backup.kind === 'corrupt' ? `${this.backupPath}: ${backup.reason}` : `${this.backupPath}: missing`,
    ];
    throw new OffsetStoreError(
      `offsets file ${this.path} is corrupt and has no good backup (${reasons.join('; ')})`,
      {
        cause: main.kind === 'corrupt' ? main.cause : backup.kind === 'corrupt' ? backup.cause : undefined,
      },
    );
  }

  async #readOrThrow(path: string): Promise<OffsetFileRead> {
    try {
      return await readOffsetFile(path);
    } catch (err) {
      throw fileError(`cannot read offsets file ${path}`, err);
    }
  }

  async #write(offsets: ReadonlyMap<string, number>): Promise<void> {
    const content = `${JSON.stringify({ version: 1, offsets: Object.fromEntries(offsets) }, null, 2)}\n`;
    try {
      await writeFileDurably(this.#tempPath, content);
      if (this.#mainIsGood) {
        await rename(this.path, this.backupPath).catch((err: unknown) => {
          if (errorCode(err) !== 'ENOENT') throw err;
        });
      }
      await rename(this.#tempPath, this.path);
      this.#mainIsGood = true;
      await syncDirectory(dirname(this.path));
    } catch (err) {
      throw fileError(`cannot write offsets file ${this.path}`, err);
    }
  }
}

function fileError(message: string, cause: unknown): OffsetStoreError {
  const code = errorCode(cause);
  return new OffsetStoreError(code === undefined ? message : `${message}: ${code}`, {
    cause,
    retriable: code !== undefined && TRANSIENT_FS_CODES.has(code),
  });
}
