/**
 * One problem of a config: the key path it is about and what is wrong, rendered as one line
 * (`mappings[1].batchSize: must be ≤ 10000`).
 */

import { echoedValue, MAX_ECHOED_CHARS } from '../util/echoed-value.js';

/** A key path: object keys and array indexes from the root. */
export type KeyPath = readonly (string | number)[];

/**
 * One problem found in a config.
 */
export interface ConfigProblem {
  readonly path: KeyPath;
  readonly message: string;
}

/**
 * Renders a key path the way a reader writes it: `mappings[1].filter.sql`; the root is `(config)`.
 */
export function formatKeyPath(path: KeyPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (part.length <= MAX_ECHOED_CHARS && /^[A-Za-z_$][\w$]*$/.test(part))
      out += out === '' ? part : `.${part}`;
    // An unknown key is input too: a long one is cut like any echoed value.
    else out += `[${echoedValue(part)}]`;
  }
  return out === '' ? '(config)' : out;
}

/**
 * The line of a problem: `<key path>: <message>`.
 */
export function problemLine(problem: ConfigProblem): string {
  return `${formatKeyPath(problem.path)}: ${problem.message}`;
}
