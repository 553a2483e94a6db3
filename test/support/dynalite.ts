/**
 * An in-process DynamoDB API (dynalite, LevelDB in memory) on a free loopback port, for tests.
 */
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

/** A running dynalite. */
export interface DynaliteHandle {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint`. */
  endpoint: string;
  /** Stops the server (open keep-alive connections included) and drops its data. */
  close(): Promise<void>;
}

/** Credentials and region dynalite accepts (it checks neither). */
export const DYNALITE_CLIENT_CONFIG = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
} as const;

/**
 * Starts dynalite on `127.0.0.1`, tables ACTIVE at once.
 *
 * @example
 * ```ts
 * const db = await startDynalite();
 * const client = new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint: db.endpoint });
 * // ...
 * client.destroy();
 * await db.close();
 * ```
 */
export async function startDynalite(): Promise<DynaliteHandle> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
