/**
 * What the client layer needs from the network layer: request/response and oneway sends to an
 * address. {@link ConnectionPool} provides it; unit tests pass a fake.
 */
import type { RemotingRequest } from '../network/connection.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';

/**
 * Sends requests to servers by address.
 */
export interface RemotingTransport {
  /** Resolves with the response whatever its code; rejects on network errors and timeouts. */
  request(address: string, request: RemotingRequest, timeoutMs: number): Promise<RemotingCommand>;
  /** Resolves once the frame is written. */
  oneway(address: string, request: RemotingRequest): Promise<void>;
}
