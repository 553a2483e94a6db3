/**
 * Whole-graph reload for `rocketmq-lambda dev`. Node.js caches an ES module by its URL, so importing a
 * handler as `file:///app/src/orders.ts?rocketmq-lambda-reload=<tag>` with a new tag evaluates the handler
 * file again, but not the modules it imports. The resolve hook registered here (once per process, with
 * `module.register`) passes the tag on: a module whose URL carries a tag gets its local imports (any
 * `file:` URL outside `node_modules`) resolved with the same tag, so a new tag evaluates the handler's whole
 * local module graph afresh, while packages under `node_modules` stay shared. Modules without a tag (the
 * dev command's own) are never touched.
 *
 * CommonJS modules are cached by file name in `require.cache`, which no ESM hook reaches:
 * {@link purgeLocalCommonJsCache} forgets the local ones so that a new tag requires them again.
 *
 * Nothing is ever unloaded: every reload leaves the previous graph in memory (acceptable for a dev loop).
 */
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The URL query parameter that carries a reload tag.
 */
export const RELOAD_TAG_PARAM = 'rocketmq-lambda-reload';

/**
 * The hooks module, plain JavaScript so that it loads the same way whether dev runs from its TypeScript
 * sources or from the build. It runs on Node's loader thread and keeps no state: the tag travels in URLs.
 */
const HOOKS_SOURCE = `
const PARAM = ${JSON.stringify(RELOAD_TAG_PARAM)};
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const parentURL = context.parentURL;
  if (parentURL === undefined || !parentURL.startsWith('file:') || !resolved.url.startsWith('file:')) {
    return resolved;
  }
  const tag = new URL(parentURL).searchParams.get(PARAM);
  if (tag === null) return resolved;
  const url = new URL(resolved.url);
  if (url.searchParams.has(PARAM) || url.pathname.includes('/node_modules/')) return resolved;
  url.searchParams.set(PARAM, tag);
  return { ...resolved, url: url.href };
}
`;

let installed = false;

/**
 * Registers the reload resolve hook (once per process; later calls do nothing). Register it after any
 * TypeScript loader (tsx), so that it sees the files that loader resolves `.js` specifiers to.
 */
export function installReloadHooks(): void {
  if (installed) return;
  register(`data:text/javascript,${encodeURIComponent(HOOKS_SOURCE)}`);
  installed = true;
}

/**
 * The `file:` URL of `file` (absolute) with a reload tag: importing it (with {@link installReloadHooks}
 * done) evaluates `file` and its local imports once per distinct tag.
 */
export function taggedModuleUrl(file: string, tag: string): string {
  const url = pathToFileURL(file);
  url.searchParams.set(RELOAD_TAG_PARAM, tag);
  return url.href;
}

/**
 * `text` with reload tags removed from the module URLs it mentions (for error messages a user reads).
 */
export function withoutReloadTags(text: string): string {
  return text.replace(new RegExp(`[?&]${RELOAD_TAG_PARAM}=[\\w.-]*`, 'g'), '');
}

/**
 * Forgets every CommonJS module in `require.cache` that is not under `node_modules`, so that the next
 * tagged import of a CommonJS handler requires its local files again. Returns how many were forgotten.
 */
export function purgeLocalCommonJsCache(): number {
  const cache = createRequire(import.meta.url).cache;
  let forgotten = 0;
  for (const file of Object.keys(cache)) {
    if (file.split(path.sep).includes('node_modules')) continue;
    delete cache[file];
    forgotten++;
  }
  return forgotten;
}
