/**
 * Structured logging for every layer: one pino root, a child per component.
 * Level from `LOG_LEVEL` (default `info`; tests set `silent` unless LOG_LEVEL is given).
 */
import { pino } from 'pino';

export type Logger = pino.Logger;

const defaultLevel = process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');

/** The process-wide root logger. */
export const rootLogger: Logger = pino({ level: defaultLevel, base: { pid: process.pid } });

/**
 * A child logger that stamps every line with its component name.
 *
 * @example
 * ```ts
 * const log = componentLogger('network.connection');
 * log.warn({ address, err }, 'connection closed');
 * ```
 */
export function componentLogger(component: string, parent: Logger = rootLogger): Logger {
  return parent.child({ component });
}
