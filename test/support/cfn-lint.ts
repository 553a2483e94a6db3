/**
 * cfn-lint for tests: installed once from PyPI into a cached virtualenv
 * (`~/.cache/rocketmq-lambda/cfn-lint-<version>`, see {@link ensurePythonTool}), then run on template files.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensurePythonTool, type PythonTool } from './python-tool.js';

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

/** cfn-lint, as {@link ensurePythonTool} installs it. */
const CFN_LINT: PythonTool = {
  name: 'cfn-lint',
  version: CFN_LINT_VERSION,
  requirement: `cfn-lint==${CFN_LINT_VERSION}`,
  executable: 'cfn-lint',
};

/**
 * The path of the cfn-lint executable, installing it on first use.
 *
 * @example
 * ```ts
 * const binary = await ensureCfnLint(); // ~/.cache/rocketmq-lambda/cfn-lint-1.58.0/bin/cfn-lint
 * ```
 */
export function ensureCfnLint(): Promise<string> {
  return ensurePythonTool(CFN_LINT);
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
