/**
 * The logger of the developer commands (`dev`, `send`, `validate`): pino as everywhere, but on a terminal
 * each record becomes one readable line (`WARN client.producer: send failed, retrying (topic=Orders ...)`)
 * instead of JSON; elsewhere (pipes, CI) the JSON lines stay, for tools.
 */
import { pino } from 'pino';
import type { Logger } from '../util/logger.js';
import type { CliIo } from './cli-io.js';
import type { TerminalStyle } from './terminal-style.js';

/** pino's numeric levels, by name. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Keys every record has that the readable line shows in its own place, or not at all. */
const FRAME_KEYS = new Set(['level', 'time', 'pid', 'hostname', 'component', 'msg', 'err']);

/**
 * Options of {@link cliLogger}.
 */
export interface CliLoggerOptions {
  /** Where the records go. */
  readonly stream: { write(text: string): unknown };
  /** pino level name (`warn`, `info`, `debug`, ...). */
  readonly level: string;
  /** One readable line per record (a terminal) rather than JSON. */
  readonly readable: boolean;
  /** Colours the level of readable lines. @default none */
  readonly style?: TerminalStyle | undefined;
}

/**
 * A pino logger writing to `stream`: readable one-liners or JSON lines.
 */
export function cliLogger(options: CliLoggerOptions): Logger {
  const { stream, readable, style } = options;
  const destination = {
    write: (line: string): void => {
      stream.write(readable ? `${formatLogRecord(line, style)}\n` : line);
    },
  };
  return pino({ level: options.level, base: { pid: process.pid } }, destination);
}

/**
 * The logger of a command whose output is on stdout (`send`, `validate`): the one `io` brings, else
 * {@link cliLogger} on stderr at `LOG_LEVEL` (or `defaultLevel`), readable when stderr is a terminal.
 */
export function stderrLogger(io: CliIo, defaultLevel: string): Logger {
  return (
    io.logger ??
    cliLogger({
      stream: io.stderr,
      level: io.env.LOG_LEVEL ?? defaultLevel,
      readable: (io.stderr as { isTTY?: boolean }).isTTY === true,
    })
  );
}

/**
 * One pino JSON line as a readable line: level, component, message, then the other fields as key=value
 * and the error's message last. Text that is not a JSON object is returned as is (without its newline).
 */
export function formatLogRecord(line: string, style?: TerminalStyle | undefined): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    // Not pino's: shown unchanged.
    return line.replace(/\n$/, '');
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return line.replace(/\n$/, '');
  const fields = record as Record<string, unknown>;
  const levelNumber = typeof fields.level === 'number' ? fields.level : 30;
  const levelName = LEVEL_NAMES[levelNumber] ?? String(fields.level);
  const level =
    style === undefined
      ? levelName
      : levelNumber >= 50
        ? style.red(levelName)
        : levelNumber >= 40
          ? style.yellow(levelName)
          : style.dim(levelName);
  const component = typeof fields.component === 'string' ? ` ${fields.component}:` : '';
  const message = typeof fields.msg === 'string' ? ` ${fields.msg}` : '';
  const details = Object.entries(fields)
    .filter(([key, value]) => !FRAME_KEYS.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const error = errorMessageOf(fields.err);
  if (error !== undefined) details.push(error);
  return `${level}${component}${message}${details.length === 0 ? '' : ` (${details.join(' ')})`}`;
}

/** The message of pino's serialized `err` (`{ type, message, stack }`). */
function errorMessageOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return err === undefined ? undefined : String(err);
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}
