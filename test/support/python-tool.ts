/**
 * Python command-line tools for tests (cfn-lint, moto's server): each installed once from PyPI into its own
 * cached virtualenv (`~/.cache/rocketmq-lambda/<name>-<version>`, see cached-tool.ts). A missing python3,
 * venv module or pip fails with a message that says what is missing; nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureCachedTool } from './cached-tool.js';

const run = promisify(execFile);

/**
 * A tool to install: the pip requirement (pinned) and the executable it provides.
 *
 * @example
 * ```ts
 * const tool: PythonTool = { name: 'cfn-lint', version: '1.58.0', requirement: 'cfn-lint==1.58.0', executable: 'cfn-lint' };
 * ```
 */
export interface PythonTool {
  readonly name: string;
  readonly version: string;
  readonly requirement: string;
  readonly executable: string;
}

/**
 * The path of the tool's executable, installing it on first use. (A venv cannot be moved, so it is built in
 * place and marked complete at the end; an interrupted install is rebuilt.)
 *
 * @example
 * ```ts
 * const binary = await ensurePythonTool(tool); // ~/.cache/rocketmq-lambda/cfn-lint-1.58.0/bin/cfn-lint
 * ```
 */
export function ensurePythonTool(tool: PythonTool): Promise<string> {
  return ensureCachedTool({
    name: tool.name,
    version: tool.version,
    binary: (dir) => venvBinary(dir, tool.executable),
    build: (dir, binary) => build(tool, dir, binary),
  });
}

function venvBinary(dir: string, name: string): string {
  return process.platform === 'win32'
    ? path.join(dir, 'Scripts', `${name}.exe`)
    : path.join(dir, 'bin', name);
}

async function build(tool: PythonTool, dir: string, binary: string): Promise<string> {
  const python = await findPython(tool.name);
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await run(python, ['-m', 'venv', dir]);
  } catch (cause) {
    throw new Error(
      `${tool.name} setup: "${python} -m venv" failed; install Python's venv module (Debian: apt-get install python3-venv)`,
      { cause },
    );
  }
  const pip = venvBinary(dir, 'pip');
  if (!existsSync(pip)) {
    throw new Error(`${tool.name} setup: the venv at ${dir} has no pip; install python3-pip (ensurepip)`);
  }
  try {
    await run(pip, ['install', '--quiet', '--disable-pip-version-check', tool.requirement], {
      timeout: 600_000,
    });
  } catch (cause) {
    throw new Error(`${tool.name} setup: pip could not install ${tool.requirement} from PyPI`, { cause });
  }
  if (!existsSync(binary)) {
    throw new Error(`${tool.name} setup: ${tool.requirement} installed no ${tool.executable} in ${dir}`);
  }
  return tool.requirement;
}

async function findPython(toolName: string): Promise<string> {
  for (const candidate of ['python3', 'python']) {
    try {
      const { stdout, stderr } = await run(candidate, ['--version']);
      if (/Python 3\./.test(`${stdout}${stderr}`)) return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`${toolName} setup: python3 is missing; install Python 3 (with venv and pip)`);
}
