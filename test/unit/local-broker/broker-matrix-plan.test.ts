import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BROKER_VERSIONS } from '../../../src/local-broker/broker-version.js';
import { startLocalBroker } from '../../../src/local-broker/local-broker.js';
import { LocalBrokerError } from '../../../src/local-broker/local-broker-error.js';
import {
  excludeGlob,
  exclusionsFor,
  formatDuration,
  MATRIX_EXCLUSIONS,
  matrixPaths,
  mergeMatrixRows,
  parseVersions,
  renderMatrixTable,
} from '../../matrix/matrix-plan.js';

describe('the broker version matrix plan', () => {
  it('declares a reason for every exclusion, and every excluded path exists', () => {
    for (const version of BROKER_VERSIONS) {
      for (const exclusion of MATRIX_EXCLUSIONS[version]) {
        expect(exclusion.reason.length).toBeGreaterThan(20);
        expect(existsSync(exclusion.path), exclusion.path).toBe(true);
      }
    }
  });

  it('keeps 4.9.7 from ACL 2.0 and POP tests, 5.5.1 from ACL tests, the default from nothing', () => {
    const paths = MATRIX_EXCLUSIONS['4.9.7'].map((exclusion) => exclusion.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'test/integration/client/acl.test.ts',
        'test/integration/faults/acl-refused.test.ts',
        'test/integration/pop',
      ]),
    );
    expect(MATRIX_EXCLUSIONS['5.3.3']).toEqual([]);
    expect(MATRIX_EXCLUSIONS['5.5.1'].map((exclusion) => exclusion.path)).toEqual([
      'test/integration/client/acl.test.ts',
      'test/integration/faults/acl-refused.test.ts',
      'test/integration/cluster/cluster-tls-acl.test.ts',
    ]);
  });

  it('passes vitest only the exclusions inside the scope, directories as globs', () => {
    expect(exclusionsFor('4.9.7', 'wire').map((exclusion) => exclusion.path)).toEqual([
      'test/integration/client/acl.test.ts',
    ]);
    expect(exclusionsFor('4.9.7', 'full').map(excludeGlob)).toEqual([
      'test/integration/client/acl.test.ts',
      'test/integration/faults/acl-refused.test.ts',
      'test/integration/pop/**',
      'test/integration/cluster/cluster-tls-acl.test.ts',
    ]);
    expect(matrixPaths('full')).toEqual(['test/integration']);
    for (const path of matrixPaths('wire')) expect(existsSync(path), path).toBe(true);
  });

  it('parses --versions, all when empty, and names the allowed values for an unknown one', () => {
    expect(parseVersions(undefined)).toEqual([...BROKER_VERSIONS]);
    expect(parseVersions('4.9.7, 5.3.3-proxy')).toEqual(['4.9.7', '5.3.3-proxy']);
    expect(() => parseVersions('5.3.3,6.0.0')).toThrow(
      /"6\.0\.0".*allowed: 5\.3\.3, 5\.5\.1, 4\.9\.7, 5\.3\.3-proxy/,
    );
  });

  it('merges a run of some versions over the earlier rows, in the declared version order', () => {
    const row = (version: (typeof BROKER_VERSIONS)[number], passed: number) => ({
      version,
      passed,
      failed: 0,
      skipped: 0,
      excluded: 0,
      durationMs: 1000,
      suitePassed: true,
      failedTests: [],
      scope: 'wire' as const,
      finishedAt: '2026-12-01T20:00:00.000Z',
    });
    const merged = mergeMatrixRows(
      [row('5.3.3-proxy', 1), row('5.3.3', 1), row('5.5.1', 1)],
      [row('5.5.1', 2)],
    );
    expect(merged.map((r) => [r.version, r.passed])).toEqual([
      ['5.3.3', 1],
      ['5.5.1', 2],
      ['5.3.3-proxy', 1],
    ]);
  });

  it('renders one table row per version with its figures', () => {
    const table = renderMatrixTable([
      {
        version: '4.9.7',
        passed: 70,
        failed: 1,
        skipped: 0,
        excluded: 1,
        durationMs: 425_000,
        suitePassed: false,
        failedTests: ['x'],
        scope: 'wire',
        finishedAt: '2026-12-01T20:00:00.000Z',
      },
    ]);
    expect(table.split('\n')[0]).toBe(
      '| Broker version | Suite passed | Passed | Failed | Skipped | Excluded files | Duration |',
    );
    expect(table).toContain('| 4.9.7 | no | 70 | 1 | 0 | 1 | 7:05 |');
    expect(formatDuration(59_600)).toBe('1:00');
  });
});

describe('the launcher per version', () => {
  it('refuses ACL on 4.9.7 before starting anything, saying ACL 2.0 is missing', async () => {
    const start = startLocalBroker({
      version: '4.9.7',
      acl: { accessKey: 'admin', secretKey: 'secret-12345' },
    });
    await expect(start).rejects.toBeInstanceOf(LocalBrokerError);
    await expect(start).rejects.toThrow(/4\.9\.7 cannot run ACL 2\.0: RocketMQ 4\.x has no ACL 2\.0/);
  });

  it('refuses ACL on 5.5.1, whose auth module Maven Central lacks', async () => {
    const start = startLocalBroker({
      version: '5.5.1',
      acl: { accessKey: 'admin', secretKey: 'secret-12345' },
    });
    await expect(start).rejects.toThrow(/5\.5\.1 cannot run ACL 2\.0: .*NoSuchMethodError/);
  });
});
