/**
 * The poller image the release publishes, and the one `custom.rocketmq.image` defaults to: the same
 * repository on two registries, tagged with the package's version. The release workflow, the docs and
 * the plugin name the repositories from here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RocketMQError } from '../errors.js';

/**
 * The repositories the release pushes the image to (`<repository>:<version>`): GitHub's container
 * registry, the plugin's default, and Amazon ECR Public, the same image.
 *
 * @example
 * ```ts
 * `${PUBLISHED_IMAGE_REPOSITORIES.ecrPublic}:0.1.0`; // => 'public.ecr.aws/rocketmq-lambda/rocketmq-lambda:0.1.0'
 * ```
 */
export const PUBLISHED_IMAGE_REPOSITORIES = {
  ghcr: 'ghcr.io/rocketmq-lambda/rocketmq-lambda',
  ecrPublic: 'public.ecr.aws/rocketmq-lambda/rocketmq-lambda',
} as const;

/** The npm package whose version tags the image. */
const PACKAGE_NAME = 'rocketmq-lambda';

let cachedVersion: string | undefined;

/**
 * The version of the installed rocketmq-lambda package, read from its package.json (the nearest one
 * named `rocketmq-lambda` above this module, in the source tree as in `dist/`).
 *
 * @example
 * ```ts
 * packageVersion(); // => '0.1.0'
 * ```
 */
export function packageVersion(): string {
  cachedVersion ??= readPackageVersion(path.dirname(fileURLToPath(import.meta.url)));
  return cachedVersion;
}

/**
 * The published image of this package's version on `registry` (GHCR unless told).
 *
 * @example
 * ```ts
 * publishedImage(); // => 'ghcr.io/rocketmq-lambda/rocketmq-lambda:0.1.0'
 * publishedImage('ecrPublic'); // => 'public.ecr.aws/rocketmq-lambda/rocketmq-lambda:0.1.0'
 * ```
 */
export function publishedImage(registry: keyof typeof PUBLISHED_IMAGE_REPOSITORIES = 'ghcr'): string {
  return `${PUBLISHED_IMAGE_REPOSITORIES[registry]}:${packageVersion()}`;
}

/**
 * The directory of the installed rocketmq-lambda package (where its package.json is): the build
 * context of `image: { build: true }`.
 */
export function packageRoot(): string {
  return findPackage(path.dirname(fileURLToPath(import.meta.url))).dir;
}

function readPackageVersion(from: string): string {
  const { manifest, file } = findPackage(from);
  if (typeof manifest.version !== 'string' || manifest.version === '') {
    throw new RocketMQError(`${file} has no version`, { permanent: true });
  }
  return manifest.version;
}

function findPackage(from: string): { dir: string; file: string; manifest: { version?: unknown } } {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    const manifest = readManifest(file);
    if (manifest?.name === PACKAGE_NAME) return { dir, file, manifest };
    if (path.dirname(dir) === dir) {
      throw new RocketMQError(`no package.json named ${PACKAGE_NAME} above ${from}`, { permanent: true });
    }
  }
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // Directories between the module and the package root have no package.json; keep walking up.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as { name?: unknown; version?: unknown };
}
