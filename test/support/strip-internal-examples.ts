/**
 * `@example` belongs on what the package hands to users, nowhere else: the declarations exported by the
 * public entries of package.json's `exports` (and the members of exported classes, interfaces and types).
 * `internalExamples()` lists every `@example` in src/ outside that set, for
 * test/unit/docs/examples-public.test.ts; run as a script, this file removes them:
 *
 *   npx tsx test/support/strip-internal-examples.ts [--check]
 *
 * A removed block is the tag and its text up to the next tag or the end of the comment; the rest of the
 * comment stays, and a comment that held nothing but examples goes. Running it again changes nothing.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One `@example` tag: where it is and what it documents. */
export interface ExampleTag {
  /** Path relative to the project root, with `/`. */
  readonly file: string;
  /** 1-based line of the `@example` tag. */
  readonly line: number;
  /** The documented declaration, `Class.member` for members; `(module comment)` for a file's leading one. */
  readonly name: string;
  readonly isPublic: boolean;
}

export interface ExampleReport {
  /** The entry source files, relative to the project root, read from package.json `exports`. */
  readonly entries: readonly string[];
  readonly examples: readonly ExampleTag[];
  /** Removals per file (absolute path -> [start, end) character ranges), for `stripInternalExamples`. */
  readonly removals: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;
  /** The text each file had when it was read, so a file edited since is left alone. */
  readonly texts: ReadonlyMap<string, string>;
}

/**
 * The source files behind package.json's `exports`: a `./dist/x.js` or `./dist/x.d.ts` target maps to the
 * source under tsconfig.build.json's rootDir. Anything that is not built code (`./package.json`) is skipped.
 */
export function publicEntries(root: string = REPO_ROOT): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports?: unknown };
  const build = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), ts.sys.readFile).config as
    | { compilerOptions?: { rootDir?: string; outDir?: string } }
    | undefined;
  const rootDir = build?.compilerOptions?.rootDir ?? 'src';
  const outDir = build?.compilerOptions?.outDir ?? 'dist';
  const targets: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) collect(v);
  };
  collect(typeof pkg.exports === 'string' ? { '.': pkg.exports } : pkg.exports);
  const entries = new Set<string>();
  for (const target of targets) {
    const match = /^\.\/(.+?)(\.d\.ts|\.js)$/.exec(target);
    if (match === null) continue;
    const built = path.posix.normalize(match[1] ?? '');
    const relative = path.posix.relative(path.posix.normalize(outDir), built);
    if (relative.startsWith('..'))
      throw new Error(`package.json exports ${target}, which is outside ${outDir}`);
    const source = path.posix.join(rootDir, `${relative}.ts`);
    if (!existsSync(path.join(root, source))) {
      throw new Error(`package.json exports ${target}, but its source ${source} does not exist`);
    }
    entries.add(source);
  }
  return [...entries].sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function isPrivateMember(node: ts.Node): boolean {
  if ('name' in node && node.name !== undefined && ts.isPrivateIdentifier(node.name as ts.Node)) return true;
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword)
  );
}

/** The declarations users reach: each export of each entry, aliases followed, and the members of its type. */
function publicDeclarations(program: ts.Program, entries: readonly string[]): Set<ts.Node> {
  const checker = program.getTypeChecker();
  const declarations = new Set<ts.Node>();
  const addMembers = (type: ts.Type): void => {
    for (const property of checker.getPropertiesOfType(type)) {
      for (const declaration of property.declarations ?? []) declarations.add(declaration);
    }
  };
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(entry);
    const moduleSymbol = sourceFile === undefined ? undefined : checker.getSymbolAtLocation(sourceFile);
    if (moduleSymbol === undefined) throw new Error(`${entry} is not a module the compiler could read`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      for (const declaration of symbol.declarations ?? []) declarations.add(declaration);
      if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
        // Inherited members are the exported type's members too, wherever they are declared.
        addMembers(checker.getDeclaredTypeOfSymbol(symbol));
      }
      if (symbol.flags & ts.SymbolFlags.Class) addMembers(checker.getTypeOfSymbol(symbol));
    }
  }
  return declarations;
}

/** Whether a node is a public declaration, lies inside one (a member, an inline type's member), or is
 * a statement that declares one (`export const x = ...`). A private member is never public. */
function isPublicNode(node: ts.Node, publicSet: ReadonlySet<ts.Node>): boolean {
  if (ts.isVariableStatement(node) && node.declarationList.declarations.some((d) => publicSet.has(d))) {
    return true;
  }
  for (let current: ts.Node | undefined = node; current !== undefined; current = current.parent) {
    if (isPrivateMember(current)) return false;
    if (publicSet.has(current)) return true;
  }
  return false;
}

function declarationName(node: ts.Node, sourceFile: ts.SourceFile): string {
  const own = (n: ts.Node): string | undefined => {
    if (ts.isVariableStatement(n)) {
      return n.declarationList.declarations.map((d) => d.name.getText(sourceFile)).join(', ');
    }
    if (ts.isConstructorDeclaration(n)) return 'constructor';
    const name =
      ts.isDeclarationStatement(n) || 'name' in n ? ts.getNameOfDeclaration(n as ts.Declaration) : undefined;
    return name?.getText(sourceFile);
  };
  const parts: string[] = [];
  for (let current: ts.Node | undefined = node; current !== undefined && !ts.isSourceFile(current); ) {
    const name = own(current);
    if (name !== undefined) parts.unshift(name);
    current = current.parent;
  }
  if (parts.length > 0) return parts.join('.');
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return '(module comment)';
  return node.kind === ts.SyntaxKind.EndOfFileToken
    ? '(comment on no declaration)'
    : ts.SyntaxKind[node.kind];
}

/** Character ranges of the `@example` tags of one comment that go, or of the whole comment when it
 * holds nothing else. Whole lines are removed, with the blank comment lines that would be left dangling. */
function removalRanges(text: string, doc: ts.JSDoc, sourceFile: ts.SourceFile): Array<[number, number]> {
  const tags = doc.tags ?? [];
  const lineStart = (pos: number): number => text.lastIndexOf('\n', pos - 1) + 1;
  const nextLine = (pos: number): number => {
    const end = text.indexOf('\n', pos);
    return end === -1 ? text.length : end + 1;
  };
  const onlyBlankBefore = (pos: number, pattern: RegExp): boolean =>
    pattern.test(text.slice(lineStart(pos), pos));
  const docStart = doc.getStart(sourceFile);
  const hasText = ts.getTextOfJSDocComment(doc.comment)?.trim();
  if (!hasText && tags.every((tag) => tag.tagName.text === 'example')) {
    if (onlyBlankBefore(docStart, /^\s*$/) && /^[ \t]*(\r?\n|$)/.test(text.slice(doc.end))) {
      return [[lineStart(docStart), nextLine(doc.end)]];
    }
    return [[docStart, doc.end]];
  }
  const closing = doc.end - 2; // the `*/`
  const ranges: Array<[number, number]> = [];
  tags.forEach((tag, index) => {
    if (tag.tagName.text !== 'example') return;
    const start = tag.getStart(sourceFile);
    const next = tags[index + 1];
    const end = next === undefined ? closing : next.getStart(sourceFile);
    const startsLine = onlyBlankBefore(start, /^\s*\*?\s*$/);
    const endsAtLine =
      next === undefined ? onlyBlankBefore(end, /^\s*$/) : onlyBlankBefore(end, /^\s*\*?\s*$/);
    if (!startsLine || !endsAtLine) {
      ranges.push([start, end]);
      return;
    }
    ranges.push([lineStart(start), lineStart(end)]);
  });
  const merged = mergeRanges(ranges);
  // A comment whose last tags went would end in the blank `*` lines that stood before them.
  const last = merged.at(-1);
  if (last !== undefined && last[1] === lineStart(closing)) {
    for (let previous = lineStart(last[0] - 1); previous > docStart; previous = lineStart(previous - 1)) {
      if (!/^\s*\*\s*$/.test(text.slice(previous, last[0] - 1))) break;
      last[0] = previous;
    }
  }
  return merged;
}

/** Sorted, with touching or overlapping ranges joined. */
function mergeRanges(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

const EXAMPLE_IN_TEXT = /(^|\n)[ \t]*(\/\*\*)?[ \t]*\*?[ \t]*@example\b/g;

/** Every `@example` in `root`'s src/ with whether it is on a public declaration, and what to remove. */
export function analyzeExamples(root: string = REPO_ROOT): ExampleReport {
  const entries = publicEntries(root);
  const files = sourceFiles(path.join(root, 'src'));
  const program = ts.createProgram({
    rootNames: [...new Set([...files, ...entries.map((entry) => path.join(root, entry))])],
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      resolveJsonModule: true,
      types: ['node'],
    },
  });
  const entryPaths = entries.map((entry) => path.join(root, entry));
  const publicSet = publicDeclarations(
    program,
    entryPaths.map((entry) => program.getSourceFile(entry)?.fileName ?? entry),
  );
  const examples: ExampleTag[] = [];
  const removals = new Map<string, Array<readonly [number, number]>>();
  const texts = new Map<string, string>();
  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (sourceFile === undefined) throw new Error(`the compiler did not read ${file}`);
    const text = sourceFile.text;
    texts.set(file, text);
    const relative = path.relative(root, file).split(path.sep).join('/');
    const isEntry = entryPaths.includes(file);
    const found = new Set<number>();
    const visit = (node: ts.Node): void => {
      for (const doc of ts.getJSDocCommentsAndTags(node)) {
        if (!ts.isJSDoc(doc) || doc.parent !== node) continue;
        const exampleTags = (doc.tags ?? []).filter((tag) => tag.tagName.text === 'example');
        if (exampleTags.length === 0) continue;
        // An entry's own comments (its leading one, those on its export lists) document the package.
        const isPublic =
          isPublicNode(node, publicSet) ||
          (isEntry && node.parent === sourceFile && !ts.isImportDeclaration(node)) ||
          (isEntry && node === sourceFile.statements[0]);
        const name = declarationName(node, sourceFile);
        for (const tag of exampleTags) {
          const start = tag.getStart(sourceFile);
          found.add(sourceFile.getLineAndCharacterOfPosition(start).line);
          examples.push({
            file: relative,
            line: sourceFile.getLineAndCharacterOfPosition(start).line + 1,
            name,
            isPublic,
          });
        }
        if (!isPublic) {
          const list = removals.get(file) ?? [];
          list.push(...removalRanges(text, doc, sourceFile));
          removals.set(file, list);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    // A tag in a comment the compiler attaches to nothing is still an example on nothing public.
    for (const match of text.matchAll(EXAMPLE_IN_TEXT)) {
      const at = text.indexOf('@example', match.index);
      const line = sourceFile.getLineAndCharacterOfPosition(at).line;
      if (!found.has(line) && isInComment(sourceFile, at)) {
        examples.push({
          file: relative,
          line: line + 1,
          name: '(comment on no declaration)',
          isPublic: false,
        });
      }
    }
  }
  examples.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return { entries, examples, removals, texts };
}

function isInComment(sourceFile: ts.SourceFile, position: number): boolean {
  const text = sourceFile.text;
  const inRanges = (at: number): boolean =>
    [...(ts.getLeadingCommentRanges(text, at) ?? []), ...(ts.getTrailingCommentRanges(text, at) ?? [])].some(
      (range) => range.pos <= position && position < range.end,
    );
  const visit = (node: ts.Node): boolean => {
    if (position < node.pos || position >= node.end) return node.end === position && inRanges(node.end);
    const children = node.getChildren(sourceFile);
    if (children.length === 0) return inRanges(node.pos) || inRanges(node.end);
    return children.some(visit);
  };
  return visit(sourceFile) || inRanges(sourceFile.endOfFileToken.pos);
}

/** The examples that are not on public declarations. */
export function internalExamples(root: string = REPO_ROOT): ExampleTag[] {
  return analyzeExamples(root).examples.filter((example) => !example.isPublic);
}

/**
 * Removes the internal examples of `root`'s src/ in place; returns the files it changed. A file that
 * changed on disk since it was read (someone is editing it) is left alone and listed in `skipped`: run
 * the script again once they are done.
 */
export function stripInternalExamples(root: string = REPO_ROOT, skipped: string[] = []): string[] {
  const { removals, texts } = analyzeExamples(root);
  const changed: string[] = [];
  for (const [file, ranges] of removals) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    let text = readFileSync(file, 'utf8');
    if (text !== texts.get(file)) {
      skipped.push(relative);
      continue;
    }
    for (const [start, end] of mergeRanges(ranges).reverse()) text = text.slice(0, start) + text.slice(end);
    writeFileSync(file, text);
    changed.push(relative);
  }
  return changed.sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const internal = internalExamples();
    for (const example of internal) console.log(`${example.file}:${example.line} ${example.name}`);
    console.log(`${internal.length} @example tag(s) on declarations that are not public`);
    process.exitCode = internal.length === 0 ? 0 : 1;
  } else {
    const skipped: string[] = [];
    const changed = stripInternalExamples(REPO_ROOT, skipped);
    for (const file of changed) console.log(file);
    console.log(`removed internal @example blocks from ${changed.length} file(s)`);
    for (const file of skipped) console.log(`skipped ${file}: it changed while it was read; run again`);
    const left = internalExamples();
    for (const example of left) console.log(`left: ${example.file}:${example.line} ${example.name}`);
    process.exitCode = left.length === 0 ? 0 : 1;
  }
}
