/**
 * importOptional against real module resolution: packages written into a temp directory's node_modules
 * and imported through a loader module placed there (so resolution starts in that directory); the
 * default loader, which resolves from src/util like the built package does; and once in a plain Node
 * process (vitest's module runner words a missing subpath differently from Node).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import {
  DEV_LOOP_PACKAGES,
  importOptional,
  OptionalModuleMissingError,
  type OptionalPackages,
} from '../../../src/util/optional-module.js';

const REPO_ROOT = path.join(import.meta.dirname, '../../..');
const NEED: OptionalPackages = {
  neededBy: 'rocketmq-lambda dev',
  packages: ['present', 'throws-inside', 'needs-missing', 'absent', '@scope/absent'],
};

let root: string;
let load: (specifier: string) => Promise<unknown>;

/** Writes `node_modules/<name>` under the temp root: an ES module package with `index.js`. */
function writePackage(name: string, index: string): void {
  const dir = path.join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', exports: './index.js' }),
  );
  writeFileSync(path.join(dir, 'index.js'), index);
}

/** What importOptional threw, or a failure when it resolved. */
async function rejection(specifier: string, need = NEED): Promise<unknown> {
  try {
    await importOptional(specifier, need, load);
  } catch (error) {
    return error;
  }
  throw new Error(`importOptional('${specifier}') resolved`);
}

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'optional-module-'));
  writePackage('present', 'export const answer = 42;\n');
  writePackage('throws-inside', "throw new Error('boom while loading');\n");
  // An installed package whose own dependency is missing: a broken install, not a missing package.
  writePackage('needs-missing', "import 'absent';\nexport const never = true;\n");
  writeFileSync(path.join(root, 'load.mjs'), 'export const load = (specifier) => import(specifier);\n');
  ({ load } = (await import(pathToFileURL(path.join(root, 'load.mjs')).href)) as {
    load: (specifier: string) => Promise<unknown>;
  });
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('importOptional', () => {
  it('returns the module of an installed package', async () => {
    expect(await importOptional<{ answer: number }>('present', NEED, load)).toMatchObject({ answer: 42 });
  });

  it('turns a missing package into one error naming the command, every package of it and the install', async () => {
    const error = await rejection('absent');
    expect(error).toBeInstanceOf(OptionalModuleMissingError);
    expect(error).toBeInstanceOf(RocketMQError);
    const missing = error as OptionalModuleMissingError;
    expect(missing.packageName).toBe('absent');
    expect(missing.message).toBe(
      'rocketmq-lambda dev needs present, throws-inside, needs-missing, absent and @scope/absent, optional ' +
        'peer dependencies of rocketmq-lambda that are not installed with it (absent is missing): ' +
        'npm install --save-dev present throws-inside needs-missing absent @scope/absent',
    );
    expect((missing.cause as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('names the package of a subpath and of a scoped specifier', async () => {
    expect(await rejection('absent/esm/api')).toMatchObject({ packageName: 'absent' });
    expect(await rejection('@scope/absent/sub')).toMatchObject({ packageName: '@scope/absent' });
  });

  it('rethrows an error thrown inside the module as it is', async () => {
    const error = await rejection('throws-inside');
    expect(error).not.toBeInstanceOf(OptionalModuleMissingError);
    expect((error as Error).message).toBe('boom while loading');
  });

  it('rethrows a missing dependency of an installed package as it is (a broken install, not a missing one)', async () => {
    const error = await rejection('needs-missing');
    expect(error).not.toBeInstanceOf(OptionalModuleMissingError);
    expect((error as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
    expect((error as Error).message).toMatch(/^Cannot find package 'absent' imported from .*needs-missing/);
  });

  it('refuses a specifier the command does not declare (its install line would not fix it)', async () => {
    const error = await rejection('present', { neededBy: 'rocketmq-lambda dev', packages: ['tsx'] });
    expect(error).toBeInstanceOf(RocketMQError);
    expect((error as Error).message).toBe(
      'present is not one of the optional packages of rocketmq-lambda dev',
    );
  });
});

describe('DEV_LOOP_PACKAGES', () => {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };

  it('resolves from src/util by default, and a missing one names the ranges package.json declares', async () => {
    const need = {
      ...DEV_LOOP_PACKAGES,
      packages: [...DEV_LOOP_PACKAGES.packages, 'rocketmq-lambda-absent'],
    };
    const error = await importOptional('rocketmq-lambda-absent', need).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OptionalModuleMissingError);
    const specs = DEV_LOOP_PACKAGES.packages.map((name) => `${name}@${manifest.peerDependencies[name]}`);
    expect((error as Error).message).toContain(
      `(rocketmq-lambda-absent is missing): npm install --save-dev ${specs.join(' ')} rocketmq-lambda-absent`,
    );
    expect((error as Error).message).toMatch(
      /^rocketmq-lambda dev needs tsx, dynalite and rocketmq-lambda-absent,/,
    );
  });

  it('loads the dev loop packages this repository installs', async () => {
    const tsx = await importOptional<{ register?: unknown }>('tsx/esm/api', DEV_LOOP_PACKAGES);
    expect(typeof tsx.register).toBe('function');
    const dynalite = await importOptional<{ default?: unknown }>('dynalite', DEV_LOOP_PACKAGES);
    expect(typeof dynalite.default).toBe('function');
  });
});

describe('importOptional in a plain Node process', () => {
  it('turns a missing subpath import (like tsx/esm/api) into the error, as the built CLI meets it', async () => {
    const script = path.join(root, 'child.mjs');
    writeFileSync(
      script,
      [
        `import { importOptional } from ${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'src/util/optional-module.ts')).href)};`,
        "const need = { neededBy: 'rocketmq-lambda dev', packages: ['rocketmq-lambda-absent'] };",
        "const error = await importOptional('rocketmq-lambda-absent/esm/api', need).catch((caught) => caught);",
        'console.log(JSON.stringify({ name: error.name, packageName: error.packageName, message: error.message }));',
        '',
      ].join('\n'),
    );
    // tsx only compiles the TypeScript source; resolving a package is Node's own.
    const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', tsxLoader, script], { timeout: 30_000 }, (error, out, err) =>
        error === null ? resolve(out) : reject(new Error(`${script} failed: ${err}`, { cause: error })),
      );
    });
    expect(JSON.parse(stdout)).toEqual({
      name: 'OptionalModuleMissingError',
      packageName: 'rocketmq-lambda-absent',
      message:
        'rocketmq-lambda dev needs rocketmq-lambda-absent, an optional peer dependency of rocketmq-lambda that ' +
        'is not installed with it (rocketmq-lambda-absent is missing): npm install --save-dev rocketmq-lambda-absent',
    });
  });
});
