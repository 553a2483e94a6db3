/**
 * The two packages this repository publishes, as manifests: `rocketmq-lambda` (poller, plugin, `dev`;
 * its `dependencies` must be exactly what its code imports at run time, since the container image
 * installs it with --omit=dev) and `rocketmq-lambda-handler` (the kit; zod only, at the same version).
 * test/integration/packaging packs both and checks the tarballs and a packaged service.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  HANDLER_PACKAGE_DIR,
  handlerManifest,
  type PackageManifest,
  REPO_ROOT,
} from '../../../infra/npm/handler/handler-package.js';

function readJson(file: string): PackageManifest {
  return JSON.parse(readFileSync(file, 'utf8')) as PackageManifest;
}

const root = readJson(path.join(REPO_ROOT, 'package.json'));
const template = JSON.parse(readFileSync(path.join(HANDLER_PACKAGE_DIR, 'package.json'), 'utf8')) as Record<
  string,
  unknown
>;

/** The TypeScript files under `dir` (declarations excluded), recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** `zod` of `zod`, `lz4js` of `lz4js/xxh32.js`, `@aws-sdk/client-sqs` of itself. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/**
 * The packages a file loads at run time: every static import or re-export except `import type` /
 * `export type` (with verbatimModuleSyntax, `import { type X }` still loads its module), and every
 * `import('...')` of a literal.
 */
function runtimeImports(source: string): string[] {
  const statics = [...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^;'"]*?\sfrom\s+)?'([^']+)'/gm)];
  const dynamics = [...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)];
  return [...statics, ...dynamics]
    .map((match) => match[1] ?? '')
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
    .map(packageOf);
}

describe('rocketmq-lambda-handler (the kit package)', () => {
  const kit = handlerManifest(root, template);

  it('is released with rocketmq-lambda: same version, engines, license', () => {
    expect(kit).toMatchObject({
      name: 'rocketmq-lambda-handler',
      version: root.version,
      engines: root.engines,
      license: root.license,
      type: 'module',
    });
  });

  it('depends on zod only, as a range from the version the repository pins', () => {
    expect(kit.dependencies).toEqual({ zod: `^${root.dependencies?.zod}` });
  });

  it('has the same optional middy peer as rocketmq-lambda', () => {
    // rocketmq-lambda's other optional peers are the dev loop's (tsx, dynalite): none of the kit's.
    const middy = '@middy/core';
    expect(kit.peerDependencies).toEqual({ [middy]: root.peerDependencies?.[middy] });
    expect(kit.peerDependenciesMeta).toEqual({
      [middy]: (root.peerDependenciesMeta as Record<string, unknown> | undefined)?.[middy],
    });
  });

  it('exports the compiled kit (import and require) with its types, and publishes dist/ only', () => {
    expect(kit.exports).toEqual({
      '.': { types: './dist/handler/index.d.ts', default: './dist/handler/index.js' },
      './package.json': './package.json',
    });
    expect(kit.files).toEqual(['dist']);
  });

  it('refuses a root manifest without zod (the kit would be built against nothing)', () => {
    const { dependencies: _ignored, ...withoutDependencies } = root;
    expect(() => handlerManifest(withoutDependencies, template)).toThrow(/no zod dependency/);
  });
});

describe('rocketmq-lambda', () => {
  it('builds dist/ when packed and ships no kit package build of its own', () => {
    expect(root.scripts).toMatchObject({ prepack: expect.stringContaining('npm run build') });
    expect(root.files).toEqual(expect.arrayContaining(['dist', '!infra/npm']));
  });

  it('carries the Apache License 2.0', () => {
    const license = readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8');
    expect(root.license).toBe('Apache-2.0');
    expect(
      license
        .split('\n')
        .slice(0, 2)
        .map((line) => line.trim()),
    ).toEqual(['Apache License', 'Version 2.0, January 2004']);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect(license.trimEnd().endsWith('limitations under the License.')).toBe(true);
  });

  it('depends on exactly the packages its code loads at run time (the rest are devDependencies)', () => {
    const loaded = new Set(
      sourceFiles(path.join(REPO_ROOT, 'src')).flatMap((file) => runtimeImports(readFileSync(file, 'utf8'))),
    );
    // `dev` loads tsx (and dynalite) through importOptional: optional peers, never dependencies.
    const typescriptLoader = readFileSync(path.join(REPO_ROOT, 'src/dev/typescript-loader.ts'), 'utf8');
    if (typescriptLoader.includes("'tsx/esm/api'")) loaded.add('tsx');
    // The zstd worker (Node 20) requires fzstd by the path resolved here.
    const zstd = readFileSync(path.join(REPO_ROOT, 'src/protocol/zstd.ts'), 'utf8');
    if (zstd.includes(".resolve('fzstd')")) loaded.add('fzstd');
    const optionalPeers = Object.keys(root.peerDependenciesMeta ?? {});
    expect([...loaded].filter((name) => !optionalPeers.includes(name)).sort()).toEqual(
      Object.keys(root.dependencies ?? {}).sort(),
    );
  });
});
