/**
 * The GitHub Actions workflows pass actionlint (with shellcheck on every `run:` script): expression and
 * context types, action inputs, permissions, runner labels, shell quoting. GitHub is not reachable from
 * here, so this is the check the release workflow gets before its first tag. actionlint checks the
 * inputs of actions it knows only by tag, so each workflow is linted a second time with its pinned commits
 * read as their releases' major tags. A deliberately broken workflow shows that the checks really run.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { asReleaseTags, runActionlint } from '../../support/actionlint.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** The first run builds actionlint from source and installs shellcheck. */
const INSTALL_TIMEOUT_MS = 600_000;

/** A workflow with one input typo (seen through the tag) and one shellcheck finding. */
const BROKEN_WORKFLOW = `name: broken
on: push
jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/setup-node@48b55a011bda9f5d6aeb4c2d9c7362e8dae4041e # v6.4.0
        with:
          node-versionn: "22"
      - run: echo $UNQUOTED_PATH
        env:
          UNQUOTED_PATH: \${{ github.workspace }}
`;

async function workflowFiles(): Promise<string[]> {
  const files = await readdir(path.join(REPO, '.github/workflows'));
  return files
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => path.posix.join('.github/workflows', file));
}

/** A temp directory removed when the test ends. */
async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-actionlint-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('.github/workflows', () => {
  it(
    'every workflow passes actionlint and shellcheck',
    async () => {
      const files = await workflowFiles();
      expect(files).toContain('.github/workflows/release.yml');
      const { exitCode, output } = await runActionlint(files, REPO);
      expect(output).toBe('');
      expect(exitCode).toBe(0);
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    "passes again with its pinned commits read as their releases' tags, so the actions' inputs are checked",
    async () => {
      const dir = await scratchDir();
      const copies: string[] = [];
      let rewritten = 0;
      for (const file of await workflowFiles()) {
        const copy = asReleaseTags(await readFile(path.join(REPO, file), 'utf8'));
        rewritten += copy.rewritten;
        await writeFile(path.join(dir, path.basename(file)), copy.text);
        copies.push(path.basename(file));
      }
      expect(rewritten).toBeGreaterThan(0);
      const { exitCode, output } = await runActionlint(copies, dir);
      expect(output).toBe('');
      expect(exitCode).toBe(0);
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    'a broken workflow fails both linters',
    async () => {
      const dir = await scratchDir();
      await writeFile(path.join(dir, 'broken.yml'), asReleaseTags(BROKEN_WORKFLOW).text);
      const { exitCode, output } = await runActionlint(['broken.yml'], dir);
      expect(exitCode).toBe(1);
      expect(output).toMatch(/input "node-versionn" is not defined in action "actions\/setup-node@/);
      expect(output).toMatch(/shellcheck reported issue in this script: SC2086/);
    },
    INSTALL_TIMEOUT_MS,
  );
});
