/**
 * cfn-lint for tests: installed once from PyPI into a cached virtualenv
 * (`~/.cache/rocketmq-lambda/cfn-lint-<version>`), then run on template files. A missing python3, venv
 * module or pip fails with a message that says what is missing; nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The cfn-lint release the tests pin. */
export const CFN_LINT_VERSION = '1.58.0';

/**
 * One finding of cfn-lint (its JSON output).
 *
 * @example
 * ```ts
 * const finding: CfnLintFinding = { Rule: { Id: 'E3002' }, Level: 'Error', Message: '...', Filename: 't.yml' };
 * ```
 */
export interface CfnLintFinding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Filename: string;
}

function venvDir(): string {
  const base = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(base, 'rocketmq-lambda', `cfn-lint-${CFN_LINT_VERSION}`);
}

function cfnLintBinary(dir: string): string {
  return process.platform === 'win32'
    ? path.join(dir, 'Scripts', 'cfn-lint.exe')
    : path.join(dir, 'bin', 'cfn-lint');
}

let installing: Promise<string> | undefined;

/** Written into the venv once pip succeeded: a venv without it is a broken install, rebuilt. */
const INSTALLED_MARKER = '.rocketmq-lambda-installed';

/**
 * The path of the cfn-lint executable, installing it on first use. (A venv cannot be moved, so it is built
 * in place and marked complete at the end; an interrupted install is rebuilt.)
 *
 * @example
 * ```ts
 * const binary = await ensureCfnLint(); // ~/.cache/rocketmq-lambda/cfn-lint-1.58.0/bin/cfn-lint
 * ```
 */
export function ensureCfnLint(): Promise<string> {
  installing ??= install();
  return installing;
}

async function install(): Promise<string> {
  const dir = venvDir();
  const binary = cfnLintBinary(dir);
  if (existsSync(path.join(dir, INSTALLED_MARKER)) && existsSync(binary)) return binary;
  const python = await findPython();
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await run(python, ['-m', 'venv', dir]);
  } catch (cause) {
    throw new Error(
      `cfn-lint setup: "${python} -m venv" failed; install Python's venv module (Debian: apt-get install python3-venv)`,
      { cause },
    );
  }
  const pip =
    process.platform === 'win32' ? path.join(dir, 'Scripts', 'pip.exe') : path.join(dir, 'bin', 'pip');
  if (!existsSync(pip)) {
    throw new Error(`cfn-lint setup: the venv at ${dir} has no pip; install python3-pip (ensurepip)`);
  }
  try {
    await run(pip, ['install', '--quiet', '--disable-pip-version-check', `cfn-lint==${CFN_LINT_VERSION}`], {
      timeout: 600_000,
    });
  } catch (cause) {
    throw new Error(`cfn-lint setup: pip could not install cfn-lint==${CFN_LINT_VERSION} from PyPI`, {
      cause,
    });
  }
  await writeFile(path.join(dir, INSTALLED_MARKER), `cfn-lint==${CFN_LINT_VERSION}\n`);
  return binary;
}

async function findPython(): Promise<string> {
  for (const candidate of ['python3', 'python']) {
    try {
      const { stdout, stderr } = await run(candidate, ['--version']);
      if (/Python 3\./.test(`${stdout}${stderr}`)) return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(
    'cfn-lint setup: python3 is missing; install Python 3 (with venv and pip) to lint templates',
  );
}

/**
 * Runs cfn-lint on `files`; resolves with every finding (errors, warnings and informational), so tests can
 * assert that the list is empty and print it when not.
 *
 * @example
 * ```ts
 * expect(await cfnLint(['infra/cloudformation/poller.yml'])).toEqual([]);
 * ```
 */
export async function cfnLint(files: readonly string[]): Promise<CfnLintFinding[]> {
  const binary = await ensureCfnLint();
  try {
    await run(binary, ['--format', 'json', '--', ...files], { maxBuffer: 16 * 1024 * 1024 });
    return [];
  } catch (error) {
    // cfn-lint exits non-zero (2 errors, 4 warnings, 8 informational, sums thereof) when it finds anything.
    const failure = error as { stdout?: string; stderr?: string; code?: unknown };
    if (
      typeof failure.code === 'number' &&
      failure.stdout !== undefined &&
      failure.stdout.trim().startsWith('[')
    ) {
      return JSON.parse(failure.stdout) as CfnLintFinding[];
    }
    throw new Error(`cfn-lint failed to run: ${failure.stderr ?? String(error)}`, { cause: error });
  }
}

/**
 * Findings as readable lines for assertion messages.
 *
 * @example
 * ```ts
 * formatFindings(findings); // => 'E3002 t.yml: ...'
 * ```
 */
export function formatFindings(findings: readonly CfnLintFinding[]): string {
  return findings.map((f) => `${f.Rule.Id} ${f.Level} ${f.Filename}: ${f.Message}`).join('\n');
}
