/**
 * Compiles every node child of the bench ({@link BENCH_CHILD_ENTRIES}: our consumer, the raw PULL and
 * decode children, the scenarios' and the peers' children, the scale child, with the src/ modules they
 * import) to plain JavaScript with the repo's TypeScript, as `npm run build` would, so that the children
 * run under bare `node`: a TypeScript loader such as tsx would add ~45 MiB of resident memory (its
 * loader thread) that users of the built package never carry. The output goes under node_modules/.cache
 * so that the compiled files resolve the repo's dependencies.
 *
 * One compile serves the whole process (every part awaits the same build), and a build of the same
 * sources is reused by later runs: tsc costs 5-20 s of CPU on the 2-core machines of this project, which
 * a quick run cannot spare. The build's directory is named after a hash of every input (the sources
 * under src/ and bench/, tsconfig.json, the TypeScript version), so an edit compiles afresh, and a run
 * that compiles meanwhile in another worktree sharing node_modules never replaces files in use.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, tailLines } from '../src/local-broker/run-command.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const CACHE_DIR = join(REPO, 'node_modules', '.cache');
/** A build is `<CACHE_DIR>/<BUILD_PREFIX><hash>`; the profiles' frame names rely on this one level. */
const BUILD_PREFIX = 'rocketmq-lambda-bench-children-';
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
// Generous: under the load of other work on the shared 2-core machines, tsc took over 5 min once (2026-12-06).
const BUILD_TIMEOUT_MS = 15 * 60_000;
const COMPLETE_MARKER = '.complete';
/** Builds not used for this long are removed (each is a few MiB of JavaScript). */
const UNUSED_BUILD_MAX_AGE_MS = 24 * 3600_000;

/**
 * Every bench/ file a child process runs (or loads: the handlers), relative to bench/.
 *
 * @example
 * ```ts
 * BENCH_CHILD_ENTRIES.includes('raw-pull-child.ts'); // => true
 * ```
 */
export const BENCH_CHILD_ENTRIES = [
  'consumer-child.ts',
  'noop-handler.ts',
  'function-worker.ts',
  'raw-pull-child.ts',
  'decode-child.ts',
  'latency-child.ts',
  'latency-handler.ts',
  'drain-child.ts',
  'scale-child.ts',
  'near-limit-child.ts',
  'peers/ali-ons-child.ts',
  'peers/rocketmq-nodejs-child.ts',
] as const;

/**
 * Where the compiled children live.
 *
 * @example
 * ```ts
 * const { benchDir } = await benchChildren();
 * spawn(process.execPath, [join(benchDir, 'consumer-child.js'), JSON.stringify(spec)]);
 * ```
 */
export interface NodeChildBuild {
  /** The compiled bench/ directory: `consumer-child.js`, `peers/ali-ons-child.js`, ... */
  readonly benchDir: string;
  /** True when this process compiled them, false when a build of the same sources was reused. */
  readonly compiled: boolean;
}

let building: Promise<NodeChildBuild> | undefined;

/**
 * The compiled children: compiled on the first call of the process unless a build of the current
 * sources exists; every later call gets the same build. Throws with tsc's output when the sources do
 * not compile.
 *
 * @example
 * ```ts
 * const script = join((await benchChildren()).benchDir, 'drain-child.js');
 * ```
 */
export function benchChildren(): Promise<NodeChildBuild> {
  building ??= buildChildren();
  return building;
}

async function buildChildren(): Promise<NodeChildBuild> {
  const outDir = join(CACHE_DIR, `${BUILD_PREFIX}${await sourcesHash()}`);
  const benchDir = join(outDir, 'bench');
  const marker = join(outDir, COMPLETE_MARKER);
  if (existsSync(marker)) {
    const now = new Date();
    await utimes(marker, now, now);
    return { benchDir, compiled: false };
  }
  const scratch = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  try {
    await compile(scratch);
    await writeFile(join(scratch, COMPLETE_MARKER), new Date().toISOString(), 'utf8');
    try {
      await rename(scratch, outDir);
    } catch (error) {
      // Another run finished the same build first: use its (identical) files.
      if (!existsSync(marker)) throw error;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  await pruneUnusedBuilds(outDir);
  return { benchDir, compiled: true };
}

async function compile(outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const tsconfig = join(outDir, 'tsconfig.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(REPO, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        outDir,
        rootDir: REPO,
        sourceMap: false,
        declaration: false,
        // Emit only: `npm run typecheck` checks these sources; checking here took 15-30 s per bench run.
        noCheck: true,
      },
      files: BENCH_CHILD_ENTRIES.map((entry) => join(REPO, 'bench', entry)),
      include: [join(REPO, 'src', 'types')],
    }),
  );
  // Node stops looking for the package scope at node_modules: mark the output as ES modules here.
  await writeFile(join(outDir, 'package.json'), '{ "type": "module" }\n');
  const result = await runCommand(process.execPath, [TSC, '-p', tsconfig], { timeoutMs: BUILD_TIMEOUT_MS });
  if (result.exitCode !== 0) {
    throw new Error(
      `compiling the bench children failed (tsc exit ${String(result.exitCode)}):\n${tailLines(`${result.stdout}${result.stderr}`, 40)}`,
    );
  }
}

/** A hash of everything the output depends on: every .ts under src/ and bench/, tsconfig.json, tsc's version. */
async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  const typescript = JSON.parse(
    await readFile(join(REPO, 'node_modules', 'typescript', 'package.json'), 'utf8'),
  ) as { version?: unknown };
  hash.update(`typescript ${String(typescript.version)}\0`);
  hash.update(BENCH_CHILD_ENTRIES.join('\0')).update('\0');
  const files = [
    join(REPO, 'tsconfig.json'),
    ...(await tsFilesUnder('src')),
    ...(await tsFilesUnder('bench')),
  ];
  for (const file of files) hash.update(`${relative(REPO, file)}\0`).update(await readFile(file));
  return hash.digest('hex').slice(0, 16);
}

async function tsFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(REPO, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * Removes the other builds unused for a day: the marker's time for a complete one, the directory's for
 * the scratch directory of a run that died while compiling.
 */
async function pruneUnusedBuilds(current: string): Promise<void> {
  const cutoff = Date.now() - UNUSED_BUILD_MAX_AGE_MS;
  for (const entry of await readdir(CACHE_DIR)) {
    const path = join(CACHE_DIR, entry);
    if (!entry.startsWith(BUILD_PREFIX) || path === current) continue;
    const lastUsed = await stat(join(path, COMPLETE_MARKER))
      .catch(() => stat(path))
      .then(
        (info) => info.mtimeMs,
        () => Date.now(),
      );
    if (lastUsed < cutoff) await rm(path, { recursive: true, force: true });
  }
}
