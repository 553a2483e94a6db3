/**
 * `npm run test:matrix`: runs the integration tests once per RocketMQ broker version
 * (`ROCKETMQ_LAMBDA_BROKER_VERSION` set per run, so test/setup/global-setup.ts starts that version),
 * then prints a table (version, suite passed, passed, failed, skipped, excluded files, duration) and
 * writes it with the failed tests and the declared exclusions to
 * `.rocketmq-lambda/broker-matrix/results.md`.
 *
 *   npm run test:matrix                              # the wire subset, every version
 *   npm run test:matrix -- --full                    # the whole integration project (~17 min a version)
 *   npm run test:matrix -- --versions 4.9.7,5.5.1    # some versions only
 *
 * Versions run one after another (one broker at a time on a small machine); before each run the
 * runner waits, up to 10 minutes, while the 1-minute load average is above 8.
 * Exit code 0 only when every version's suite passed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { BROKER_VERSION_ENV, type BrokerVersionName } from '../../src/local-broker/broker-version.js';
import {
  excludeGlob,
  exclusionsFor,
  type MatrixRow,
  type MatrixScope,
  matrixPaths,
  mergeMatrixRows,
  parseVersions,
  renderMatrixTable,
} from './matrix-plan.js';

/** Under the (git-ignored) local state directory. */
const OUT_DIR = '.rocketmq-lambda/broker-matrix';
/** vitest.config.ts with the JSON report going to the runner's file. */
const MATRIX_VITEST_CONFIG = 'test/matrix/vitest.matrix.config.ts';
const MAX_LOAD = 8;
const LOAD_WAIT_MAX_MS = 10 * 60_000;
const LOAD_POLL_MS = 30_000;

interface VitestJsonReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: {
    name: string;
    message?: string;
    assertionResults?: { fullName: string; status: string }[];
  }[];
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { versions: { type: 'string' }, full: { type: 'boolean', default: false } },
  });
  const versions = parseVersions(values.versions);
  const scope: MatrixScope = values.full ? 'full' : 'wire';
  await mkdir(OUT_DIR, { recursive: true });
  const rows: MatrixRow[] = [];
  for (const version of versions) {
    await waitForLowLoad();
    rows.push(await runVersion(version, scope));
    await writeResults(rows);
  }
  process.stdout.write(`\nbroker version matrix (${scope} scope):\n\n${renderMatrixTable(rows)}`);
  process.stdout.write(
    `details, with the latest rows of versions not run now: ${join(OUT_DIR, 'results.md')}\n`,
  );
  return rows.every((row) => row.suitePassed) ? 0 : 1;
}

async function waitForLowLoad(): Promise<void> {
  const giveUpAt = Date.now() + LOAD_WAIT_MAX_MS;
  while ((loadavg()[0] ?? 0) > MAX_LOAD && Date.now() < giveUpAt) {
    process.stdout.write(`[matrix] load ${(loadavg()[0] ?? 0).toFixed(1)} > ${MAX_LOAD}: waiting\n`);
    await sleep(LOAD_POLL_MS);
  }
}

async function runVersion(version: BrokerVersionName, scope: MatrixScope): Promise<MatrixRow> {
  const reportFile = join(OUT_DIR, `${version}.json`);
  await rm(reportFile, { force: true });
  const exclusions = exclusionsFor(version, scope);
  const args = [
    'vitest',
    'run',
    '--config',
    MATRIX_VITEST_CONFIG,
    '--project',
    'integration',
    ...exclusions.flatMap((exclusion) => ['--exclude', excludeGlob(exclusion)]),
    ...matrixPaths(scope),
  ];
  process.stdout.write(`\n[matrix] ${version}: npx ${args.join(' ')}\n`);
  const startedAt = Date.now();
  const exitCode = await run('npx', args, {
    ...process.env,
    [BROKER_VERSION_ENV]: version,
    BROKER_MATRIX_REPORT: reportFile,
  });
  const durationMs = Date.now() - startedAt;
  const base = {
    version,
    excluded: exclusions.length,
    durationMs,
    scope,
    finishedAt: new Date().toISOString(),
  };
  if (!existsSync(reportFile)) {
    return {
      ...base,
      passed: 0,
      failed: 0,
      skipped: 0,
      suitePassed: false,
      error: `vitest exited ${String(exitCode)} without a report (global setup failed?)`,
      failedTests: [],
    };
  }
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as VitestJsonReport;
  const failedTests = (report.testResults ?? []).flatMap((file) => [
    ...(file.assertionResults ?? []).filter((t) => t.status === 'failed').map((t) => t.fullName),
    // A file that failed to load or whose hooks failed has a message and maybe no failed test.
    ...((file.assertionResults ?? []).length === 0 && file.message ? [`${file.name}: ${file.message}`] : []),
  ]);
  const failed = report.numFailedTests ?? 0;
  return {
    ...base,
    passed: report.numPassedTests ?? 0,
    failed,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    suitePassed: exitCode === 0 && failed === 0,
    error: exitCode !== 0 && failed === 0 ? `vitest exited ${String(exitCode)} outside any test` : undefined,
    failedTests,
  };
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

/** Writes `rows.json` (this run's rows merged over earlier ones) and `results.md` from it. */
async function writeResults(rows: readonly MatrixRow[]): Promise<void> {
  const rowsFile = join(OUT_DIR, 'rows.json');
  const earlier = existsSync(rowsFile) ? (JSON.parse(await readFile(rowsFile, 'utf8')) as MatrixRow[]) : [];
  const merged = mergeMatrixRows(earlier, rows);
  await writeFile(rowsFile, `${JSON.stringify(merged, null, 2)}\n`);
  const parts = ['# Broker version matrix\n\n', renderMatrixTable(merged)];
  for (const row of merged) {
    parts.push(`\n## ${row.version} (${row.scope} scope, ${row.finishedAt})\n\n`);
    if (row.error !== undefined) parts.push(`Error: ${row.error}\n\n`);
    for (const exclusion of exclusionsFor(row.version, row.scope)) {
      parts.push(`- excluded ${exclusion.path}: ${exclusion.reason}\n`);
    }
    for (const name of row.failedTests) parts.push(`- failed: ${name}\n`);
  }
  await writeFile(join(OUT_DIR, 'results.md'), parts.join(''));
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
