/**
 * What the broker version matrix (test/matrix/broker-matrix.ts, `npm run test:matrix`) runs per version:
 * which integration test files (the wire subset or the whole project), which files a version cannot run
 * (declared here with the reason, never skipped silently), and how a row of the results table reads.
 * Pure: no I/O.
 */
import {
  BROKER_VERSIONS,
  type BrokerVersionName,
  brokerVersionProfile,
} from '../../src/local-broker/broker-version.js';

/** Which integration tests one matrix run covers. */
export type MatrixScope = 'wire' | 'full';

/**
 * The wire-relevant subset: everything that talks to the broker through our client (requests,
 * responses, consume loop, offsets, broker faults) and the launcher's own check. The whole integration
 * project takes ~17 minutes per version on a 2-core machine; this takes a fraction, and leaves out
 * what does not depend on the broker version (deploy, packaging, serverless, dev loop, Lambda faults).
 *
 * @example
 * ```ts
 * matrixPaths('wire') // => ['test/integration/client', ...]
 * ```
 */
export const WIRE_SUBSET: readonly string[] = [
  'test/integration/local-broker.test.ts',
  'test/integration/client',
  'test/integration/consumer',
  'test/integration/offsets',
  'test/integration/faults/broker-sigkill.test.ts',
  'test/integration/faults/broker-wipe.test.ts',
];

/** A test file one version cannot run, and why. */
export interface MatrixExclusion {
  /** Path relative to the repository root (a file or a directory). */
  path: string;
  reason: string;
}

const NO_ACL2 = 'RocketMQ 4.x has no ACL 2.0 (only ACL 1, plain_acl.yml); the launcher refuses `acl` on it';
const NO_ACL2_551 =
  "Maven Central lacks rocketmq-auth 5.5.1; the 5.5.1 broker with auth 5.5.0 fails every ACL'd request " +
  '(NoSuchMethodError in AuthorizationPipeline), so the launcher refuses `acl` on it';
const NO_POP =
  'RocketMQ 4.x has no POP consumption (POP_MESSAGE / ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME)';

/**
 * Files a version cannot run, declared with their reason. Tests of another scope are listed too; the
 * runner passes only those inside its paths to vitest as `--exclude`.
 *
 * @example
 * ```ts
 * MATRIX_EXCLUSIONS['4.9.7'].map((e) => e.path) // => ['test/integration/client/acl.test.ts', ...]
 * ```
 */
export const MATRIX_EXCLUSIONS: Readonly<Record<BrokerVersionName, readonly MatrixExclusion[]>> = {
  '5.3.3': [],
  '5.5.1': [
    { path: 'test/integration/client/acl.test.ts', reason: NO_ACL2_551 },
    { path: 'test/integration/faults/acl-refused.test.ts', reason: NO_ACL2_551 },
    { path: 'test/integration/cluster/cluster-tls-acl.test.ts', reason: NO_ACL2_551 },
  ],
  '4.9.7': [
    { path: 'test/integration/client/acl.test.ts', reason: NO_ACL2 },
    { path: 'test/integration/faults/acl-refused.test.ts', reason: NO_ACL2 },
    { path: 'test/integration/pop', reason: NO_POP },
    { path: 'test/integration/cluster/cluster-tls-acl.test.ts', reason: NO_ACL2 },
  ],
  '5.3.3-proxy': [
    {
      path: 'test/integration/local-broker.test.ts',
      reason:
        "checks that the launcher's namesrv routes TBW102 to the broker's own address; behind the proxy " +
        'the route names the proxy instead, by design (the proxy launcher checks that route when it starts)',
    },
  ],
};

/**
 * The vitest path filters of a scope.
 *
 * @example
 * ```ts
 * matrixPaths('full') // => ['test/integration']
 * ```
 */
export function matrixPaths(scope: MatrixScope): readonly string[] {
  return scope === 'full' ? ['test/integration'] : WIRE_SUBSET;
}

/**
 * The exclusions of `version` that fall inside the paths of `scope`.
 *
 * @example
 * ```ts
 * exclusionsFor('4.9.7', 'wire').map((e) => e.path) // => ['test/integration/client/acl.test.ts']
 * ```
 */
export function exclusionsFor(version: BrokerVersionName, scope: MatrixScope): MatrixExclusion[] {
  const paths = matrixPaths(scope);
  return MATRIX_EXCLUSIONS[version].filter((exclusion) =>
    paths.some((path) => exclusion.path === path || exclusion.path.startsWith(`${path}/`)),
  );
}

/**
 * The vitest `--exclude` glob of an excluded path (a directory covers everything below it).
 *
 * @example
 * ```ts
 * excludeGlob({ path: 'test/integration/pop', reason }) // => 'test/integration/pop/**'
 * ```
 */
export function excludeGlob(exclusion: MatrixExclusion): string {
  return exclusion.path.endsWith('.ts') ? exclusion.path : `${exclusion.path}/**`;
}

/**
 * Parses a `--versions` value (comma-separated; empty means all). Throws naming the allowed values.
 *
 * @example
 * ```ts
 * parseVersions('4.9.7,5.5.1') // => ['4.9.7', '5.5.1']
 * ```
 */
export function parseVersions(value: string | undefined): BrokerVersionName[] {
  if (value === undefined || value.trim() === '') return [...BROKER_VERSIONS];
  return value.split(',').map((raw) => {
    const name = raw.trim();
    if (!(BROKER_VERSIONS as readonly string[]).includes(name)) {
      throw new Error(
        `unknown broker version ${JSON.stringify(name)}; allowed: ${BROKER_VERSIONS.join(', ')}`,
      );
    }
    return brokerVersionProfile(name as BrokerVersionName).name;
  });
}

/** The outcome of one version's run. */
export interface MatrixRow {
  version: BrokerVersionName;
  passed: number;
  failed: number;
  skipped: number;
  /** Files left out by {@link MATRIX_EXCLUSIONS}. */
  excluded: number;
  durationMs: number;
  /** False also when vitest failed outside any test (setup, a broken file) or wrote no report. */
  suitePassed: boolean;
  /** Why the run failed outside tests (no report, global setup error), when it did. */
  error?: string | undefined;
  /** Full names of the failed tests. */
  failedTests: string[];
  /** The scope the row was run with. */
  scope: MatrixScope;
  /** ISO time the run ended. */
  finishedAt: string;
}

/**
 * `earlier` with the rows of `latest` replacing those of the same version, in {@link BROKER_VERSIONS}
 * order: a run of some versions updates their rows and keeps the others'.
 *
 * @example
 * ```ts
 * mergeMatrixRows(previousRows, [row4_9_7]).map((row) => row.version) // => ['5.3.3', '5.5.1', '4.9.7', ...]
 * ```
 */
export function mergeMatrixRows(earlier: readonly MatrixRow[], latest: readonly MatrixRow[]): MatrixRow[] {
  const byVersion = new Map<BrokerVersionName, MatrixRow>();
  for (const row of [...earlier, ...latest]) byVersion.set(row.version, row);
  return BROKER_VERSIONS.flatMap((version) => {
    const row = byVersion.get(version);
    return row === undefined ? [] : [row];
  });
}

/**
 * The results as a Markdown table: version, suite passed, passed, failed, skipped, excluded files,
 * duration.
 *
 * @example
 * ```ts
 * console.log(renderMatrixTable(rows));
 * ```
 */
export function renderMatrixTable(rows: readonly MatrixRow[]): string {
  const lines = [
    '| Broker version | Suite passed | Passed | Failed | Skipped | Excluded files | Duration |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.version} | ${row.suitePassed ? 'yes' : 'no'} | ${row.passed} | ${row.failed} | ${row.skipped} | ` +
        `${row.excluded} | ${formatDuration(row.durationMs)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `m:ss` of a duration.
 *
 * @example
 * ```ts
 * formatDuration(125_000) // => '2:05'
 * ```
 */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
