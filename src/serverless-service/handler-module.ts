/**
 * Where a serverless.yml `handler` (`dist/examples/orders.handler`) lives on disk for `rocketmq-lambda dev`:
 * the TypeScript source is preferred, so handlers run without a build step.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RocketMQError } from '../errors.js';

/**
 * A handler's module file (absolute) and export name.
 */
export interface HandlerModule {
  readonly file: string;
  readonly exportName: string;
}

const EXTENSIONS = ['.js', '.mjs', '.ts'] as const;

/**
 * Resolves `handler` (`<path without extension>.<export>`) against the service directory:
 * `dist/X` → `src/X.ts` when that file exists (the TypeScript twin wins over the build output, which may be
 * stale or missing); otherwise `<path>.js`, `.mjs`, `.ts`, the first that exists. Throws when none does,
 * naming every file tried.
 */
export function resolveHandlerModule(
  handler: string,
  serviceDir: string,
  exists: (file: string) => boolean = existsSync,
): HandlerModule {
  const dot = handler.lastIndexOf('.');
  const slash = handler.lastIndexOf('/');
  if (dot <= slash + 1 || dot === handler.length - 1) {
    throw new RocketMQError(
      `handler ${JSON.stringify(handler)} is not <path>.<export> (e.g. src/orders.handler)`,
    );
  }
  const modulePath = path.normalize(handler.slice(0, dot));
  const exportName = handler.slice(dot + 1);
  const candidates: string[] = [];
  const [first, ...rest] = modulePath.split(path.sep);
  if (first === 'dist' && rest.length > 0) candidates.push(`${path.join('src', ...rest)}.ts`);
  for (const extension of EXTENSIONS) candidates.push(`${modulePath}${extension}`);
  for (const candidate of candidates) {
    const file = path.resolve(serviceDir, candidate);
    if (exists(file)) return { file, exportName };
  }
  throw new RocketMQError(
    `handler ${JSON.stringify(handler)}: no module found (tried ${candidates.join(', ')} in ${serviceDir})`,
  );
}
