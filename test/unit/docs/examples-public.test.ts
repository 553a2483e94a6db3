import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  analyzeExamples,
  internalExamples,
  publicEntries,
  stripInternalExamples,
} from '../../support/strip-internal-examples.js';

// Each analysis builds a TypeScript program (with the standard library's types): seconds, more on a busy machine.
const ANALYSIS_TIMEOUT_MS = 120_000;

describe('@example is only on what the package exports', () => {
  it(
    'no @example in src/ documents a declaration outside the public entries of package.json',
    () => {
      const internal = internalExamples().map((example) => `${example.file}:${example.line} ${example.name}`);
      expect(
        internal,
        `${internal.length} @example block(s) on declarations users cannot import; ` +
          'run `npx tsx test/support/strip-internal-examples.ts` to remove them',
      ).toEqual([]);
    },
    ANALYSIS_TIMEOUT_MS,
  );

  it('reads the public entries from package.json exports', () => {
    expect(publicEntries()).toEqual(
      expect.arrayContaining(['src/index.ts', 'src/handler/index.ts', 'src/serverless/index.ts']),
    );
  });
});

describe('strip-internal-examples on a small project', { timeout: ANALYSIS_TIMEOUT_MS }, () => {
  let root: string | undefined;
  afterEach(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  function project(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'examples-public-'));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    return dir;
  }

  const packageJson = JSON.stringify({
    type: 'module',
    exports: {
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './extra': './dist/extra/index.js',
      './package.json': './package.json',
    },
  });
  const tsconfigBuild = JSON.stringify({ compilerOptions: { rootDir: 'src', outDir: 'dist' } });

  const widget = `/**
 * Base of widgets.
 *
 * @example
 * new Base();
 */
export class Base {
  /**
   * Inherited by a public class, so public.
   *
   * @example
   * widget.spin();
   */
  spin(): void {}
}

/**
 * A widget.
 *
 * @example
 * new Widget();
 */
export class Widget extends Base {
  /**
   * Turns it.
   *
   * @example
   * widget.turn();
   */
  turn(): void {}

  /**
   * @example
   * this.hidden();
   */
  private hidden(): void {}
}
`;

  const internal = `/**
 * @example
 * helper();
 */
export function helper(): void {}

/**
 * Why this exists.
 *
 * @example
 * described(1);
 *
 * @param n a number
 */
export function described(n: number): number {
  return n;
}

/**
 * Options nobody imports.
 *
 * @example
 * const a: Options = {};
 *
 * @example
 * const b: Options = { size: 1 };
 */
export interface Options {
  size?: number;
}
`;

  const internalStripped = `export function helper(): void {}

/**
 * Why this exists.
 *
 * @param n a number
 */
export function described(n: number): number {
  return n;
}

/**
 * Options nobody imports.
 */
export interface Options {
  size?: number;
}
`;

  const files = {
    'package.json': packageJson,
    'tsconfig.build.json': tsconfigBuild,
    'src/index.ts': `export { Widget as PublicWidget } from './widget.js';\nexport { helper, described } from './internal-reexport.js';\n`,
    'src/internal-reexport.ts': `export { helper, described } from './internal.js';\n`,
    'src/widget.ts': widget,
    'src/internal.ts': internal,
    'src/extra/index.ts': `/**\n * A later entry.\n *\n * @example\n * extra();\n */\nexport function extra(): void {}\n`,
  };

  it('follows aliases, re-exports, inherited members and entries added to package.json', () => {
    root = project(files);
    const report = analyzeExamples(root);
    expect(report.entries).toEqual(['src/extra/index.ts', 'src/index.ts']);
    const verdicts = report.examples.map((example) => `${example.file} ${example.name} ${example.isPublic}`);
    expect(verdicts).toEqual([
      'src/extra/index.ts extra true',
      'src/internal.ts helper true',
      'src/internal.ts described true',
      'src/internal.ts Options false',
      'src/internal.ts Options false',
      'src/widget.ts Base false',
      'src/widget.ts Base.spin true',
      'src/widget.ts Widget true',
      'src/widget.ts Widget.turn true',
      'src/widget.ts Widget.hidden false',
    ]);
  });

  it('removes only the internal blocks, keeps the rest of each comment, and is idempotent', () => {
    root = project({ ...files, 'src/index.ts': `export { Widget as PublicWidget } from './widget.js';\n` });
    expect(stripInternalExamples(root)).toEqual(['src/internal.ts', 'src/widget.ts']);
    const stripped = readFileSync(path.join(root, 'src/internal.ts'), 'utf8');
    expect(stripped).toBe(internalStripped);
    const widgetAfter = readFileSync(path.join(root, 'src/widget.ts'), 'utf8');
    expect(widgetAfter).toContain('/**\n * Base of widgets.\n */\nexport class Base {');
    expect(widgetAfter).toContain('   * @example\n   * widget.spin();');
    expect(widgetAfter).toContain('   * @example\n   * widget.turn();');
    expect(widgetAfter).toContain('  private hidden(): void {}');
    expect(widgetAfter).not.toContain('this.hidden()');
    expect(internalExamples(root)).toEqual([]);
    expect(stripInternalExamples(root)).toEqual([]);
  });

  it('reports an @example in a comment that documents no declaration', () => {
    root = project({
      ...files,
      'src/internal.ts': `export const x = {\n  a: 1,\n  /**\n   * @example\n   * stray();\n   */\n};\n\n/**\n * @example\n * atTheEnd();\n */\n`,
    });
    expect(
      internalExamples(root).map((example) => `${example.file}:${example.line} ${example.name}`),
    ).toEqual(expect.arrayContaining(['src/internal.ts:4 (comment on no declaration)']));
  });
});
