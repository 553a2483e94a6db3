// @ts-check
/**
 * `npm run demo`: runs the demo (demo.ts) from its cached bundle (src/dev/demo-bundle.mjs), built first
 * when the sources changed since the last run. Should the bundle not build (esbuild missing, a syntax
 * error in a source), it says why and runs demo.ts through tsx as before, where the same error, if any,
 * shows with its source position. demo.ts names in its start-up timeline which of the ways it came by.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedBundle } from '../dev/demo-bundle.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const entry = path.join(root, 'src', 'cli', 'demo.ts');
/** How demo.ts was loaded, for its timeline: from the bundle ('reused', 'built') or its 'sources'. */
const LOADED_AS = Symbol.for('rocketmq-lambda.demo-loaded-as');

/** @type {Record<symbol, unknown>} */ (globalThis)[LOADED_AS] = 'sources';
let url = pathToFileURL(entry).href;
try {
  const bundle = await cachedBundle({
    root,
    entry,
    dir: path.join(root, '.rocketmq-lambda', 'demo', 'bundle'),
  });
  /** @type {Record<symbol, unknown>} */ (globalThis)[LOADED_AS] = bundle.state;
  url = bundle.url;
  if (bundle.state === 'built' && process.argv.includes('--timings')) {
    console.log(`Bundled src/cli/demo.ts in ${bundle.buildMs} ms (${bundle.reason}).`);
  }
  // Stack traces name the sources' lines, not the bundle's (its source map sits next to it).
  process.setSourceMapsEnabled(true);
} catch (error) {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
  console.error(`demo: could not bundle src/cli/demo.ts (${reason}); running it through tsx instead.`);
  const { register } = await import('tsx/esm/api');
  register();
}
await import(url);
