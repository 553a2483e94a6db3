/**
 * Runs `serverless package` (osls, the Serverless Framework v3 line) on a copy of a fixture service in a
 * temp directory, with the plugin installed there as the package `rocketmq-lambda` whose `./serverless`
 * export loads this checkout's TypeScript source (through tsx). Dummy AWS credentials and region; no
 * network is needed (and proxies pointing nowhere make any attempt fail fast rather than hang).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installPluginShim, offlineServerlessEnv, SERVERLESS_BIN } from '../../support/serverless-cli.js';

/** The repository root. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
/** The plugin tests' fixture services. */
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test/fixtures/serverless');

/**
 * A compiled CloudFormation template (the parts the tests read).
 *
 * @example
 * ```ts
 * const type = result.template?.Resources.RocketMQOffsetsTable?.Type;
 * ```
 */
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; [key: string]: unknown }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/**
 * The outcome of one `serverless package`.
 *
 * @example
 * ```ts
 * const result: PackageResult = await packageFixture('minimal');
 * ```
 */
export interface PackageResult {
  readonly fixture: string;
  /** The temp copy the Framework ran in. */
  readonly dir: string;
  readonly exitCode: number;
  /** stdout and stderr together (osls writes its errors to either). */
  readonly output: string;
  readonly durationMs: number;
  /** `.serverless/cloudformation-template-update-stack.json`, when the command produced it. */
  readonly templateFile: string | undefined;
  readonly template: Template | undefined;
  /** Removes the temp copy. */
  cleanup(): Promise<void>;
}

/**
 * How to run the Framework on a fixture (default: `package --stage test`, the test's PATH).
 *
 * @example
 * ```ts
 * const options: FixtureRunOptions = { args: ['deploy', '--stage', 'test'], path: pathWithout('docker') };
 * ```
 */
export interface FixtureRunOptions {
  readonly args?: readonly string[];
  /** The PATH of the Framework's process. */
  readonly path?: string | undefined;
  /** Files to add to the copy before the run: relative path → content. */
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * Copies fixture `name` to a temp directory, installs the plugin shim, and runs `serverless package
 * --stage test` there (or the command of `options`).
 *
 * @example
 * ```ts
 * const result = await packageFixture('minimal');
 * try { expect(result.exitCode).toBe(0) } finally { await result.cleanup() }
 * ```
 */
export async function packageFixture(name: string, options: FixtureRunOptions = {}): Promise<PackageResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `rmq-sls-${name}-`));
  await cp(path.join(FIXTURES_DIR, name), dir, { recursive: true });
  for (const [file, content] of Object.entries(options.files ?? {})) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  await installPluginShim(dir);
  const startedAt = Date.now();
  const { exitCode, output } = await runServerless(
    dir,
    options.args ?? ['package', '--stage', 'test'],
    options.path ?? process.env.PATH,
  );
  const durationMs = Date.now() - startedAt;
  const templateFile = path.join(dir, '.serverless', 'cloudformation-template-update-stack.json');
  let template: Template | undefined;
  try {
    template = JSON.parse(await readFile(templateFile, 'utf8')) as Template;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return {
    fixture: name,
    dir,
    exitCode,
    output,
    durationMs,
    templateFile: template === undefined ? undefined : templateFile,
    template,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

function runServerless(
  cwd: string,
  args: readonly string[],
  searchPath: string | undefined,
): Promise<{ exitCode: number; output: string }> {
  const env = offlineServerlessEnv(searchPath);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SERVERLESS_BIN, ...args],
      { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (error === null) {
          resolve({ exitCode: 0, output });
          return;
        }
        if (typeof error.code === 'number') {
          resolve({ exitCode: error.code, output });
          return;
        }
        reject(
          new Error(`serverless ${args.join(' ')} did not finish: ${error.message}\n${output}`, {
            cause: error,
          }),
        );
      },
    );
  });
}

/**
 * The test's PATH without the directories that hold `command` (to run the Framework as on a machine
 * without it).
 *
 * @example
 * ```ts
 * const path = pathWithout('docker');
 * ```
 */
export function pathWithout(command: string): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '' && !existsSync(path.join(dir, command)))
    .join(path.delimiter);
}

/**
 * The names of the entries of a zip file (from its central directory).
 *
 * @example
 * ```ts
 * const names = await zipEntryNames('.serverless/rmq-minimal.zip'); // => ['handler.js', 'package.json']
 * ```
 */
export async function zipEntryNames(file: string): Promise<string[]> {
  const zip = await readFile(file);
  const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
  const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < 0) throw new Error(`${file} is not a zip file`);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY)
      throw new Error(`${file}: bad central directory`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    names.push(zip.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}
