/**
 * Paths into filter patterns for error messages: `filters[1].body.status[0].numeric`, with keys that are
 * not plain identifiers quoted (`filters[0]["detail-type"]`).
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path` extended by the object key `key`. */
export function keyPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** `path` extended by the array index `index`. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}
