/**
 * One {@link ThrottledLog} per logger, for lines whose writers come and go while the condition they
 * report lasts: a connection a pool replaces after a failed connect, a pull loop that a queue reset
 * replaces. A throttle of their own would start a new count with each of them (and log again); one shared
 * by every writer of the same logger keeps counting across them, keyed by what the line is about.
 */
import type { Logger } from './logger.js';
import { ThrottledLog } from './throttled-log.js';

const byLogger = new WeakMap<Logger, ThrottledLog>();

/**
 * The throttled log shared by everything writing to `logger`, made on first use.
 */
export function sharedThrottledLog(logger: Logger): ThrottledLog {
  let lines = byLogger.get(logger);
  if (lines === undefined) {
    lines = new ThrottledLog(logger);
    byLogger.set(logger, lines);
  }
  return lines;
}
