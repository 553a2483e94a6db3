/**
 * The examples of AWS's documentation of Lambda event filtering and EventBridge content filtering, as
 * test vectors (test/fixtures/filter/aws-doc-vectors.json, each with its source page).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FilterPatternError } from '../../../src/filter/filter-pattern-error.js';
import { compileFilter } from '../../../src/filter/message-filter.js';

interface Vector {
  name: string;
  source: string;
  patterns: unknown[];
  record: { metadata: Record<string, unknown>; body?: string };
  matches: boolean;
}

interface Refusal {
  name: string;
  source: string;
  patterns: unknown[];
  refused: string;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/filter/aws-doc-vectors.json', import.meta.url), 'utf8'),
) as { cases: Vector[]; refused: Refusal[] };

describe('AWS documentation examples', () => {
  it('has cases for every operator the documentation shows, each with its source', () => {
    expect(fixture.cases.length).toBeGreaterThan(60);
    for (const vector of [...fixture.cases, ...fixture.refused]) expect(vector.source).toMatch(/^https:\/\//);
    const text = JSON.stringify(fixture.cases.map((vector) => vector.patterns));
    for (const operator of [
      'prefix',
      'suffix',
      'anything-but',
      'numeric',
      'exists',
      'equals-ignore-case',
      'wildcard',
      '$or',
    ]) {
      expect(text).toContain(`"${operator}"`);
    }
  });

  it.each(fixture.cases.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    const filter = compileFilter(vector.patterns);
    expect(filter.matches(vector.record.metadata, vector.record.body)).toBe(vector.matches);
    if (vector.record.body !== undefined) {
      // As the poller passes it: bytes, read by json-body-scanner.ts.
      expect(filter.matches(vector.record.metadata, Buffer.from(vector.record.body))).toBe(vector.matches);
    }
  });

  it.each(fixture.refused.map((vector) => [vector.name, vector] as const))('refuses: %s', (_name, vector) => {
    expect(() => compileFilter(vector.patterns)).toThrow(FilterPatternError);
    expect(() => compileFilter(vector.patterns)).toThrow(vector.refused);
  });
});
