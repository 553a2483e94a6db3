/**
 * A throwaway serverless service for the dev loop's integration tests: a temporary directory with a
 * `package.json` of `"type": "module"`, the handler sources given, and a serverless.yml of the lines
 * given. The tests that run `rocketmq-lambda dev` on their own service (dev-reload, dev-console,
 * console-page) all start from one.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DevProcess } from './dev-process.js';

/** A written service: where it is, and how to remove it. */
export interface TempService {
  readonly dir: string;
  /** `<dir>/serverless.yml`. */
  readonly configFile: string;
  /** `<dir>/<relative path>`. */
  file(relativePath: string): string;
  remove(): Promise<void>;
}

/**
 * Writes a service under a new temporary directory named after `name`: each of `files` (paths relative to
 * the service, directories made as needed) and serverless.yml from `serverlessYml` (one entry per line).
 *
 * @example
 * ```ts
 * const service = await writeTempService('reload', { 'src/greeter.ts': HANDLER }, ['service: reload-test', ...]);
 * cleanups.push(() => service.remove());
 * ```
 */
export async function writeTempService(
  name: string,
  files: Readonly<Record<string, string>>,
  serverlessYml: readonly string[],
): Promise<TempService> {
  const dir = await mkdtemp(path.join(tmpdir(), `rocketmq-lambda-${name}-`));
  const file = (relativePath: string): string => path.join(dir, relativePath);
  await writeFile(file('package.json'), '{ "type": "module" }\n');
  for (const [relativePath, content] of Object.entries(files)) {
    await mkdir(path.dirname(file(relativePath)), { recursive: true });
    await writeFile(file(relativePath), content);
  }
  const configFile = file('serverless.yml');
  await writeFile(configFile, `${serverlessYml.join('\n')}\n`);
  return { dir, configFile, file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** `console: http://127.0.0.1:<port>/ ...`, the line dev prints with its first lines. */
const CONSOLE_LINE = /^console: (http:\/\/127\.0\.0\.1:\d+\/)/;

/** The console's address dev printed (with its trailing `/`), or undefined while it printed none. */
export function printedConsoleUrl(dev: DevProcess): string | undefined {
  for (const line of dev.watch.raw) {
    const url = CONSOLE_LINE.exec(line)?.[1];
    if (url !== undefined) return url;
  }
  return undefined;
}
