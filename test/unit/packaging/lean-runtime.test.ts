/**
 * The runtime package stays lean: the dev loop's tools (tsx and the esbuild it brings, dynalite and its
 * native LevelDB classic-level) are optional peer dependencies, never production ones, and src/ loads them
 * only through importOptional (src/util/optional-module.ts), which turns a missing one into one clear
 * error. The local broker launcher (a JVM process manager) and the dev loop's loaders are reached by
 * static imports only from the dev paths, never from the library's entries or the other commands.
 * test/integration/image measures what the image installs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DEV_LOOP_PACKAGES } from '../../../src/util/optional-module.js';

const REPO_ROOT = path.join(import.meta.dirname, '../../..');
const SRC = path.join(REPO_ROOT, 'src');
/** What a user who only runs the poller must not install: the dev loop's packages and theirs. */
const DEV_LOOP_TOOLS = ['tsx', 'esbuild', 'dynalite', 'classic-level'];
/** A specifier naming one of them (`tsx/esm/api`, `@esbuild/linux-x64`). */
const DEV_LOOP_SPECIFIER = /^(?:tsx|esbuild|@esbuild\/[^/]+|dynalite|classic-level)(?:\/|$)/;
/** Code only the dev loop runs, statically: the JVM launcher and the loaders of optional packages. */
const DEV_LOOP_MODULE = /^(local-broker\/.*|dev\/embedded-dynamodb\.ts|dev\/typescript-loader\.ts)$/;
/** Where a static import of DEV_LOOP_MODULE may come from: the local session and its two commands. */
const DEV_PATH = /^(dev\/.*|local-broker\/.*|cli\/dev-command\.ts|cli\/demo\.ts)$/;
/** The package's entries (package.json exports and bin). */
const ENTRIES = ['index.ts', 'handler/index.ts', 'serverless/index.ts', 'cli/main.ts'];
/** The one module allowed to name the dev loop's packages as plain strings (its DEV_LOOP_PACKAGES). */
const HELPER = 'util/optional-module.ts';

interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

/** One module specifier in a source file and how it is used. */
interface Reference {
  readonly file: string;
  readonly specifier: string;
  /** `static`: import/export ... from (type-only ones left out); `load`: import() or require(). */
  readonly kind: 'static' | 'load' | 'importOptional' | 'resolve' | 'string';
}

/** The `.ts` files under `dir` (declarations excluded), relative to SRC, sorted. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(file);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')
        ? [path.relative(SRC, file).split(path.sep).join('/')]
        : [];
    })
    .sort();
}

/** Every string literal of `file` that is a module specifier or could be one, with its use. */
function references(file: string, text: string): Reference[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Reference[] = [];
  const claimed = new Set<ts.Node>();
  const add = (node: ts.StringLiteralLike, kind: Reference['kind']): void => {
    claimed.add(node);
    found.push({ file, specifier: node.text, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.importClause?.isTypeOnly === true ||
        (node.importClause?.name === undefined &&
          node.importClause?.namedBindings !== undefined &&
          ts.isNamedImports(node.importClause.namedBindings) &&
          node.importClause.namedBindings.elements.length > 0 &&
          node.importClause.namedBindings.elements.every((element) => element.isTypeOnly));
      if (typeOnly) claimed.add(node.moduleSpecifier);
      else add(node.moduleSpecifier, 'static');
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (node.isTypeOnly) claimed.add(node.moduleSpecifier);
      else add(node.moduleSpecifier, 'static');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      claimed.add(node.argument.literal);
    } else if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : callee.kind === ts.SyntaxKind.ImportKeyword
            ? 'import'
            : '';
      if (name === 'import' || name === 'require') add(node.arguments[0], 'load');
      else if (name === 'importOptional') add(node.arguments[0], 'importOptional');
      // Resolving a path loads nothing in this process (e.g. a file written for another one to require).
      else if (name === 'resolve') add(node.arguments[0], 'resolve');
    } else if (ts.isStringLiteralLike(node) && !claimed.has(node)) {
      found.push({ file, specifier: node.text, kind: 'string' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;
const files = sourceFiles(SRC);
const referencesByFile = new Map(
  files.map((file) => [file, references(file, readFileSync(path.join(SRC, file), 'utf8'))]),
);

/** The files `file` imports statically (what loading it loads), relative to SRC. */
function staticImports(file: string): string[] {
  return (referencesByFile.get(file) ?? [])
    .filter((reference) => reference.kind === 'static' && reference.specifier.startsWith('.'))
    .map((reference) =>
      path.posix
        .normalize(path.posix.join(path.posix.dirname(file), reference.specifier))
        .replace(/\.js$/, '.ts'),
    );
}

/** The dev-loop modules loading `file` loads, with the chain that reaches the first one. */
function reachedDevLoopModules(file: string): string[] {
  const chains: string[] = [];
  const seen = new Set<string>([file]);
  const queue: string[][] = [[file]];
  for (let chain = queue.shift(); chain !== undefined; chain = queue.shift()) {
    for (const next of staticImports(chain.at(-1) ?? '')) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (DEV_LOOP_MODULE.test(next)) chains.push([...chain, next].join(' -> '));
      else queue.push([...chain, next]);
    }
  }
  return chains;
}

describe('package.json', () => {
  it('has none of the dev loop tools in dependencies', () => {
    expect(Object.keys(manifest.dependencies).filter((name) => DEV_LOOP_SPECIFIER.test(name))).toEqual([]);
  });

  it('declares what dev loads as optional peers (a caret range of the devDependency it is tested with)', () => {
    for (const name of DEV_LOOP_PACKAGES.packages) {
      const tested = manifest.devDependencies[name];
      expect(tested, `${name} in devDependencies`).toMatch(/^\d+\.\d+\.\d+$/);
      expect(manifest.peerDependencies[name], `${name} in peerDependencies`).toBe(`^${tested}`);
      expect(manifest.peerDependenciesMeta[name], `${name} in peerDependenciesMeta`).toEqual({
        optional: true,
      });
    }
  });

  it('leaves the dev loop tools out of the production tree of package-lock.json (what --omit=dev installs)', () => {
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const installed = Object.entries(lock.packages).flatMap(([key, entry]) => {
      const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
      return key.includes('node_modules/') && DEV_LOOP_SPECIFIER.test(name) ? [{ key, entry }] : [];
    });
    expect(installed.map(({ key }) => key)).toEqual(
      expect.arrayContaining(DEV_LOOP_TOOLS.map((name) => `node_modules/${name}`)),
    );
    expect(installed.filter(({ entry }) => entry.dev !== true).map(({ key }) => key)).toEqual([]);
  });
});

describe('src/', () => {
  it('loads the dev loop tools only through importOptional, and names them nowhere else', () => {
    const named = [...referencesByFile.values()]
      .flat()
      .filter((reference) => DEV_LOOP_SPECIFIER.test(reference.specifier));
    const outside = named.filter(
      (reference) =>
        reference.kind !== 'importOptional' &&
        reference.kind !== 'resolve' &&
        !(reference.kind === 'string' && reference.file === HELPER),
    );
    expect(outside.map(({ file, specifier, kind }) => `${file}: ${kind} '${specifier}'`)).toEqual([]);
    // The two loads dev needs are there (a rename of the helper would otherwise pass the check above).
    expect(
      named
        .filter((reference) => reference.kind === 'importOptional')
        .map((reference) => reference.specifier),
    ).toEqual(expect.arrayContaining(['tsx/esm/api', 'dynalite']));
  });

  it("reaches the JVM launcher and the optional packages' loaders statically from the dev paths only", () => {
    const reachedFrom = files
      .filter((file) => !DEV_PATH.test(file))
      .flatMap((file) => reachedDevLoopModules(file));
    expect(reachedFrom).toEqual([]);
    for (const entry of ENTRIES) expect(files, entry).toContain(entry);
  });

  it('finds the chains it guards against (the reader follows static imports, not dynamic ones)', () => {
    expect(reachedDevLoopModules('cli/dev-command.ts').length).toBeGreaterThan(0);
    expect(staticImports('cli/main.ts').filter((file) => file.startsWith('cli/dev'))).toEqual([]);
  });
});
