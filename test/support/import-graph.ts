/**
 * The import graph of `src/` and the check of its layering, for the architecture test
 * (test/unit/architecture.test.ts). Imports are read with the TypeScript parser, so every form counts:
 * `import`, `import type`, `export ... from`, dynamic `import()` and `import('...')` types.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of one source file. */
export interface ImportEdge {
  /** The importing file, relative to the source root (`protocol/frame.ts`). */
  readonly from: string;
  /** The imported file relative to the source root (`util/logger.ts`), or the package (`zod`, `node:net`). */
  readonly to: string;
  /** False for a package or a Node built-in. */
  readonly internal: boolean;
}

/**
 * The allowed directions: for each layer (a folder of the source root, or a file at the root such as
 * `errors.ts`), the other layers it may import; a layer always may import itself. `packages`, when
 * given for a layer, closes the list of packages and Node built-ins it may import (a RegExp per entry).
 */
export interface LayerRules {
  readonly imports: Readonly<Record<string, readonly string[]>>;
  readonly packages?: Readonly<Record<string, readonly RegExp[]>>;
}

/** An import that breaks the rules today, kept on purpose: `from` and `to` as in {@link ImportEdge}. */
export interface AllowedException {
  readonly from: string;
  readonly to: string;
  /** Why it is there and what would remove it. */
  readonly why: string;
}

/** What {@link checkLayering} found: both lists empty when the graph follows the rules. */
export interface LayeringReport {
  /** One line per import the rules forbid and no exception allows. */
  readonly violations: string[];
  /** Exceptions no import needs any more (remove them, so they cannot hide a new arrow). */
  readonly staleExceptions: string[];
}

/**
 * The layer of a file: its top folder under the source root, or the file itself at the root.
 *
 * @example
 * ```ts
 * layerOf('consumer/pull/pull-loop.ts'); // 'consumer'
 * layerOf('errors.ts'); // 'errors.ts'
 * ```
 */
export function layerOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash);
}

/**
 * Every import of every `.ts` file under `root`.
 *
 * @example
 * ```ts
 * const edges = readImportGraph(path.join(repo, 'src'));
 * ```
 */
export function readImportGraph(root: string): ImportEdge[] {
  return sourceFiles(root).flatMap((file) => {
    const from = toPosix(path.relative(root, file));
    return moduleSpecifiers(file).map((specifier): ImportEdge => {
      if (!specifier.startsWith('.')) return { from, to: packageOf(specifier), internal: false };
      const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      return { from, to: toPosix(path.relative(root, target)), internal: true };
    });
  });
}

/**
 * Layer to layer: each layer's imported layers, sorted, from `edges` (for printing the graph).
 *
 * @example
 * ```ts
 * layerGraph(edges).get('client'); // ['errors.ts', 'network', 'protocol', 'util']
 * ```
 */
export function layerGraph(edges: readonly ImportEdge[]): Map<string, string[]> {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!edge.internal) continue;
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (from === to) continue;
    const targets = graph.get(from) ?? new Set<string>();
    targets.add(to);
    graph.set(from, targets);
  }
  return new Map(
    [...graph].sort(([a], [b]) => a.localeCompare(b)).map(([from, to]) => [from, [...to].sort()]),
  );
}

/**
 * Checks `edges` against `rules`; an import the rules forbid passes only when `exceptions` names it.
 * A layer the rules do not list may import nothing of another layer, so a new folder must be placed.
 *
 * @example
 * ```ts
 * const report = checkLayering(readImportGraph(src), LAYERS, ALLOWED_EXCEPTIONS);
 * expect(report.violations).toEqual([]);
 * ```
 */
export function checkLayering(
  edges: readonly ImportEdge[],
  rules: LayerRules,
  exceptions: readonly AllowedException[] = [],
): LayeringReport {
  const excepted = new Set(exceptions.map((exception) => `${exception.from} -> ${exception.to}`));
  const used = new Set<string>();
  const violations = new Set<string>();
  for (const edge of edges) {
    const problem = edge.internal ? internalProblem(edge, rules) : packageProblem(edge, rules);
    if (problem === undefined) continue;
    const key = `${edge.from} -> ${edge.to}`;
    if (excepted.has(key)) used.add(key);
    else violations.add(`${key}: ${problem}`);
  }
  return {
    violations: [...violations].sort(),
    staleExceptions: [...excepted].filter((key) => !used.has(key)).sort(),
  };
}

function internalProblem(edge: ImportEdge, rules: LayerRules): string | undefined {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from === to) return undefined;
  const allowed = rules.imports[from];
  if (allowed === undefined) return `${from} is not placed in the layering (add it to the rules)`;
  if (allowed.includes(to)) return undefined;
  return `${from} may import ${allowed.length === 0 ? 'no other layer' : allowed.join(', ')}; not ${to}`;
}

function packageProblem(edge: ImportEdge, rules: LayerRules): string | undefined {
  const allowed = rules.packages?.[layerOf(edge.from)];
  if (allowed === undefined || allowed.some((pattern) => pattern.test(edge.to))) return undefined;
  return `${layerOf(edge.from)} may import no package but ${allowed.map(String).join(', ')}`;
}

/** The `.ts` files under `dir`, recursively, sorted. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    })
    .sort();
}

/** The module specifiers `file` refers to, in every import form. */
function moduleSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      specifiers.push(node.argument.literal.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      specifiers.push(node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** `@aws-sdk/client-lambda/dist` → `@aws-sdk/client-lambda`; `node:fs/promises` stays as it is. */
function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}
