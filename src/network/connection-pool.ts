/**
 * One {@link Connection} per address, created on demand and shared by every caller of that address.
 */
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { Connection, type ConnectionOptions, type RemotingRequest } from './connection.js';
import { ConnectError, NetworkError } from './errors.js';

/**
 * Connections by address. A connection whose connect failed, with nothing else in flight, is evicted so
 * the pool does not keep addresses that no longer answer (the next call creates a fresh one).
 */
export class ConnectionPool {
  private readonly options: Omit<ConnectionOptions, 'address'>;
  private readonly connections = new Map<string, Connection>();
  private readonly logger: Logger;
  private closed = false;

  constructor(options: Omit<ConnectionOptions, 'address'> = {}) {
    this.options = options;
    this.logger = options.logger ?? componentLogger('network.pool');
  }

  /** Number of pooled connections. */
  get size(): number {
    return this.connections.size;
  }

  /**
   * The connection for `address`, created (not yet connected) when there is none. Throws a
   * non-retriable NetworkError once the pool is closed, or for an address that is not `host:port`.
   */
  get(address: string): Connection {
    if (this.closed) {
      throw new NetworkError('connection pool is closed', { address, retriable: false });
    }
    const existing = this.connections.get(address);
    if (existing && !existing.isClosed) return existing;
    const connection = new Connection({ ...this.options, address });
    this.connections.set(address, connection);
    return connection;
  }

  /** {@link Connection.request} on the connection for `address`. */
  async request(address: string, request: RemotingRequest, timeoutMs: number): Promise<RemotingCommand> {
    const connection = this.get(address);
    try {
      return await connection.request(request, timeoutMs);
    } catch (error) {
      this.evictAfterConnectError(connection, error);
      throw error;
    }
  }

  /** {@link Connection.oneway} on the connection for `address`. */
  async oneway(address: string, request: RemotingRequest, timeoutMs?: number): Promise<void> {
    const connection = this.get(address);
    try {
      await connection.oneway(request, timeoutMs);
    } catch (error) {
      this.evictAfterConnectError(connection, error);
      throw error;
    }
  }

  /** Closes and forgets the connection for `address` (in-flight calls reject with ConnectionClosedError). */
  async evict(address: string): Promise<void> {
    const connection = this.connections.get(address);
    if (connection === undefined) return;
    this.connections.delete(address);
    await connection.close();
  }

  /** Closes every connection; resolves once all are closed. Later calls throw. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
    // Counts of repeated peer lines would otherwise wait for a timer the exiting process never runs.
    for (const connection of all) connection.flushLogs();
  }

  private evictAfterConnectError(connection: Connection, error: unknown): void {
    if (!(error instanceof ConnectError) || connection.inFlight > 0) return;
    if (this.connections.get(connection.address) !== connection) return;
    this.connections.delete(connection.address);
    // Nothing is in flight and the socket never opened, so close() only marks it closed.
    connection.close().catch((closeError: unknown) => {
      this.logger.debug(
        { address: connection.address, err: closeError },
        'closing an evicted connection failed',
      );
    });
  }
}
