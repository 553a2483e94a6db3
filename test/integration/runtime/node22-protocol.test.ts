/**
 * The protocol layer's unit tests on Node 22, the runtime of the container image: there zstd bodies go
 * to the built-in libzstd (src/protocol/zstd.ts), a path Node 20 cannot take. vitest runs in a child
 * Node 22 over test/unit/protocol and writes its JSON report to a temp file (VITEST_JSON_REPORT, see
 * vitest.config.ts), which is read here.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { ensureNode22, NODE22_VERSION } from '../../support/node22.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

let dir: string | undefined;
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

it(`test/unit/protocol passes on Node ${NODE22_VERSION}, zstd through the built-in libzstd`, async () => {
  const node = await ensureNode22();
  dir = await mkdtemp(path.join(os.tmpdir(), 'node22-protocol-'));
  const reportFile = path.join(dir, 'report.json');
  const vitest = path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [vitest, 'run', '--project', 'unit', 'test/unit/protocol', '--typecheck.enabled=false'];
  args.push('--maxWorkers=1');
  const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      node,
      args,
      {
        cwd: REPO,
        env: { ...process.env, VITEST_JSON_REPORT: reportFile },
        timeout: 240_000,
        maxBuffer: 64 << 20,
      },
      (error, _stdout, stderr) => {
        resolve({
          code: error === null ? 0 : Number((error as { code?: unknown }).code ?? 1),
          output: `${stderr}`,
        });
      },
    );
  });
  const report = JSON.parse(await readFile(reportFile, 'utf8').catch(() => '{}')) as Partial<JsonReport>;
  const results = (report.testResults ?? []).flatMap((file) => file.assertionResults);
  const failures = results
    .filter((r) => r.status === 'failed')
    .map((r) => `${r.fullName}: ${r.failureMessages[0] ?? ''}`);
  expect(failures, outcome.output.slice(-2000)).toEqual([]);
  expect(outcome.code, outcome.output.slice(-2000)).toBe(0);
  expect(report.numPassedTests ?? 0).toBeGreaterThan(250);
  const native = results.filter((r) => r.fullName.includes("through 'native libzstd'"));
  expect(native.length).toBeGreaterThanOrEqual(7);
  expect(native.every((r) => r.status === 'passed')).toBe(true);
  expect(results.find((r) => r.fullName.includes('uses native zstd exactly'))?.fullName).toMatch(
    /: native\)/,
  );
}, 300_000);
