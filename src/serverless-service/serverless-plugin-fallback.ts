/**
 * This package's own Serverless plugin, made findable for the Framework that `dev` runs for
 * `serverless print`: a `rocketmq-lambda` package in a directory put on the Framework's NODE_PATH, whose
 * `./serverless` export loads the plugin of the rocketmq-lambda that runs `dev`. The Framework looks there
 * only when the service cannot resolve `rocketmq-lambda/serverless` itself: a clone run from its sources
 * (no dist/ build), or a `dev` installed elsewhere than the service.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package name the service's `plugins:` list names. */
const PACKAGE_NAME = 'rocketmq-lambda';

/**
 * Writes the fallback package under `dir` and returns the directory to put on NODE_PATH.
 */
export async function writePluginFallback(dir: string): Promise<string> {
  const packageDir = path.join(dir, PACKAGE_NAME);
  await mkdir(packageDir, { recursive: true });
  const built = fileURLToPath(new URL('../serverless/index.js', import.meta.url));
  const entry = existsSync(built) ? esmEntry(built) : sourceEntry();
  await writeFile(
    path.join(packageDir, 'package.json'),
    `${JSON.stringify(
      {
        name: PACKAGE_NAME,
        private: true,
        description: 'Written by rocketmq-lambda dev: loads its Serverless plugin for `serverless print`.',
        exports: { './serverless': { default: `./${entry.file}` } },
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(path.join(packageDir, entry.file), entry.text);
  return dir;
}

/** The built plugin (an ES module; the Framework imports it when require refuses). */
function esmEntry(built: string): { file: string; text: string } {
  return {
    file: 'serverless.mjs',
    text: `export { default } from ${JSON.stringify(pathToFileURL(built).href)};\n`,
  };
}

/** The TypeScript source, loaded through tsx's scoped CommonJS loader (dev itself runs under tsx then). */
function sourceEntry(): { file: string; text: string } {
  const source = fileURLToPath(new URL('../serverless/index.ts', import.meta.url));
  const tsxApi = createRequire(import.meta.url).resolve('tsx/cjs/api');
  return {
    file: 'serverless.cjs',
    text: [
      `const { require: tsxRequire } = require(${JSON.stringify(tsxApi)});`,
      `module.exports = tsxRequire(${JSON.stringify(source)}, __filename);`,
      '',
    ].join('\n'),
  };
}
