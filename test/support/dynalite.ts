/**
 * An in-process DynamoDB API (dynalite) on a free loopback port, for tests: in memory
 * ({@link startDynalite}), or with its LevelDB on disk so that a fault test can take DynamoDB down
 * and bring it back on the same port with the same data ({@link startDurableDynalite}).
 */
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import dynalite from 'dynalite';

/** Tables ACTIVE at once: tests do not wait for CREATING/DELETING/UPDATING. */
const INSTANT_TABLES = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 } as const;
/** start() again on a port another process grabbed in the meantime: tries before giving up. */
const RELISTEN_ATTEMPTS = 20;
const RELISTEN_DELAY_MS = 250;
/** How often a closing server drops connections that finished their request. */
const IDLE_SWEEP_MS = 20;
/** A closing server drops even busy connections after this long (DynamoDB requests take ms). */
const FORCE_CLOSE_AFTER_MS = 5_000;
/** DynamoDB operations that change nothing: a client sending only these is not a writer. */
const READ_OPERATIONS = new Set(['Query', 'Scan', 'GetItem', 'BatchGetItem', 'DescribeTable', 'ListTables']);

/** A running dynalite. */
export interface DynaliteHandle {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint`. */
  endpoint: string;
  /**
   * True when no connection that sent a write is still open and every write dynalite read whole has
   * been answered (dynalite answers after its store has the change). After a writer is killed, this
   * turns true once the writes it had sent have landed; a reader's keep-alive connection does not count.
   */
  writesSettled(): boolean;
  /** Stops the server (open keep-alive connections included, once their request is answered) and drops its data. */
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
  const server = dynalite(INSTANT_TABLES);
  const writesSettled = trackWrites(server);
  const port = await listen(server, 0);
  return { endpoint: `http://127.0.0.1:${port}`, writesSettled, close: () => closeServer(server) };
}

/** A dynalite whose data lives on disk: it can be stopped and started again, data kept. */
export interface DurableDynaliteHandle extends DynaliteHandle {
  /** The LevelDB directory (the caller removes it). */
  readonly path: string;
  /** False between stop() and start(). */
  readonly running: boolean;
  /**
   * Takes DynamoDB down: the server is closed (open connections included, once their request is
   * answered), the port released and the database closed, so that requests fail with connection
   * refused. No-op when stopped.
   */
  stop(): Promise<void>;
  /** Brings it back on the same port, on the same data. No-op when running. */
  start(): Promise<void>;
  /** stop(), for the test's cleanup; the data stays in `path`. */
  close(): Promise<void>;
}

/**
 * Starts dynalite on `127.0.0.1` with its LevelDB in `path` (created when missing), tables ACTIVE
 * at once.
 *
 * @example
 * ```ts
 * const db = await startDurableDynalite(path.join(dir, 'dynamodb'));
 * await db.stop(); // DynamoDB down: connections refused
 * await db.start(); // back, same endpoint, same tables and items
 * await db.close();
 * ```
 */
export async function startDurableDynalite(path: string): Promise<DurableDynaliteHandle> {
  let server: Server | undefined = dynalite({ ...INSTANT_TABLES, path });
  let writesSettled = trackWrites(server);
  const port = await listen(server, 0);
  const stop = async (): Promise<void> => {
    if (server === undefined) return;
    const closing = server;
    server = undefined;
    await closeServer(closing);
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    path,
    get running() {
      return server !== undefined;
    },
    writesSettled: () => writesSettled(),
    stop,
    async start() {
      if (server !== undefined) return;
      // A fresh dynalite opens the LevelDB the stopped one closed (dynalite's own re-listen after
      // close is not used: how it swaps its store is an internal detail).
      const next = dynalite({ ...INSTANT_TABLES, path });
      const nextSettled = trackWrites(next);
      await listenAgain(next, port);
      server = next;
      writesSettled = nextSettled;
    },
    close: stop,
  };
}

/**
 * Follows the writes `server` receives; the answer of {@link DynaliteHandle.writesSettled}. A write
 * counts once its body was read whole (a request cut off earlier never reaches dynalite's store) and is
 * settled once dynalite ended its response, which it does after the store call returned, whether or
 * not the client is still there to read it.
 */
function trackWrites(server: Server): () => boolean {
  const writers = new Set<Socket>();
  const unanswered = new Set<ServerResponse>();
  // Registered after dynalite's own handler, so dynalite reads the body first and this only watches.
  server.on('request', (req, res) => {
    const target = req.headers['x-amz-target'];
    const operation = typeof target === 'string' ? target.slice(target.indexOf('.') + 1) : '';
    if (READ_OPERATIONS.has(operation)) return;
    const socket = req.socket;
    if (!writers.has(socket)) {
      writers.add(socket);
      socket.once('close', () => writers.delete(socket));
    }
    req.once('end', () => {
      if (!res.writableEnded) unanswered.add(res);
    });
  });
  return () => {
    for (const res of unanswered) if (res.writableEnded) unanswered.delete(res);
    return writers.size === 0 && unanswered.size === 0;
  };
}

/** Listens on `127.0.0.1:<port>` (0: a free port); resolves with the port. */
async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * The port was ours until stop(); an outgoing connection of another process may take it as its
 * local port meanwhile, and release it soon after.
 */
async function listenAgain(server: Server, port: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await listen(server, port);
      return;
    } catch (error) {
      const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!inUse || attempt >= RELISTEN_ATTEMPTS) {
        throw new Error(`dynalite could not listen on 127.0.0.1:${port} again`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, RELISTEN_DELAY_MS));
    }
  }
}

/**
 * Closes the server and, through dynalite (once the last connection is gone), its database. Busy
 * connections finish their request first: destroying them would leave dynalite's handler running
 * against a database closed under it, which throws out of dynalite as an uncaught exception. Idle
 * keep-alive connections are closed as they become idle; after {@link FORCE_CLOSE_AFTER_MS} every
 * connection is.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const idleSweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const force = setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_AFTER_MS);
    server.close((err) => {
      clearInterval(idleSweep);
      clearTimeout(force);
      if (err) reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
