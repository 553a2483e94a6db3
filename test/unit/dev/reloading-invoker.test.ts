import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReloadingInvoker, shimSource } from '../../../src/dev/reloading-invoker.js';

const payload = Buffer.from('{"Records":[]}');

async function responseOf(invoker: ReloadingInvoker, functionRef: string): Promise<unknown> {
  const outcome = await invoker.invoke({ functionRef, payload });
  if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
  return JSON.parse(outcome.payload.toString('utf8'));
}

describe('ReloadingInvoker', () => {
  it('keeps a loaded module until reload(), then runs the edited file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reloading-invoker-'));
    const file = path.join(dir, 'handler.mjs');
    writeFileSync(file, 'export const handler = async () => "one";\n');
    const invoker = new ReloadingInvoker({ shimDir: path.join(dir, 'shims') });
    const ref = `local:${file}#handler`;
    expect(await responseOf(invoker, ref)).toBe('one');
    writeFileSync(file, 'export const handler = async () => "two";\n');
    expect(await responseOf(invoker, ref)).toBe('one');
    invoker.reload(file);
    expect(invoker.versionOf(file)).toBe(1);
    expect(await responseOf(invoker, ref)).toBe('two');
    await invoker.close();
  });

  it('finds CommonJS exports through the shim default export', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reloading-invoker-'));
    const file = path.join(dir, 'handler.cjs');
    writeFileSync(file, 'exports.main = (event, context, callback) => callback(null, 7);\n');
    const invoker = new ReloadingInvoker({ shimDir: path.join(dir, 'shims') });
    expect(await responseOf(invoker, `local:${file}#main`)).toBe(7);
    await invoker.close();
  });

  it('writes shims that import the file with a version query', () => {
    expect(shimSource('/app/src/o.ts', 2, 'handler')).toBe(
      'export * from "file:///app/src/o.ts?v=2";\nimport * as namespace from "file:///app/src/o.ts?v=2";\nexport default namespace;\n',
    );
    expect(shimSource('/app/o.js', 0, 'default')).toBe('export { default } from "file:///app/o.js?v=0";\n');
  });
});
