/**
 * Client ids (`ip@instance`), the identity the broker uses to list a group's members and to hold queue
 * locks. Rebalance allocates queues by sorted client ids, so two clients with the same id would take the
 * same queues: ours are unique per process **and** per instance (two pollers in one process, or two
 * containers with the same IP and PID, never collide).
 */
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';

let instanceCounter = 0;
let cachedIp: string | undefined;

/**
 * Options of {@link createClientId}.
 */
export interface ClientIdOptions {
  /** The IP part; default: the first non-internal IPv4 address, else 127.0.0.1. */
  ip?: string | undefined;
  /** A fixed instance name (replaces `pid#unique`); the caller then owns uniqueness. */
  instanceName?: string | undefined;
}

/**
 * Creates a new client id `ip@pid#<unique>`; every call returns a different id.
 */
export function createClientId(options: ClientIdOptions = {}): string {
  cachedIp ??= localIp();
  const ip = options.ip ?? cachedIp;
  if (options.instanceName !== undefined) return `${ip}@${options.instanceName}`;
  instanceCounter += 1;
  const unique = `${process.hrtime.bigint().toString(36)}-${instanceCounter}-${randomBytes(3).toString('hex')}`;
  return `${ip}@${process.pid}#${unique}`;
}

/**
 * The first non-internal IPv4 address of this host (what Java's `RemotingUtil.getLocalAddress` prefers),
 * or 127.0.0.1.
 */
export function localIp(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  return '127.0.0.1';
}
