/**
 * The `rocketmq-lambda-handler` package: the handler kit (src/handler) published on its own, so that a
 * function zipped without a bundler carries the kit and zod only, while `rocketmq-lambda` (poller,
 * plugin, `dev`, with the AWS SDK, dynalite, tsx, pino) stays a devDependency of the service.
 *
 * Its manifest is the package.json beside this file, completed from the repository's package.json
 * (version, engines, the zod range), so the two packages are always released at the same version and
 * never disagree on zod. The kit is compiled by the tsconfig.json beside this file: src/handler and the one
 * dependency-free shared module it imports (src/util/trace-context.ts).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This directory: the kit package's manifest template, README and tsconfig. */
export const HANDLER_PACKAGE_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The repository root (its package.json is `rocketmq-lambda`'s). */
export const REPO_ROOT = path.resolve(HANDLER_PACKAGE_DIR, '../../..');

/** The files of the kit package besides package.json and dist/. */
const README_FILE = path.join(HANDLER_PACKAGE_DIR, 'README.md');
const LICENSE_FILE = path.join(REPO_ROOT, 'LICENSE');
/** Compiles src/handler and src/util/trace-context.ts (the build passes --outDir). */
const TSCONFIG_FILE = path.join(HANDLER_PACKAGE_DIR, 'tsconfig.json');
/** tsc and npm pack each finish in seconds; two minutes means something hangs. */
const CHILD_TIMEOUT_MS = 120_000;

/**
 * The fields of a package.json this build reads.
 *
 * @example
 * ```ts
 * const root: PackageManifest = { name: 'rocketmq-lambda', version: '0.1.0', dependencies: { zod: '4.6.7' } };
 * ```
 */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly engines?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

/**
 * The kit's manifest: the template with `rocketmq-lambda`'s version, engines and repository, and zod as its only
 * dependency, as a caret range from the version the repository pins (so a service's own zod 4 is shared
 * rather than installed twice).
 *
 * @example
 * ```ts
 * const template = JSON.parse(await readFile(path.join(HANDLER_PACKAGE_DIR, 'package.json'), 'utf8'));
 * const manifest = handlerManifest(await readManifest('package.json'), template);
 * manifest.version; // => the root package's version
 * ```
 */
export function handlerManifest(
  root: PackageManifest,
  template: Readonly<Record<string, unknown>>,
): PackageManifest {
  const zod = root.dependencies?.zod;
  if (zod === undefined) throw new Error(`${root.name}'s package.json has no zod dependency`);
  const node = root.engines?.node;
  if (node === undefined) throw new Error(`${root.name}'s package.json has no engines.node`);
  const { name, description, license, ...rest } = template;
  if (typeof name !== 'string') throw new Error('the kit package.json template has no name');
  return {
    name,
    version: root.version,
    description,
    license,
    ...rest,
    engines: { node },
    dependencies: { zod: /^\d/.test(zod) ? `^${zod}` : zod },
    // The same repository (npm provenance checks it against the one that built the package).
    ...(root.repository === undefined ? {} : { repository: root.repository }),
  };
}

/**
 * Reads and parses a package.json.
 *
 * @example
 * ```ts
 * const { version } = await readManifest(path.join(REPO_ROOT, 'package.json'));
 * ```
 */
export async function readManifest(file: string): Promise<PackageManifest> {
  const manifest = JSON.parse(await readFile(file, 'utf8')) as PackageManifest;
  if (typeof manifest.name !== 'string') throw new Error(`${file}: no name`);
  return manifest;
}

/**
 * Writes the kit package into `outDir` (which must not exist or be empty): package.json, README.md,
 * LICENSE and dist/ (the compiled kit with its declarations). `npm pack` or `npm publish` of that
 * directory gives the package.
 *
 * @example
 * ```ts
 * await buildHandlerPackage('/tmp/rocketmq-lambda-handler');
 * ```
 */
export async function buildHandlerPackage(outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const existing = await readdir(outDir);
  if (existing.length > 0) throw new Error(`${outDir} is not empty (${existing.join(', ')})`);
  const root = await readManifest(path.join(REPO_ROOT, 'package.json'));
  // The template has no version (nor engines, dependencies): those come from the root.
  const templateText = await readFile(path.join(HANDLER_PACKAGE_DIR, 'package.json'), 'utf8');
  const template = JSON.parse(templateText) as Record<string, unknown>;
  const manifest = handlerManifest(root, template);
  await writeFile(path.join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await copyFile(README_FILE, path.join(outDir, 'README.md'));
  await copyFile(LICENSE_FILE, path.join(outDir, 'LICENSE'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', TSCONFIG_FILE, '--outDir', path.join(outDir, 'dist')], outDir);
}

/**
 * Builds the kit package in a temporary directory and packs it into `destination` (created if missing);
 * resolves with the tarball's path, `<destination>/rocketmq-lambda-handler-<version>.tgz`.
 *
 * @example
 * ```ts
 * const tarball = await packHandlerPackage(process.cwd());
 * // npm publish <tarball>
 * ```
 */
export async function packHandlerPackage(destination: string): Promise<string> {
  const staging = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-handler-'));
  try {
    await buildHandlerPackage(staging);
    await mkdir(destination, { recursive: true });
    const output = await run(
      'npm',
      ['pack', '--json', '--pack-destination', path.resolve(destination)],
      staging,
    );
    const [packed] = JSON.parse(output) as { filename: string }[];
    if (packed === undefined) throw new Error(`npm pack printed no tarball: ${output}`);
    return path.resolve(destination, packed.filename);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Runs a command to completion; resolves with its stdout, rejects with its output on failure. */
function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: CHILD_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`, { cause: error }));
    });
  });
}
