/**
 * `npm run bench:charts [-- FILE.json]`: redraws the PNG charts of a results file (default
 * bench/results/latest.json) next to it, `latest.json` giving `latest-throughput.png`,
 * `latest-latency.png` and `latest-rss.png`.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './bench-results.js';
import { renderCharts } from './render-charts.js';

const DEFAULT_FILE = fileURLToPath(new URL('./results/latest.json', import.meta.url));

async function main(): Promise<void> {
  const file = process.argv[2] ?? DEFAULT_FILE;
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  if (results.schemaVersion !== 1)
    throw new Error(`${file}: unknown schemaVersion ${String(results.schemaVersion)}`);
  for (const written of await renderCharts(results, file.replace(/\.json$/, ''))) {
    process.stderr.write(`[bench] ${written}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
