/**
 * Renders the bench's charts (chart-specs.ts) to PNG files: Vega-Lite compiled to Vega, Vega's SVG
 * renderer (no canvas, no browser), then resvg to PNG with the DejaVu Sans font shipped by an npm
 * package, so that the same PNGs come out on any machine without system fonts or packages.
 */
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { parse, View } from 'vega';
import { compile } from 'vega-lite';
import type { BenchResults } from './bench-results.js';
import { chartSpecs } from './chart-specs.js';

const FONT_FILE = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
/** Pixels per SVG unit: sharp on high-density screens, still small files. */
const ZOOM = 2;

/**
 * Writes `<prefix>-throughput.png`, `<prefix>-latency.png` and `<prefix>-rss.png` and returns their
 * paths.
 *
 * @example
 * ```ts
 * await renderCharts(results, 'bench/results/latest'); // => ['bench/results/latest-throughput.png', ...]
 * ```
 */
export async function renderCharts(results: BenchResults, prefix: string): Promise<string[]> {
  const files: string[] = [];
  for (const chart of chartSpecs(results)) {
    const view = new View(parse(compile(chart.spec).spec), { renderer: 'none' });
    try {
      const svg = await view.toSVG();
      const png = new Resvg(svg, {
        font: { fontFiles: [FONT_FILE], loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' },
        fitTo: { mode: 'zoom', value: ZOOM },
      })
        .render()
        .asPng();
      const file = `${prefix}-${chart.name}.png`;
      await writeFile(file, png);
      files.push(file);
    } finally {
      view.finalize();
    }
  }
  return files;
}
