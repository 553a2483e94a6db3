/**
 * Keeps the README's configuration reference equal to `configReference()`, the table generated from the
 * config schema. `npm run readme:config` rewrites the README; a unit test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configReference } from '../../src/config/config-reference.js';

export const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));
const START = '<!-- config-reference:start -->';
const END = '<!-- config-reference:end -->';

/** The README text with the block between the markers replaced by the current reference. */
export function withCurrentReference(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${START} ... ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${configReference().trimEnd()}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README_PATH, withCurrentReference(readFileSync(README_PATH, 'utf8')));
}
