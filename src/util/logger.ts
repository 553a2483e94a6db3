/**
 * Structured logging for every layer: one pino root, a child per component.
 * Level from `LOG_LEVEL` (default `info`; tests set `silent` unless LOG_LEVEL is given).
 */
import { pino } from 'pino';

export type Logger = pino.Logger;

const defaultLevel = process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');

/**
 * The process-wide root logger. Its stdout writes are synchronous: with pino's default asynchronous
 * destination, a `process.exit` while a write is in flight writes the buffered later lines first and the
 * in-flight ones after (or never), so a stopping poller's last lines came out of order or were lost.
 */
export const rootLogger: Logger = pino(
  { level: defaultLevel, base: { pid: process.pid } },
  pino.destination({ dest: 1, sync: true }),
);

/** Loggers made here: the logger they derive from and every binding they add to it, merged. */
const derived = new WeakMap<Logger, { origin: Logger; bindings: Readonly<Record<string, unknown>> }>();

/**
 * A child logger with `bindings`, where a key bound by a parent made here is replaced rather than
 * repeated (pino appends child bindings, so nested components would print `"component"` twice per line).
 */
export function childLogger(parent: Logger, bindings: Readonly<Record<string, unknown>>): Logger {
  const known = derived.get(parent);
  const origin = known?.origin ?? parent;
  const merged = { ...known?.bindings, ...bindings };
  const child = origin.child(merged);
  derived.set(child, { origin, bindings: merged });
  return child;
}

/**
 * A child logger that stamps every line with its component name (replacing the parent's, if any).
 */
export function componentLogger(component: string, parent: Logger = rootLogger): Logger {
  return childLogger(parent, { component });
}
