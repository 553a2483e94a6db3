/**
 * Colour for people, never for pipes: commands colour their output only when the stream is a terminal
 * and the user did not opt out (`NO_COLOR`, https://no-color.org); `FORCE_COLOR` forces it on.
 */
import picocolors from 'picocolors';

/** The colour functions a command uses (plain identity functions when colour is off). */
export type TerminalStyle = ReturnType<typeof picocolors.createColors>;

/**
 * The style for writing to `stream` in environment `env`.
 */
export function terminalStyle(
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>,
): TerminalStyle {
  return picocolors.createColors(colourEnabled(stream, env));
}

/**
 * Whether output to `stream` gets colour.
 */
export function colourEnabled(
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
