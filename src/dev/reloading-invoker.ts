/**
 * An {@link Invoker} for `rocketmq-lambda dev` that picks up source edits without a restart: a handler and
 * every local module it imports (directly or not) are evaluated again after {@link ReloadingInvoker.reload}.
 *
 * It wraps a {@link LocalInvoker}: each `local:` module is reached through a tiny generated shim module
 * (`<shimDir>/<hash>/g<generation>/<name>.mjs`) that imports the real file with a reload tag
 * (`?rocketmq-lambda-reload=<hash>.<generation>`); the resolve hook of `module-reload-hooks.ts` gives the
 * handler's local imports the same tag, so a new generation is a fresh module graph. Each handler file has
 * its own tag, so two handlers never share a module instance (as two Lambda functions would not); packages
 * under `node_modules` are shared.
 *
 * A handler that fails to load (a syntax error in an edited import, a missing module or export) fails the
 * batch as a function error, the way Lambda reports `Runtime.ImportModuleError`: the batch takes the normal
 * failure path (retried, nothing lost) and the mapping keeps running, so the next good edit recovers.
 *
 * Dev only: every generation stays in memory (Node cannot unload ES modules).
 */

import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvokeError } from '../invoke/invoke-error.js';
import type { InvokeFailure, InvokeOutcome, InvokeRequest, Invoker } from '../invoke/invoker.js';
import { parseLocalFunctionRef } from '../invoke/local-function-ref.js';
import { LocalInvoker } from '../invoke/local-invoker.js';
import { retargetRequest } from '../invoke/retargeted-request.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { nameAndMessage } from '../util/name-and-message.js';
import {
  installReloadHooks,
  purgeLocalCommonJsCache,
  taggedModuleUrl,
  withoutReloadTags,
} from './module-reload-hooks.js';

/** Most changed files named in one load-failure message. */
const MAX_NAMED_CHANGES = 5;

/**
 * Options of {@link ReloadingInvoker}.
 */
export interface ReloadingInvokerOptions {
  /** Where shim modules are written (created on demand). */
  readonly shimDir: string;
  readonly logger?: Logger | undefined;
  /** Handler timeout. @default LocalInvoker's */
  readonly timeoutMs?: number | undefined;
}

/**
 * Runs `local:` handlers (absolute module paths) in-process and reloads their module graphs on demand.
 * Registers the reload resolve hook on construction: create it after any TypeScript loader.
 */
export class ReloadingInvoker implements Invoker {
  readonly #shimDir: string;
  readonly #inner: LocalInvoker;
  readonly #log: Logger;
  readonly #shims = new Map<string, string>();
  /** Per handler file: the files changed since it last loaded (named when a load fails). */
  readonly #changesSinceLoad = new Map<string, Set<string>>();
  /** `<file>\0<generation>` of load failures already logged. */
  readonly #loggedFailures = new Set<string>();
  #generation = 0;
  #closed = false;

  constructor(options: ReloadingInvokerOptions) {
    this.#shimDir = path.resolve(options.shimDir);
    this.#log = componentLogger('dev.reload', options.logger);
    this.#inner = new LocalInvoker({
      baseDir: this.#shimDir,
      logger: options.logger,
      timeoutMs: options.timeoutMs,
    });
    installReloadHooks();
  }

  /** How many reloads there have been (0 until the first). */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Starts a new generation: the next invoke of every handler evaluates its module graph again. `changed`
   * (absolute paths) is only reported, in the message of a later load failure. Returns the new generation.
   */
  reload(changed: readonly string[] = []): number {
    this.#generation++;
    purgeLocalCommonJsCache();
    for (const files of this.#changesSinceLoad.values()) {
      for (const file of changed) files.add(path.resolve(file));
    }
    return this.#generation;
  }

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const { modulePath, exportName } = parseLocalFunctionRef(request.functionRef);
    const file = path.resolve(modulePath);
    const generation = this.#generation;
    const shim = this.#shimFor(file, generation, exportName);
    if (!this.#changesSinceLoad.has(file)) this.#changesSinceLoad.set(file, new Set());
    try {
      const outcome = await this.#inner.invoke(retargetRequest(request, `local:${shim}#${exportName}`));
      if (generation === this.#generation) this.#changesSinceLoad.get(file)?.clear();
      return outcome;
    } catch (error) {
      // LocalInvoker's fatal errors, once the reference parsed and while open, are load failures.
      if (!(error instanceof InvokeError) || !error.fatal || this.#closed) throw error;
      return this.#loadFailure(file, exportName, generation, error);
    }
  }

  close(): Promise<void> {
    this.#closed = true;
    return this.#inner.close();
  }

  #loadFailure(file: string, exportName: string, generation: number, error: InvokeError): InvokeFailure {
    const changed = [...(this.#changesSinceLoad.get(file) ?? [])];
    const shape = loadFailureShape(file, exportName, changed, error.cause);
    const key = `${file}\0${generation}`;
    if (!this.#loggedFailures.has(key)) {
      this.#loggedFailures.add(key);
      this.#log.error(
        {
          handler: file,
          exportName,
          generation,
          changed,
          errorType: shape.errorType,
          reason: shape.errorMessage,
        },
        'handler failed to load: its batches fail until a change reloads it',
      );
    }
    return { ok: false, kind: 'function-error', message: JSON.stringify(shape) };
  }

  #shimFor(file: string, generation: number, exportName: string): string {
    const key = `${file}\0${generation}\0${exportName === 'default'}`;
    const known = this.#shims.get(key);
    if (known !== undefined) return known;
    const hash = createHash('sha256').update(file).digest('hex').slice(0, 12);
    const name = path.basename(file, path.extname(file));
    const dir = path.join(this.#shimDir, hash, `g${generation}`);
    const shim = path.join(dir, `${exportName === 'default' ? `${name}.default` : name}.mjs`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(shim, shimSource(file, `${hash}.${generation}`, exportName));
    this.#shims.set(key, shim);
    return shim;
  }
}

/**
 * Lambda's error shape for a handler that could not be loaded: `Runtime.UserCodeSyntaxError` for a syntax
 * error, `Runtime.HandlerNotFound` for a missing export, `Runtime.ImportModuleError` otherwise; the message
 * names the handler file, the files changed since it last loaded, and the cause (whose text usually names
 * the broken file and line).
 */
export function loadFailureShape(
  file: string,
  exportName: string,
  changed: readonly string[],
  cause: unknown,
): { errorType: string; errorMessage: string } {
  const named = changed.slice(0, MAX_NAMED_CHANGES).join(', ');
  const more = changed.length > MAX_NAMED_CHANGES ? ` and ${changed.length - MAX_NAMED_CHANGES} more` : '';
  const since = changed.length > 0 ? ` (changed since it last loaded: ${named}${more})` : '';
  if (cause === undefined) {
    return {
      errorType: 'Runtime.HandlerNotFound',
      errorMessage: `handler ${file}${since} has no function export ${JSON.stringify(exportName)}`,
    };
  }
  const why = nameAndMessage(cause);
  return {
    errorType: cause instanceof SyntaxError ? 'Runtime.UserCodeSyntaxError' : 'Runtime.ImportModuleError',
    errorMessage: `cannot load handler ${file}${since}: ${withoutReloadTags(why)}`,
  };
}

/**
 * The text of a shim module: re-exports `file` imported with reload tag `tag`, and its namespace as the
 * default export (so CommonJS handlers, found on `default`, work too).
 */
export function shimSource(file: string, tag: string, exportName: string): string {
  const url = JSON.stringify(taggedModuleUrl(file, tag));
  if (exportName === 'default') return `export { default } from ${url};\n`;
  return `export * from ${url};\nimport * as namespace from ${url};\nexport default namespace;\n`;
}
