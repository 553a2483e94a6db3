/**
 * Keeps the README's metrics reference (the `metrics-reference` block) equal to `metricsReference()`,
 * rendered from the poller's registry. `npm run readme:metrics` rewrites the block; a unit test fails
 * while they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { metricsReference } from '../../src/metrics/metrics-reference.js';
import { README_PATH, withBlock } from './readme-block.js';

/** The README text with the metrics block replaced by the current reference. */
export function withCurrentMetricsReference(readme: string): string {
  return withBlock(readme, 'metrics-reference', metricsReference());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README_PATH, withCurrentMetricsReference(readFileSync(README_PATH, 'utf8')));
}
