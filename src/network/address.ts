/**
 * Broker and name server addresses as RocketMQ writes them: `host:port`. IPv6 hosts come bracketed
 * (`[::1]:10911`) or, as brokers register them, unbracketed (`::1:10911`): the port is after the last colon.
 */
import { splitHostPort } from '../util/split-host-port.js';
import { NetworkError } from './errors.js';

/**
 * A parsed `host:port`. IPv6 hosts are returned without brackets.
 */
export interface SocketAddress {
  host: string;
  port: number;
}

/**
 * Splits an address at its last colon. Throws a non-retriable {@link NetworkError} when there is no
 * port, the port is not an integer in 1..65535, or the host is empty.
 */
export function parseAddress(address: string): SocketAddress {
  const parsed = splitHostPort(address);
  if (parsed === undefined || parsed.port === 0) {
    throw new NetworkError(`address "${address}" is not host:port`, { address, retriable: false });
  }
  return parsed;
}
