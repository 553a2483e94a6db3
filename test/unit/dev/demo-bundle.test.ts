/**
 * The demo's cached bundle (src/dev/demo-bundle.mjs), built with the real esbuild from a small project of
 * TypeScript modules and run by a plain node: relative paths resolve as from the sources, the bundle is
 * reused until an input changes or goes, and a manifest that is damaged, too large or of another format
 * is named as the reason to rebuild.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
      'console.log(JSON.stringify({ greeting: greeting(), where, own }));\n',
  );
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
function runBundle(url: string): { greeting: string; where: string; own: string } {
  const run = spawnSync(process.execPath, [fileURLToPath(url)], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { greeting: string; where: string; own: string };
}

describe('the demo bundle', () => {
  it('runs from one file with each module seeing its source URL, marked as bundled', async () => {
    const built = await cachedBundle(spec);
    expect(built).toMatchObject({ state: 'built', reason: 'no bundle built yet' });
    expect(built.url).toBe(pathToFileURL(bundlePaths(spec.dir).bundle).href);
    const output = runBundle(built.url);
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

  it('is rebuilt when an input is gone', async () => {
    await cachedBundle(spec);
    rmSync(path.join(root, 'src', 'helper.ts'));
    expect(await staleReason(spec)).toBe(path.join('src', 'helper.ts') + ' is gone');
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
    expect(await staleReason(spec)).toBe(`${manifest} has format 0, not 1`);

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

    rmSync(bundlePaths(spec.dir).bundle);
    writeFileSync(manifest, good);
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
