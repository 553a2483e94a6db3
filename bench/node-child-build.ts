/**
 * Compiles our consumer's bench child (consumer-child.ts, noop-handler.ts and the src/ modules they
 * import) to plain JavaScript with the repo's TypeScript, as `npm run build` would, so that the child
 * runs under bare `node`: a TypeScript loader such as tsx would add ~45 MiB of resident memory (its
 * loader thread) that users of the built package never carry. The output goes under
 * node_modules/.cache so that the compiled files resolve the repo's dependencies.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, tailLines } from '../src/local-broker/run-command.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const CACHE_NAME = 'rocketmq-lambda-bench';
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const BUILD_TIMEOUT_MS = 5 * 60_000;

/**
 * Where the compiled child lives.
 *
 * @example
 * ```ts
 * const { childScript } = await buildNodeChild();
 * spawn(process.execPath, [childScript, JSON.stringify(spec)]);
 * ```
 */
export interface NodeChildBuild {
  /** consumer-child.js; noop-handler.js sits next to it. */
  readonly childScript: string;
  /** The compiled bench/ directory (the other `entries` compile into it). */
  readonly benchDir: string;
}

/**
 * Compiles the child afresh (a few seconds) and returns its path. Throws with tsc's output when the
 * sources do not compile. `options.entries`: more bench/ files to compile (the scale bench's child);
 * `options.cacheName`: the output directory under node_modules/.cache, so that a bench of another kind
 * running meanwhile keeps its own.
 *
 * @example
 * ```ts
 * const { childScript } = await buildNodeChild();
 * ```
 */
export async function buildNodeChild(
  options: { entries?: readonly string[]; cacheName?: string } = {},
): Promise<NodeChildBuild> {
  const outDir = join(REPO, 'node_modules', '.cache', options.cacheName ?? CACHE_NAME);
  await rm(outDir, { recursive: true, force: true });
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
      files: [
        join(REPO, 'bench', 'consumer-child.ts'),
        join(REPO, 'bench', 'noop-handler.ts'),
        ...(options.entries ?? []).map((entry) => join(REPO, 'bench', entry)),
      ],
      include: [join(REPO, 'src', 'types')],
    }),
  );
  // Node stops looking for the package scope at node_modules: mark the output as ES modules here.
  await writeFile(join(outDir, 'package.json'), '{ "type": "module" }\n');
  const result = await runCommand(process.execPath, [TSC, '-p', tsconfig], { timeoutMs: BUILD_TIMEOUT_MS });
  if (result.exitCode !== 0) {
    throw new Error(
      `compiling the bench child failed (tsc exit ${String(result.exitCode)}):\n${tailLines(`${result.stdout}${result.stderr}`, 40)}`,
    );
  }
  return { childScript: join(outDir, 'bench', 'consumer-child.js'), benchDir: join(outDir, 'bench') };
}
