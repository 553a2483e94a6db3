/**
 * An {@link Invoker} for `rocketmq-lambda dev` that picks up handler edits without a restart. It wraps a
 * {@link LocalInvoker}: each `local:` module is reached through a tiny generated shim module
 * (`<stateDir>/<hash>/v<n>/<name>.mjs`) that imports the real file with a cache-busting `?v=<n>` URL.
 * {@link ReloadingInvoker.reload} bumps `n`, so the next invoke loads the file afresh (its own imports
 * stay cached: only the handler file itself is reloaded).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../invoke/invoker.js';
import { LocalInvoker, parseLocalFunctionRef } from '../invoke/local-invoker.js';
import type { Logger } from '../util/logger.js';

/**
 * Options of {@link ReloadingInvoker}.
 *
 * @example
 * ```ts
 * const options: ReloadingInvokerOptions = { shimDir: '.rocketmq-lambda/handlers' };
 * ```
 */
export interface ReloadingInvokerOptions {
  /** Where shim modules are written (created on demand). */
  readonly shimDir: string;
  readonly logger?: Logger | undefined;
  /** Handler timeout. @default LocalInvoker's */
  readonly timeoutMs?: number | undefined;
}

/**
 * Runs `local:` handlers (absolute module paths) in-process and reloads a module on demand.
 *
 * @example
 * ```ts
 * const invoker = new ReloadingInvoker({ shimDir: '.rocketmq-lambda/handlers' });
 * await invoker.invoke({ functionRef: 'local:/app/src/orders.ts#handler', payload });
 * invoker.reload('/app/src/orders.ts'); // the next invoke imports the edited file
 * ```
 */
export class ReloadingInvoker implements Invoker {
  readonly #shimDir: string;
  readonly #inner: LocalInvoker;
  readonly #versions = new Map<string, number>();
  readonly #shims = new Map<string, string>();

  constructor(options: ReloadingInvokerOptions) {
    this.#shimDir = path.resolve(options.shimDir);
    this.#inner = new LocalInvoker({
      baseDir: this.#shimDir,
      logger: options.logger,
      timeoutMs: options.timeoutMs,
    });
  }

  /** Marks `file` (absolute) as changed: the next invoke of a handler in it loads it again. */
  reload(file: string): void {
    const absolute = path.resolve(file);
    this.#versions.set(absolute, (this.#versions.get(absolute) ?? 0) + 1);
  }

  /** The current version of `file` (0 until its first reload). */
  versionOf(file: string): number {
    return this.#versions.get(path.resolve(file)) ?? 0;
  }

  invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const { modulePath, exportName } = parseLocalFunctionRef(request.functionRef);
    const file = path.resolve(modulePath);
    const shim = this.#shimFor(file, this.versionOf(file), exportName);
    return this.#inner.invoke({ ...request, functionRef: `local:${shim}#${exportName}` });
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #shimFor(file: string, version: number, exportName: string): string {
    const key = `${file}\0${version}\0${exportName === 'default'}`;
    const known = this.#shims.get(key);
    if (known !== undefined) return known;
    const hash = createHash('sha256').update(file).digest('hex').slice(0, 12);
    const name = path.basename(file, path.extname(file));
    const dir = path.join(this.#shimDir, hash, `v${version}`);
    const shim = path.join(dir, `${exportName === 'default' ? `${name}.default` : name}.mjs`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(shim, shimSource(file, version, exportName));
    this.#shims.set(key, shim);
    return shim;
  }
}

/**
 * The text of a shim module: re-exports `file` imported as `file:///...?v=<version>`, and its namespace as
 * the default export (so CommonJS handlers, found on `default`, work too).
 *
 * @example
 * ```ts
 * shimSource('/app/src/orders.ts', 2, 'handler');
 * // => "export * from 'file:///app/src/orders.ts?v=2';\n..."
 * ```
 */
export function shimSource(file: string, version: number, exportName: string): string {
  const url = JSON.stringify(`${pathToFileURL(file).href}?v=${version}`);
  if (exportName === 'default') return `export { default } from ${url};\n`;
  return `export * from ${url};\nimport * as namespace from ${url};\nexport default namespace;\n`;
}
