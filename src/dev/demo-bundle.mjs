// @ts-check
/**
 * The demo's bundle: `npm run demo` (src/cli/demo-launch.mjs) runs src/cli/demo.ts from ES modules that
 * esbuild bundles from our sources (the entry and a chunk per dynamic import, packages left external),
 * cached in `.rocketmq-lambda/demo/bundle/` and rebuilt when any of its inputs changed (size or
 * modification time) or the checkout moved. Node then loads a few files of ours instead of some 350
 * modules through tsx's loader hooks, which was most of a warm demo's start (README, Local development
 * loop, has the figures).
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

import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The manifest's format; a manifest of another one means "rebuild". */
const FORMAT = 2;
/** Bounds on the manifest read back (our own file, but read from disk): its bytes and its inputs. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
export const MAX_INPUTS = 10_000;
/** The fragment that marks a module URL as rewritten into the bundle. */
export const BUNDLED_FRAGMENT = '#bundled';
/** How long a build the manifest no longer names is kept: a demo that read the old manifest may still load its chunks. */
const OLD_BUILD_GRACE_MS = 10 * 60_000;

/**
 * @typedef {object} BundleInput One file the bundle was built from (or with), as it was then.
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

/**
 * The manifest (the commit point of a build: written last, by rename) and the directory of the builds.
 * @param {string} dir
 */
export function bundlePaths(dir) {
  return { manifest: path.join(dir, 'inputs.json'), builds: path.join(dir, 'builds') };
}

/**
 * The bundle's entry file of build `id` of `spec`.
 * @param {BundleSpec} spec
 * @param {string} id
 */
function entryFile(spec, id) {
  return path.join(
    bundlePaths(spec.dir).builds,
    id,
    `${path.basename(spec.entry, path.extname(spec.entry))}.mjs`,
  );
}

/**
 * Files that shape the bundle besides its sources: the TypeScript settings esbuild reads, this file (the
 * build's options) and esbuild's own version. Absolute; those that do not exist are left out.
 * @param {BundleSpec} spec
 */
function buildInputs(spec) {
  const files = [path.join(spec.root, 'tsconfig.json'), fileURLToPath(import.meta.url)];
  try {
    files.push(createRequire(import.meta.url).resolve('esbuild/package.json'));
  } catch {
    // Not installed: the build says so, and a cached bundle needs no esbuild.
  }
  return files;
}

/**
 * Why the cached bundle cannot be used (none built, an unreadable manifest, another checkout's, an input
 * that changed or is gone), or undefined when it can.
 * @param {BundleSpec} spec
 * @returns {Promise<string | undefined>}
 */
export async function staleReason(spec) {
  const checked = await check(spec);
  return typeof checked === 'string' ? checked : undefined;
}

/**
 * The cached build's id, or why it cannot be used.
 * @param {BundleSpec} spec
 * @returns {Promise<string | { build: string }>}
 */
async function check(spec) {
  const { manifest } = bundlePaths(spec.dir);
  /** @type {unknown} */
  let parsed;
  try {
    const info = await stat(manifest);
    if (info.size > MAX_MANIFEST_BYTES)
      return `${manifest} is ${info.size} bytes, above ${MAX_MANIFEST_BYTES}`;
    parsed = JSON.parse(await readFile(manifest, 'utf8'));
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'ENOENT'
      ? 'no bundle built yet'
      : `${manifest} is unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
  const read = readManifest(parsed, spec);
  if (typeof read === 'string') return `${manifest} ${read}`;
  try {
    await stat(entryFile(spec, read.build));
  } catch {
    return `build ${read.build} is gone`;
  }
  for (const input of read.inputs) {
    try {
      const now = await stat(path.resolve(spec.root, input.file));
      if (now.size !== input.size || now.mtimeMs !== input.mtimeMs) return `${input.file} changed`;
    } catch {
      return `${input.file} is gone`;
    }
  }
  return { build: read.build };
}

/**
 * The build and inputs a parsed manifest names, or what is wrong with it.
 * @param {unknown} parsed
 * @param {BundleSpec} spec
 * @returns {{ build: string, inputs: BundleInput[] } | string}
 */
function readManifest(parsed, spec) {
  if (typeof parsed !== 'object' || parsed === null) return 'is not a JSON object';
  const record = /** @type {Record<string, unknown>} */ (parsed);
  if (record.format !== FORMAT) return `has format ${String(record.format)}, not ${FORMAT}`;
  // Absolute paths are built into the bundle: a moved or copied checkout must not reuse it.
  if (record.root !== spec.root) return `is for the checkout at ${String(record.root)}`;
  if (record.entry !== path.relative(spec.root, spec.entry)) return `is for ${String(record.entry)}`;
  if (typeof record.build !== 'string' || !/^[a-z0-9-]{1,64}$/.test(record.build)) {
    return `names no build: ${JSON.stringify(record.build)}`;
  }
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
  return { build: record.build, inputs: /** @type {BundleInput[]} */ (inputs) };
}

/**
 * Bundles `spec.entry` into a new build directory, then names it in the manifest; resolves with the
 * build's id and milliseconds. Dynamic imports stay chunks of their own, loaded when imported, so the
 * packages they import load then too, as from the sources. Each input's size and modification time are
 * taken before esbuild reads it: an edit during the build shows as a change at the next start.
 * Concurrent builds each write their own directory; the manifest's rename is the one commit point.
 * @param {BundleSpec} spec
 * @returns {Promise<{ id: string, buildMs: number }>}
 */
export async function buildBundle(spec) {
  const startedAt = Date.now();
  const esbuild = await import('esbuild');
  const { manifest, builds } = bundlePaths(spec.dir);
  const id = `${startedAt.toString(36)}-${process.pid}`;
  const outdir = path.join(builds, id);
  /** @type {Map<string, BundleInput>} */
  const inputs = new Map();
  /** @param {string} file */
  const record = async (file) => {
    const info = await stat(file);
    inputs.set(file, { file: path.relative(spec.root, file), size: info.size, mtimeMs: info.mtimeMs });
  };
  for (const file of buildInputs(spec)) await record(file).catch(() => undefined);
  try {
    const result = await esbuild.build({
      entryPoints: [spec.entry],
      outdir,
      outExtension: { '.js': '.mjs' },
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      metafile: true,
      sourcemap: 'linked',
      logLevel: 'silent',
      plugins: [
        /** @type {import('esbuild').Plugin} */ ({
          name: 'source-import-meta-url',
          setup(build) {
            build.onLoad({ filter: /\.ts$/ }, async (args) => {
              await record(args.path);
              const source = await readFile(args.path, 'utf8');
              const url = JSON.stringify(pathToFileURL(args.path).href + BUNDLED_FRAGMENT);
              return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
            });
          },
        }),
      ],
    });
    // Inputs esbuild read itself (none today: every source is TypeScript).
    for (const file of Object.keys(result.metafile.inputs)) {
      if (!inputs.has(path.resolve(file))) await record(path.resolve(file));
    }
  } catch (error) {
    await rm(outdir, { recursive: true, force: true });
    throw error;
  }
  const body = {
    format: FORMAT,
    root: spec.root,
    entry: path.relative(spec.root, spec.entry),
    build: id,
    inputs: [...inputs.values()],
  };
  await writeFile(`${manifest}.${id}.tmp`, `${JSON.stringify(body)}\n`);
  await rename(`${manifest}.${id}.tmp`, manifest);
  await removeOldBuilds(builds, id);
  return { id, buildMs: Date.now() - startedAt };
}

/**
 * Removes the builds other than `keep` that are older than the grace period (best effort).
 * @param {string} builds
 * @param {string} keep
 */
async function removeOldBuilds(builds, keep) {
  const names = await readdir(builds).catch(() => /** @type {string[]} */ ([]));
  for (const name of names) {
    if (name === keep) continue;
    const where = path.join(builds, name);
    const info = await stat(where).catch(() => undefined);
    if (info !== undefined && Date.now() - info.mtimeMs > OLD_BUILD_GRACE_MS) {
      await rm(where, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/**
 * The cached bundle of `spec.entry`, rebuilt first if stale: its entry's file URL and how it came to be.
 * @param {BundleSpec} spec
 * @returns {Promise<{ url: string, state: 'reused' | 'built', buildMs?: number, reason?: string }>}
 */
export async function cachedBundle(spec) {
  const checked = await check(spec);
  if (typeof checked !== 'string')
    return { url: pathToFileURL(entryFile(spec, checked.build)).href, state: 'reused' };
  const reason = checked;
  const { id, buildMs } = await buildBundle(spec);
  return { url: pathToFileURL(entryFile(spec, id)).href, state: 'built', buildMs, reason };
}
