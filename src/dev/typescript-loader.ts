/**
 * Lets `rocketmq-lambda dev` import TypeScript handlers when it runs from the built JavaScript (`npx
 * rocketmq-lambda dev`): registers tsx's ESM loader in-process. Not needed (and skipped) when dev itself
 * runs from TypeScript sources, i.e. a TypeScript loader is already active. Call it before creating the
 * `ReloadingInvoker`: its reload hook (module-reload-hooks.ts) must be registered after tsx to see the
 * files tsx resolves `.js` specifiers to.
 */
import { RocketMQError } from '../errors.js';

/**
 * Whether this module was loaded from its `.ts` source (then a TypeScript loader is active).
 *
 * @example
 * ```ts
 * if (!runningFromTypeScript()) await ensureTypeScriptLoader();
 * ```
 */
export function runningFromTypeScript(): boolean {
  return import.meta.url.endsWith('.ts');
}

/**
 * Registers tsx (`tsx/esm/api`) unless a TypeScript loader is already active. Throws a clear error when
 * tsx is not installed.
 *
 * @example
 * ```ts
 * if (handlerFiles.some((f) => f.endsWith('.ts'))) await ensureTypeScriptLoader();
 * ```
 */
export async function ensureTypeScriptLoader(): Promise<void> {
  if (runningFromTypeScript()) return;
  const specifier = 'tsx/esm/api';
  let api: { register: () => unknown };
  try {
    api = (await import(specifier)) as { register: () => unknown };
  } catch (cause) {
    throw new RocketMQError(
      'TypeScript handlers need tsx: install it (npm install --save-dev tsx), or build the handlers and point serverless.yml at the .js files',
      { cause },
    );
  }
  api.register();
}
