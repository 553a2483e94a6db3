/**
 * The log lines a peer can make repeat at will, once per connection it accepts and spoils (garbage, a
 * frame that stops half-way, a close) or per frame it sends: throttled per peer address, so a peer that
 * answers every reconnect with garbage costs a line per interval with a count, not a line per reconnect.
 * The throttle is the logger's shared one (shared-throttled-log.ts), so a pool that replaces a
 * connection after a failed connect (connection-pool.ts) starts no new count.
 */
import type { Logger } from '../util/logger.js';
import { sharedThrottledLog } from '../util/shared-throttled-log.js';
import type { ThrottledLog } from '../util/throttled-log.js';

/**
 * The throttled lines about peers logged to `logger`; key them with {@link peerLineKey}.
 */
export function peerLinesOf(logger: Logger): ThrottledLog {
  return sharedThrottledLog(logger);
}

/**
 * The throttling key of `line` about the peer at `address`: our own configured or routed address, so
 * a peer cannot multiply the keys (ThrottledLog caps them anyway).
 */
export function peerLineKey(line: string, address: string): string {
  return `peer:${line}:${address}`;
}

/**
 * Writes the counts held back in the lines logged to `logger` (at shutdown, or in tests): the timers
 * that would write them later do not keep the process alive.
 */
export function flushPeerLines(logger: Logger): void {
  sharedThrottledLog(logger).flush();
}
