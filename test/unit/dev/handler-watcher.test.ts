import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type HandlerWatcher, isSourceFile, watchHandlerSources } from '../../../src/dev/handler-watcher.js';

const WAIT_MS = 10_000;
const log = pino({ level: 'silent' });

/** A service directory with a watcher over it; `next()` resolves with the next callback's files. */
function watchedService(
  files: Record<string, string>,
  options: { ignore?: string[] } = {},
): {
  dir: string;
  watcher: HandlerWatcher;
  write: (name: string, text?: string) => void;
  next: () => Promise<readonly string[]>;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'handler-watcher-'));
  const write = (name: string, text = `// ${Date.now()}\n`): void => {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  for (const [name, text] of Object.entries(files)) write(name, text);
  const calls: (readonly string[])[] = [];
  let waiting: ((files: readonly string[]) => void) | undefined;
  const watcher = watchHandlerSources({
    roots: [dir],
    ignorePaths: (options.ignore ?? []).map((name) => path.join(dir, name)),
    onChange: (changed) => {
      if (waiting === undefined) calls.push(changed);
      else waiting(changed);
      waiting = undefined;
    },
    log,
    debounceMs: 50,
  });
  onTestFinished(() => {
    watcher.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const next = (): Promise<readonly string[]> => {
    const queued = calls.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no change reported')), WAIT_MS);
      waiting = (changed) => {
        clearTimeout(timer);
        resolve(changed);
      };
    });
  };
  return { dir, watcher, write, next };
}

describe('watchHandlerSources', () => {
  it('reports an edit of a module nested anywhere under the root', async () => {
    const { dir, write, next } = watchedService({ 'src/handler.ts': '', 'src/lib/deep/price.ts': '' });
    write('src/lib/deep/price.ts');
    expect(await next()).toEqual([path.join(dir, 'src/lib/deep/price.ts')]);
  });

  it('ignores node_modules, .git, dist, the ignored paths and non-source files', async () => {
    const { dir, write, next } = watchedService(
      {
        'handler.mjs': '',
        'node_modules/pkg/index.js': '',
        '.git/HEAD': '',
        'dist/handler.js': '',
        'state/handlers/shim.mjs': '',
        'README.md': '',
      },
      { ignore: ['state'] },
    );
    write('node_modules/pkg/index.js');
    write('.git/config.json');
    write('dist/handler.js');
    write('state/handlers/shim.mjs');
    write('README.md');
    write('handler.mjs');
    // One burst: only the handler counts.
    expect(await next()).toEqual([path.join(dir, 'handler.mjs')]);
  });

  it('debounces a burst of edits into one callback with every changed file', async () => {
    const { dir, write, next } = watchedService({ 'a.ts': '', 'lib/b.json': '{}' });
    write('a.ts');
    write('lib/b.json', '{"x":1}');
    write('a.ts');
    expect(await next()).toEqual([path.join(dir, 'a.ts'), path.join(dir, 'lib/b.json')]);
  });

  it('watches directories created after it started', async () => {
    const { dir, watcher, write, next } = watchedService({ 'handler.ts': '' });
    expect(watcher.watchedDirs).toBe(1);
    mkdirSync(path.join(dir, 'lib'));
    await vi.waitFor(() => expect(watcher.watchedDirs, 'the new directory to be watched').toBe(2), {
      timeout: WAIT_MS,
      interval: 10,
    });
    write('lib/helper.ts');
    expect(await next()).toEqual([path.join(dir, 'lib/helper.ts')]);
  });

  it('reports a file replaced by rename, as editors save', async () => {
    const { dir, write, next } = watchedService({ 'handler.js': '' });
    write('.handler.js.swp', 'export const handler = () => 2;\n');
    renameSync(path.join(dir, '.handler.js.swp'), path.join(dir, 'handler.js'));
    expect(await next()).toEqual([path.join(dir, 'handler.js')]);
  });

  it('counts modules and JSON as sources', () => {
    for (const file of ['a.ts', 'a.mts', 'a.cts', 'a.js', 'a.mjs', 'a.cjs', 'a.json']) {
      expect(isSourceFile(file), file).toBe(true);
    }
    for (const file of ['a.md', 'a.ts~', 'a.swp', 'Makefile', 'a.ts.tmp']) {
      expect(isSourceFile(file), file).toBe(false);
    }
  });
});
