/**
 * Keeps the README's configuration reference equal to `configReference()`, the table generated from the
 * config schema. `npm run readme:config` rewrites the README; a unit test fails while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configReference } from '../../src/config/config-reference.js';
import { README_PATH, withBlock } from './readme-block.js';

export { README_PATH };

/** The README text with the block between the markers replaced by the current reference. */
export function withCurrentReference(readme: string): string {
  return withBlock(readme, 'config-reference', configReference());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README_PATH, withCurrentReference(readFileSync(README_PATH, 'utf8')));
}
