/**
 * The embedded DynamoDB API of `rocketmq-lambda dev`: dynalite on a free loopback port, its LevelDB data
 * under a directory that survives restarts (so offsets persist across dev runs). dynalite (and its native
 * LevelDB) is an optional peer dependency, loaded only here (src/util/optional-module.ts).
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type dynalite from 'dynalite';
import { RocketMQError } from '../errors.js';
import { DEV_LOOP_PACKAGES, importOptional } from '../util/optional-module.js';

/**
 * A running embedded DynamoDB.
 */
export interface EmbeddedDynamoDb {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The LevelDB directory. */
  readonly dataDir: string;
  /** Stops the server (open connections included); the data stays on disk. */
  close(): Promise<void>;
}

/**
 * Starts dynalite with its data in `dataDir` (created if missing), tables ACTIVE at once. Throws
 * OptionalModuleMissingError (naming what to install) when dynalite is not installed.
 */
export async function startEmbeddedDynamoDb(dataDir: string): Promise<EmbeddedDynamoDb> {
  const { default: createServer } = await importOptional<{ default: typeof dynalite }>(
    'dynalite',
    DEV_LOOP_PACKAGES,
  );
  mkdirSync(dataDir, { recursive: true });
  const server = createServer({ path: dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (cause) {
    throw new RocketMQError(`cannot start the embedded DynamoDB (data in ${dataDir})`, { cause });
  }
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    dataDir,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
