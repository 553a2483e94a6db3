// @ts-check
/**
 * The demo's bundle: `npm run demo` (src/cli/demo-launch.mjs) runs src/cli/demo.ts from one ES module
 * that esbuild bundles from our sources, packages left external, cached in `.rocketmq-lambda/demo/bundle/`
 * and rebuilt when any of its inputs changed (size or modification time). Node then loads one file of
 * ours instead of some 350 modules through tsx's loader hooks, which is most of a warm demo's start
 * (README, Local development loop, has the figures).
 *
 * Plain JavaScript: it runs before any TypeScript loader exists. It is part of the repository's dev loop
 * only (the published package ships dist/, built from the `.ts` sources), and loads esbuild, which tsx
 * brings, only when it has to build.
 *
 * In the bundle each module's `import.meta.url` is its source file's URL with a `#bundled` fragment:
 * paths relative to a module (the console's assets, package.json, the kept broker's host script) resolve
 * as they do from the sources, and src/dev/typescript-loader.ts sees that no TypeScript loader is active
 * (the URL does not end in `.ts`), so it registers tsx for the handlers.
 */
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The manifest's format; a manifest of another one means "rebuild". */
const FORMAT = 1;
/** Bounds on the manifest read back (our own file, but read from disk): its bytes and its inputs. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
export const MAX_INPUTS = 10_000;
/** The fragment that marks a module URL as rewritten into the bundle. */
export const BUNDLED_FRAGMENT = '#bundled';

/**
 * @typedef {object} BundleInput One source file the bundle was built from, as it was then.
 * @property {string} file its path relative to the bundle's root
 * @property {number} size its size in bytes
 * @property {number} mtimeMs its modification time
 */

/**
 * @typedef {object} BundleSpec What to bundle and where.
 * @property {string} root the directory input paths are relative to (the repository)
 * @property {string} entry the entry module, absolute
 * @property {string} dir the cache directory, absolute
 */

/** @param {string} dir */
export function bundlePaths(dir) {
  return { bundle: path.join(dir, 'bundle.mjs'), manifest: path.join(dir, 'inputs.json') };
}

/**
 * Why the cached bundle cannot be used (a missing bundle, an unreadable manifest, an input that changed
 * or is gone), or undefined when it can.
 * @param {BundleSpec} spec
 * @returns {Promise<string | undefined>}
 */
export async function staleReason(spec) {
  const { bundle, manifest } = bundlePaths(spec.dir);
  /** @type {unknown} */
  let parsed;
  try {
    const info = await stat(manifest);
    if (info.size > MAX_MANIFEST_BYTES)
      return `${manifest} is ${info.size} bytes, above ${MAX_MANIFEST_BYTES}`;
    parsed = JSON.parse(await readFile(manifest, 'utf8'));
    await stat(bundle);
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'ENOENT'
      ? 'no bundle built yet'
      : `${manifest} is unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
  const inputs = manifestInputs(parsed, spec.entry, spec.root);
  if (typeof inputs === 'string') return `${manifest} ${inputs}`;
  for (const input of inputs) {
    const file = path.resolve(spec.root, input.file);
    try {
      const now = await stat(file);
      if (now.size !== input.size || now.mtimeMs !== input.mtimeMs) return `${input.file} changed`;
    } catch {
      return `${input.file} is gone`;
    }
  }
  return undefined;
}

/**
 * The inputs a parsed manifest lists, or what is wrong with it.
 * @param {unknown} parsed
 * @param {string} entry
 * @param {string} root
 * @returns {BundleInput[] | string}
 */
function manifestInputs(parsed, entry, root) {
  if (typeof parsed !== 'object' || parsed === null) return 'is not a JSON object';
  const record = /** @type {Record<string, unknown>} */ (parsed);
  if (record.format !== FORMAT) return `has format ${String(record.format)}, not ${FORMAT}`;
  if (record.entry !== path.relative(root, entry)) return `is for ${String(record.entry)}`;
  const inputs = record.inputs;
  if (!Array.isArray(inputs)) return 'has no inputs list';
  if (inputs.length > MAX_INPUTS) return `lists ${inputs.length} inputs, above ${MAX_INPUTS}`;
  for (const input of inputs) {
    if (
      typeof input !== 'object' ||
      input === null ||
      typeof input.file !== 'string' ||
      typeof input.size !== 'number' ||
      typeof input.mtimeMs !== 'number'
    ) {
      return `has an input that is not {file, size, mtimeMs}: ${JSON.stringify(input)}`;
    }
  }
  return /** @type {BundleInput[]} */ (inputs);
}

/**
 * Bundles `spec.entry` into `spec.dir` and writes its manifest; resolves with the build's milliseconds.
 * The bundle and the manifest are each written to a temporary file and renamed, so a demo starting
 * meanwhile reads either the old pair or the new one. An input edited during the build leaves no
 * manifest behind: the next start builds again rather than run a bundle older than its sources.
 * @param {BundleSpec} spec
 * @returns {Promise<number>}
 */
export async function buildBundle(spec) {
  const startedAt = Date.now();
  const esbuild = await import('esbuild');
  const { bundle, manifest } = bundlePaths(spec.dir);
  await mkdir(spec.dir, { recursive: true });
  const temporary = `${bundle}.${process.pid}.tmp`;
  /** @type {import('esbuild').BuildResult<{ metafile: true }>} */
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [spec.entry],
      outfile: temporary,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      metafile: true,
      logLevel: 'silent',
      plugins: [
        /** @type {import('esbuild').Plugin} */ ({
          name: 'source-import-meta-url',
          setup(build) {
            build.onLoad({ filter: /\.ts$/ }, async (args) => {
              const source = await readFile(args.path, 'utf8');
              const url = JSON.stringify(pathToFileURL(args.path).href + BUNDLED_FRAGMENT);
              return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
            });
          },
        }),
      ],
    });
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await rename(temporary, bundle);
  /** @type {BundleInput[]} */
  const inputs = [];
  let editedMeanwhile = false;
  for (const file of Object.keys(result.metafile.inputs)) {
    const info = await stat(path.resolve(file));
    if (info.mtimeMs >= startedAt) editedMeanwhile = true;
    inputs.push({
      file: path.relative(spec.root, path.resolve(file)),
      size: info.size,
      mtimeMs: info.mtimeMs,
    });
  }
  if (editedMeanwhile) {
    await rm(manifest, { force: true });
  } else {
    const record = { format: FORMAT, entry: path.relative(spec.root, spec.entry), inputs };
    await writeFile(`${manifest}.${process.pid}.tmp`, `${JSON.stringify(record)}\n`);
    await rename(`${manifest}.${process.pid}.tmp`, manifest);
  }
  return Date.now() - startedAt;
}

/**
 * The cached bundle of `spec.entry`, rebuilt first if stale: its file URL and how it came to be.
 * @param {BundleSpec} spec
 * @returns {Promise<{ url: string, state: 'reused' | 'built', buildMs?: number, reason?: string }>}
 */
export async function cachedBundle(spec) {
  const reason = await staleReason(spec);
  const url = pathToFileURL(bundlePaths(spec.dir).bundle).href;
  if (reason === undefined) return { url, state: 'reused' };
  const buildMs = await buildBundle(spec);
  return { url, state: 'built', buildMs, reason };
}
