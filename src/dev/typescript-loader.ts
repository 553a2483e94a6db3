/**
 * Lets `rocketmq-lambda dev` import TypeScript handlers when it runs from the built JavaScript (`npx
 * rocketmq-lambda dev`): registers tsx's ESM loader in-process. Not needed (and skipped) when dev itself
 * runs from TypeScript sources, i.e. a TypeScript loader is already active. Call it before creating the
 * `ReloadingInvoker`: its reload hook (module-reload-hooks.ts) must be registered after tsx to see the
 * files tsx resolves `.js` specifiers to. tsx is an optional peer dependency (src/util/optional-module.ts).
 */
import { DEV_LOOP_PACKAGES, importOptional } from '../util/optional-module.js';

/**
 * Whether this module was loaded from its `.ts` source (then a TypeScript loader is active). From the
 * demo's bundle (src/dev/demo-bundle.mjs) its URL is the source's with a `#bundled` fragment: no loader.
 */
export function runningFromTypeScript(): boolean {
  return import.meta.url.endsWith('.ts');
}

/**
 * Registers tsx (`tsx/esm/api`) unless a TypeScript loader is already active. Throws
 * OptionalModuleMissingError (naming what to install) when tsx is not installed.
 */
export async function ensureTypeScriptLoader(): Promise<void> {
  if (runningFromTypeScript()) return;
  const api = await importOptional<{ register: () => unknown }>('tsx/esm/api', DEV_LOOP_PACKAGES);
  api.register();
}
