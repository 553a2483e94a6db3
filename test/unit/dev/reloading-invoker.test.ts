import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { withoutReloadTags } from '../../../src/dev/module-reload-hooks.js';
import { loadFailureShape, ReloadingInvoker, shimSource } from '../../../src/dev/reloading-invoker.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const payload = Buffer.from('{"Records":[]}');

async function responseOf(invoker: ReloadingInvoker, functionRef: string): Promise<unknown> {
  const outcome = await invoker.invoke({ functionRef, payload });
  if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
  return JSON.parse(outcome.payload.toString('utf8'));
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'reloading-invoker-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `files` (relative path → text) under `dir`. */
function writeTree(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

describe('ReloadingInvoker in-process', () => {
  it('keeps a loaded module until reload(), then runs the edited file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'handler.mjs');
    writeFileSync(file, 'export const handler = async () => "one";\n');
    const invoker = new ReloadingInvoker({ shimDir: path.join(dir, 'shims') });
    const ref = `local:${file}#handler`;
    expect(await responseOf(invoker, ref)).toBe('one');
    writeFileSync(file, 'export const handler = async () => "two";\n');
    expect(await responseOf(invoker, ref)).toBe('one');
    expect(invoker.reload([file])).toBe(1);
    expect(invoker.generation).toBe(1);
    expect(await responseOf(invoker, ref)).toBe('two');
    await invoker.close();
  });

  it('finds CommonJS exports through the shim default export', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'handler.cjs');
    writeFileSync(file, 'exports.main = (event, context, callback) => callback(null, 7);\n');
    const invoker = new ReloadingInvoker({ shimDir: path.join(dir, 'shims') });
    expect(await responseOf(invoker, `local:${file}#main`)).toBe(7);
    await invoker.close();
  });

  it('turns a missing export into a HandlerNotFound function error, and recovers after a reload', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'handler.mjs');
    writeFileSync(file, 'export const handle = async () => "typo";\n');
    const invoker = new ReloadingInvoker({ shimDir: path.join(dir, 'shims') });
    const ref = `local:${file}#handler`;
    const outcome = await invoker.invoke({ functionRef: ref, payload });
    expect(outcome).toEqual({
      ok: false,
      kind: 'function-error',
      message: JSON.stringify({
        errorType: 'Runtime.HandlerNotFound',
        errorMessage: `handler ${file} has no function export "handler"`,
      }),
    });
    writeFileSync(file, 'export const handler = async () => "fixed";\n');
    invoker.reload([file]);
    expect(await responseOf(invoker, ref)).toBe('fixed');
    await invoker.close();
  });

  it('still throws once closed', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'handler.mjs');
    writeFileSync(file, 'export const handler = async () => 1;\n');
    const invoker = new ReloadingInvoker({ shimDir: path.join(dir, 'shims') });
    await invoker.close();
    await expect(invoker.invoke({ functionRef: `local:${file}#handler`, payload })).rejects.toMatchObject({
      fatal: true,
    });
  });

  it('writes shims that import the file with its reload tag', () => {
    const url = '"file:///app/src/o.ts?rocketmq-lambda-reload=a1.2"';
    expect(shimSource('/app/src/o.ts', 'a1.2', 'handler')).toBe(
      `export * from ${url};\nimport * as namespace from ${url};\nexport default namespace;\n`,
    );
    expect(shimSource('/app/o.js', 'b2.0', 'default')).toBe(
      'export { default } from "file:///app/o.js?rocketmq-lambda-reload=b2.0";\n',
    );
  });

  it('shapes load failures as Lambda does, naming the changed files and without reload tags', () => {
    const syntax = new SyntaxError("Unexpected identifier 'oops'");
    expect(loadFailureShape('/app/h.mjs', 'handler', ['/app/lib/a.mjs'], syntax)).toEqual({
      errorType: 'Runtime.UserCodeSyntaxError',
      errorMessage:
        "cannot load handler /app/h.mjs (changed since it last loaded: /app/lib/a.mjs): SyntaxError: Unexpected identifier 'oops'",
    });
    const missing = new Error(
      "Cannot find module '/app/lib/b.js' imported from /app/h.ts?rocketmq-lambda-reload=ab12.3",
    );
    expect(loadFailureShape('/app/h.ts', 'handler', [], missing)).toEqual({
      errorType: 'Runtime.ImportModuleError',
      errorMessage:
        "cannot load handler /app/h.ts: Error: Cannot find module '/app/lib/b.js' imported from /app/h.ts",
    });
    const many = ['/a1', '/a2', '/a3', '/a4', '/a5', '/a6', '/a7'];
    expect(loadFailureShape('/h.ts', 'handler', many, 'x').errorMessage).toBe(
      'cannot load handler /h.ts (changed since it last loaded: /a1, /a2, /a3, /a4, /a5 and 2 more): x',
    );
    expect(withoutReloadTags('file:///a.ts?rocketmq-lambda-reload=x.1:3')).toBe('file:///a.ts:3');
  });
});

type Reply = { ok: true; value: unknown } | { ok: false; kind: string; message: string } | { thrown: string };

/**
 * A ReloadingInvoker in a child `node --import tsx` (as `rocketmq-lambda dev` runs from sources): Node's
 * module hooks act on native imports only, which vitest's own module runner bypasses.
 */
class ChildInvoker {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: Interface;
  readonly #replies: string[] = [];
  #waiting: ((line: string) => void) | undefined;
  #stderr = '';

  constructor(shimDir: string) {
    const driver = `
      import { createInterface } from 'node:readline';
      const { ReloadingInvoker } = await import(${JSON.stringify(pathToFileURL(path.join(REPO, 'src/dev/reloading-invoker.ts')).href)});
      const invoker = new ReloadingInvoker({ shimDir: ${JSON.stringify(shimDir)} });
      for await (const line of createInterface({ input: process.stdin })) {
        const command = JSON.parse(line);
        let reply;
        if (command.reload !== undefined) {
          reply = { ok: true, value: invoker.reload(command.reload) };
        } else {
          try {
            const outcome = await invoker.invoke({ functionRef: command.invoke, payload: Buffer.from('{}') });
            reply = outcome.ok ? { ok: true, value: JSON.parse(outcome.payload.toString('utf8')) } : outcome;
          } catch (error) {
            reply = { thrown: String(error) };
          }
        }
        process.stdout.write(JSON.stringify(reply) + '\\n');
      }
    `;
    this.#child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', driver], {
      cwd: REPO,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    this.#child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString('utf8');
    });
    this.#lines = createInterface({ input: this.#child.stdout });
    this.#lines.on('line', (line) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting === undefined) this.#replies.push(line);
      else waiting(line);
    });
  }

  async #send(command: object): Promise<Reply> {
    this.#child.stdin.write(`${JSON.stringify(command)}\n`);
    const queued = this.#replies.shift();
    const line =
      queued ??
      (await new Promise<string>((resolve, reject) => {
        this.#waiting = resolve;
        this.#child.once('exit', (code) => reject(new Error(`driver exited (${code}): ${this.#stderr}`)));
      }));
    return JSON.parse(line) as Reply;
  }

  /** The handler's response; throws on any failure. */
  async value(file: string, exportName = 'handler'): Promise<unknown> {
    const reply = await this.#send({ invoke: `local:${file}#${exportName}` });
    if ('thrown' in reply || !reply.ok) throw new Error(`invoke failed: ${JSON.stringify(reply)}`);
    return reply.value;
  }

  invoke(file: string, exportName = 'handler'): Promise<Reply> {
    return this.#send({ invoke: `local:${file}#${exportName}` });
  }

  reload(changed: string[]): Promise<Reply> {
    return this.#send({ reload: changed });
  }

  close(): void {
    this.#lines.close();
    this.#child.kill();
  }
}

describe('ReloadingInvoker reloads whole module graphs (child process)', () => {
  let child: ChildInvoker | undefined;
  afterEach(() => child?.close());

  it('evaluates every local import again after reload(), for .ts, .mjs, .js and .cjs handlers', async () => {
    const dir = tempDir();
    writeTree(dir, {
      'package.json': '{ "type": "module" }\n',
      'src/orders.ts':
        "import { price } from './lib/price.js';\nexport const handler = async (): Promise<string> => price();\n",
      'src/lib/price.ts':
        "import { rate } from './rate.mjs';\nexport const price = (): string => 'ts:' + rate;\n",
      'src/lib/rate.mjs': 'export const rate = 1;\n',
      'plain.mjs': "import { word } from './words/word.mjs';\nexport const handler = async () => word;\n",
      'words/word.mjs': "export const word = 'one';\n",
      'esm.js':
        "import { word } from './words/word.mjs';\nexport const handler = async () => 'js:' + word;\n",
      'common.cjs': "const { n } = require('./lib/n.cjs');\nexports.handler = async () => n;\n",
      'lib/n.cjs': 'exports.n = 1;\n',
    });
    child = new ChildInvoker(path.join(dir, '.shims'));
    const orders = path.join(dir, 'src/orders.ts');
    const plain = path.join(dir, 'plain.mjs');
    const esm = path.join(dir, 'esm.js');
    const common = path.join(dir, 'common.cjs');
    expect(await child.value(orders)).toBe('ts:1');
    expect(await child.value(plain)).toBe('one');
    expect(await child.value(esm)).toBe('js:one');
    expect(await child.value(common)).toBe(1);

    writeTree(dir, {
      'src/lib/rate.mjs': 'export const rate = 2;\n',
      'words/word.mjs': "export const word = 'two';\n",
      'lib/n.cjs': 'exports.n = 2;\n',
    });
    expect(await child.value(orders)).toBe('ts:1'); // cached until reload()
    await child.reload([path.join(dir, 'src/lib/rate.mjs')]);
    expect(await child.value(orders)).toBe('ts:2');
    expect(await child.value(plain)).toBe('two');
    expect(await child.value(esm)).toBe('js:two');
    expect(await child.value(common)).toBe(2);
  }, 30_000);

  it('shares packages under node_modules across reloads', async () => {
    const dir = tempDir();
    writeTree(dir, {
      'package.json': '{ "type": "module" }\n',
      'node_modules/evaluations/package.json':
        '{ "name": "evaluations", "type": "module", "exports": "./index.js" }\n',
      'node_modules/evaluations/index.js': 'export const counts = new Map();\n',
      'lib/count.mjs':
        "import { counts } from 'evaluations';\ncounts.set('local', (counts.get('local') ?? 0) + 1);\nexport { counts };\n",
      'handler.mjs':
        "import { counts } from './lib/count.mjs';\nexport const handler = async () => counts.get('local');\n",
    });
    child = new ChildInvoker(path.join(dir, '.shims'));
    const handler = path.join(dir, 'handler.mjs');
    expect(await child.value(handler)).toBe(1);
    await child.reload([]);
    // lib/count.mjs ran again (local), against the same `counts` map (the package was not evaluated again).
    expect(await child.value(handler)).toBe(2);
  }, 30_000);

  it('fails a batch as a function error naming the broken import, then recovers on the next good edit', async () => {
    const dir = tempDir();
    writeTree(dir, {
      'package.json': '{ "type": "module" }\n',
      'handler.ts':
        "import { greet } from './lib/greet.js';\nexport const handler = async (): Promise<string> => greet();\n",
      'lib/greet.ts': "export const greet = (): string => 'hello';\n",
      'other.mjs': "import { x } from './lib/x.mjs';\nexport const handler = async () => x;\n",
      'lib/x.mjs': 'export const x = 1;\n',
    });
    child = new ChildInvoker(path.join(dir, '.shims'));
    const handler = path.join(dir, 'handler.ts');
    const other = path.join(dir, 'other.mjs');
    expect(await child.value(handler)).toBe('hello');
    expect(await child.value(other)).toBe(1);

    const greet = path.join(dir, 'lib/greet.ts');
    const x = path.join(dir, 'lib/x.mjs');
    writeTree(dir, {
      'lib/greet.ts': "export const greet = (): string => 'hello' oops;\n",
      'lib/x.mjs': 'export const x = 2 oops;\n',
    });
    await child.reload([greet, x]);
    const broken = await child.invoke(handler);
    expect(broken).toMatchObject({ ok: false, kind: 'function-error' });
    const shape = JSON.parse((broken as { message: string }).message) as Record<string, string>;
    expect(shape.errorType).toBe('Runtime.ImportModuleError');
    expect(shape.errorMessage).toContain(`cannot load handler ${handler}`);
    expect(shape.errorMessage).toContain(`${greet}:1:`); // esbuild names the file and line
    const brokenMjs = await child.invoke(other);
    const mjsShape = JSON.parse((brokenMjs as { message: string }).message) as Record<string, string>;
    expect(mjsShape.errorType).toBe('Runtime.UserCodeSyntaxError');
    expect(mjsShape.errorMessage).toContain(`changed since it last loaded: ${greet}, ${x}`);
    expect(await child.invoke(handler)).toMatchObject({ ok: false, kind: 'function-error' }); // until an edit

    writeTree(dir, {
      'lib/greet.ts': "export const greet = (): string => 'hello again';\n",
      'lib/x.mjs': 'export const x = 3;\n',
    });
    await child.reload([greet, x]);
    expect(await child.value(handler)).toBe('hello again');
    expect(await child.value(other)).toBe(3);
  }, 30_000);
});
