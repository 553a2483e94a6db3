/**
 * Packages only the dev loop loads (tsx for TypeScript handlers, dynalite for the embedded DynamoDB) are
 * optional peer dependencies, so `npm install rocketmq-lambda`, the poller image and a function zip that
 * depends on the package carry neither (nor esbuild and the native LevelDB they bring). Whoever needs one
 * loads it here: a missing package turns into one error naming the command that needs it and the one
 * `npm install` that brings every package of that command, at the ranges package.json declares.
 */
import { readFileSync } from 'node:fs';
import { RocketMQError } from '../errors.js';

/** The packages one command needs beyond the package's dependencies; named together in one error. */
export interface OptionalPackages {
  /** The command as the user runs it, e.g. `rocketmq-lambda dev`. */
  readonly neededBy: string;
  /** Every optional package that command may load, so one install fixes the next missing one too. */
  readonly packages: readonly string[];
}

/** What `rocketmq-lambda dev` (and `npm run demo`, which runs it) loads on demand. */
export const DEV_LOOP_PACKAGES: OptionalPackages = {
  neededBy: 'rocketmq-lambda dev',
  packages: ['tsx', 'dynalite'],
};

/** An optional package that is not installed where rocketmq-lambda resolves its imports. */
export class OptionalModuleMissingError extends RocketMQError {
  /** The package that is missing (`tsx` for `tsx/esm/api`). */
  readonly packageName: string;

  constructor(packageName: string, need: OptionalPackages, cause: unknown) {
    const ranges = declaredRanges();
    const specs = need.packages.map((name) => {
      const range = ranges[name];
      return range === undefined ? name : `${name}@${range}`;
    });
    const what =
      need.packages.length === 1
        ? 'an optional peer dependency of rocketmq-lambda that is not installed with it'
        : 'optional peer dependencies of rocketmq-lambda that are not installed with it';
    super(
      `${need.neededBy} needs ${listed(need.packages)}, ${what} (${packageName} is missing): ` +
        `npm install --save-dev ${specs.join(' ')}`,
      { cause, permanent: true },
    );
    this.packageName = packageName;
  }
}

/**
 * `import(specifier)`, with "that package is not installed" turned into {@link OptionalModuleMissingError}.
 * Anything else (the package's own code throwing, or a package it imports being missing) is rethrown as
 * it is: a broken install must not read as a missing one. `load` resolves from another place in tests.
 */
export async function importOptional<T>(
  specifier: string,
  need: OptionalPackages,
  load: (specifier: string) => Promise<unknown> = (name) => import(name),
): Promise<T> {
  const packageName = packageOf(specifier);
  if (!need.packages.includes(packageName)) {
    throw new RocketMQError(`${specifier} is not one of the optional packages of ${need.neededBy}`);
  }
  try {
    return (await load(specifier)) as T;
  } catch (error) {
    const missing = missingPackage(error);
    // Node names the package; vitest's module runner (this repository's tests) the whole specifier.
    if (missing === packageName || missing === specifier) {
      throw new OptionalModuleMissingError(packageName, need, error);
    }
    throw error;
  }
}

/**
 * What an ERR_MODULE_NOT_FOUND says it could not find as a package ("Cannot find package 'x' imported
 * from ..."), or undefined for any other error, a missing file inside an installed package included.
 */
function missingPackage(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') {
    return undefined;
  }
  return /^Cannot find package '([^']+)' imported from /.exec(error.message)?.[1];
}

/** `tsx` of `tsx/esm/api`, `@scope/name` of `@scope/name/sub`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The peer dependency ranges of this package's package.json (two levels up from src/util and from
 * dist/util alike); empty when it cannot be read, and the error then names the packages alone.
 */
function declaredRanges(): Readonly<Record<string, string>> {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      peerDependencies?: Record<string, string>;
    };
    return manifest.peerDependencies ?? {};
  } catch {
    return {};
  }
}
