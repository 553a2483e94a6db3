/**
 * What the `rocketmq_lambda_build_info` series says: this package's version (from its package.json, two
 * levels up from src/util as from dist/util) and the Node.js version running it.
 */
import { readFileSync } from 'node:fs';

/**
 * The versions of the running process.
 */
export interface BuildInfo {
  /** The rocketmq-lambda package version, `unknown` when its package.json cannot be read. */
  readonly version: string;
  /** `process.version` without its `v` (`20.11.1`). */
  readonly nodeVersion: string;
}

let cached: BuildInfo | undefined;

/**
 * The versions of the running process, read once.
 */
export function buildInfo(): BuildInfo {
  cached ??= { version: readPackageVersion(), nodeVersion: process.version.replace(/^v/, '') };
  return cached;
}

function readPackageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' && manifest.version !== '' ? manifest.version : 'unknown';
  } catch {
    // A metric is no reason to fail a start: the series says `unknown` instead.
    return 'unknown';
  }
}
