/**
 * The demo's cached bundle (src/dev/demo-bundle.mjs), built with the real esbuild from a small project of
 * TypeScript modules and run by a plain node: relative paths resolve as from the sources, a dynamic
 * import stays a chunk of its own, the bundle is reused until an input changes or goes or the checkout
 * moves, and a manifest that is damaged, too large or of another format is named as the reason to
 * rebuild. And the rewrite of `import.meta.url` it relies on holds for every source in src/.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BUNDLED_FRAGMENT,
  bundlePaths,
  cachedBundle,
  MAX_MANIFEST_BYTES,
  staleReason,
} from '../../../src/dev/demo-bundle.mjs';

let root: string;
let spec: { root: string; entry: string; dir: string };

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'demo-bundle-test-'));
  mkdirSync(path.join(root, 'src'));
  writeFileSync(
    path.join(root, 'src', 'entry.ts'),
    "import { greeting, where } from './helper.js';\n" +
      'const own: string = import.meta.url;\n' +
      "const { later } = await import('./later.js');\n" +
      'console.log(JSON.stringify({ greeting: greeting(), where, own, later }));\n',
  );
  writeFileSync(path.join(root, 'src', 'later.ts'), "export const later: string = 'imported later';\n");
  writeHelper('hello');
  writeFileSync(path.join(root, 'src', 'data.txt'), 'from the data file');
  spec = { root, entry: path.join(root, 'src', 'entry.ts'), dir: path.join(root, 'cache') };
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** helper.ts: reads data.txt next to it, through its own import.meta.url. */
function writeHelper(word: string): void {
  writeFileSync(
    path.join(root, 'src', 'helper.ts'),
    "import { readFileSync } from 'node:fs';\n" +
      `export const greeting = (): string => '${word} ' + readFileSync(new URL('./data.txt', import.meta.url), 'utf8');\n` +
      'export const where: string = import.meta.url;\n',
  );
}

/** Runs the bundle as demo-launch.mjs does: a plain node, no TypeScript loader. */
function runBundle(url: string): { greeting: string; where: string; own: string; later: string } {
  const run = spawnSync(process.execPath, [fileURLToPath(url)], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { greeting: string; where: string; own: string; later: string };
}

/** The directory of the build whose entry is `url`. */
function buildDir(url: string): string {
  return path.dirname(fileURLToPath(url));
}

describe('the demo bundle', () => {
  it('runs with each module seeing its source URL, marked as bundled', async () => {
    const built = await cachedBundle(spec);
    expect(built).toMatchObject({ state: 'built', reason: 'no bundle built yet' });
    expect(built.url.startsWith(pathToFileURL(bundlePaths(spec.dir).builds).href)).toBe(true);
    expect(built.url.endsWith('/entry.mjs')).toBe(true);
    const output = runBundle(built.url);
    expect(output.later).toBe('imported later');
    // The dynamic import is a chunk of its own, with the packages it imports loaded only then.
    const files = readdirSync(buildDir(built.url)).filter((name) => name.endsWith('.mjs'));
    expect(files.length, files.join(', ')).toBe(2);
    expect(output.greeting).toBe('hello from the data file');
    expect(output.where).toBe(pathToFileURL(path.join(root, 'src', 'helper.ts')).href + BUNDLED_FRAGMENT);
    expect(output.own).toBe(pathToFileURL(spec.entry).href + BUNDLED_FRAGMENT);
    // No longer a `.ts` URL: src/dev/typescript-loader.ts registers tsx for the handlers.
    expect(output.own.endsWith('.ts')).toBe(false);
  });

  it('is reused until an input changes, then rebuilt from the change', async () => {
    await cachedBundle(spec);
    expect(await staleReason(spec)).toBeUndefined();
    expect((await cachedBundle(spec)).state).toBe('reused');

    writeHelper('goodbye');
    expect(await staleReason(spec)).toBe(path.join('src', 'helper.ts') + ' changed');
    const rebuilt = await cachedBundle(spec);
    expect(rebuilt.state).toBe('built');
    expect(runBundle(rebuilt.url).greeting).toBe('goodbye from the data file');

    // Same size, another modification time: still a change.
    const helper = path.join(root, 'src', 'helper.ts');
    utimesSync(helper, new Date(), new Date(Date.now() + 5_000));
    expect(await staleReason(spec)).toBe(path.join('src', 'helper.ts') + ' changed');
  });

  it('is rebuilt when an input or its build is gone', async () => {
    await cachedBundle(spec);
    rmSync(path.join(root, 'src', 'helper.ts'));
    expect(await staleReason(spec)).toBe(path.join('src', 'helper.ts') + ' is gone');
    writeHelper('hello');
    const again = await cachedBundle(spec);
    expect(again.state).toBe('built');
    rmSync(buildDir(again.url), { recursive: true });
    expect(await staleReason(spec)).toMatch(/^build [a-z0-9]+-\d+ is gone$/);
  });

  it('is rebuilt in a moved or copied checkout: the bundle holds absolute paths', async () => {
    await cachedBundle(spec);
    const copy = mkdtempSync(path.join(tmpdir(), 'demo-bundle-copy-'));
    try {
      cpSync(root, copy, { recursive: true, preserveTimestamps: true });
      const moved = { root: copy, entry: path.join(copy, 'src', 'entry.ts'), dir: path.join(copy, 'cache') };
      expect(await staleReason(moved)).toBe(
        `${bundlePaths(moved.dir).manifest} is for the checkout at ${root}`,
      );
      const rebuilt = await cachedBundle(moved);
      expect(runBundle(rebuilt.url).where).toBe(
        pathToFileURL(path.join(copy, 'src', 'helper.ts')).href + BUNDLED_FRAGMENT,
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('names what is wrong with a damaged, oversized or foreign manifest', async () => {
    await cachedBundle(spec);
    const { manifest } = bundlePaths(spec.dir);
    const good = readFileSync(manifest, 'utf8');

    writeFileSync(manifest, '{"format":');
    const unreadable = await staleReason(spec);
    expect(unreadable?.startsWith(`${manifest} is unreadable: `), unreadable).toBe(true);
    expect(unreadable).toContain('JSON');

    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(good), format: 0 }));
    expect(await staleReason(spec)).toBe(`${manifest} has format 0, not 2`);

    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(good), build: '../../elsewhere' }));
    expect(await staleReason(spec)).toBe(`${manifest} names no build: "../../elsewhere"`);

    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(good), entry: 'src/other.ts' }));
    expect(await staleReason(spec)).toBe(`${manifest} is for src/other.ts`);

    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(good), inputs: [{ file: 'src/entry.ts' }] }));
    expect(await staleReason(spec)).toBe(
      `${manifest} has an input that is not {file, size, mtimeMs}: {"file":"src/entry.ts"}`,
    );

    writeFileSync(manifest, ' '.repeat(MAX_MANIFEST_BYTES + 1));
    expect(await staleReason(spec)).toBe(
      `${manifest} is ${MAX_MANIFEST_BYTES + 1} bytes, above ${MAX_MANIFEST_BYTES}`,
    );

    rmSync(manifest);
    expect(await staleReason(spec)).toBe('no bundle built yet');
  });

  it('fails to build with the source error, and leaves the last good bundle', async () => {
    const first = await cachedBundle(spec);
    writeFileSync(path.join(root, 'src', 'helper.ts'), 'export const greeting = (: string => ;\n');
    await expect(cachedBundle(spec)).rejects.toThrow(/helper\.ts/);
    expect(runBundle(first.url).greeting).toBe('hello from the data file');
    expect(await staleReason(spec)).toBe(path.join('src', 'helper.ts') + ' changed');
  });
});

describe('the sources the demo bundle rewrites', () => {
  const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

  /** Every `.ts` source under src/ (declarations excluded). */
  function sources(dir = SRC): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(full);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
    });
  }

  it('use import.meta only as import.meta.url, and never write it inside a string or a regular expression', () => {
    const problems: string[] = [];
    for (const file of sources()) {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('import.meta')) continue;
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        const where = `${path.relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) {
          const parent = node.parent;
          if (!ts.isPropertyAccessExpression(parent) || parent.name.text !== 'url') {
            problems.push(`${where}: import.meta used other than as import.meta.url`);
          }
        }
        if (
          (ts.isStringLiteralLike(node) ||
            ts.isTemplateLiteralToken(node) ||
            ts.isRegularExpressionLiteral(node)) &&
          node.getText(source).includes('import.meta')
        ) {
          problems.push(`${where}: import.meta inside a literal (the bundle's text rewrite would change it)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(problems).toEqual([]);
  });
});

describe('the demo launcher and bundler (plain JavaScript, outside `npm run typecheck`)', () => {
  it("type-check under their // @ts-check with the project's strict settings", () => {
    const files = ['src/dev/demo-bundle.mjs', 'src/cli/demo-launch.mjs'].map((file) =>
      fileURLToPath(new URL(`../../../${file}`, import.meta.url)),
    );
    const program = ts.createProgram(files, {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      strict: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: ['node'],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      return `${diagnostic.file.fileName}:${line + 1}: ${text}`;
    });
    expect(problems).toEqual([]);
  }, 60_000);
});
