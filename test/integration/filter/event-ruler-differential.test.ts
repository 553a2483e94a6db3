/**
 * The filter (src/filter) against an independent implementation of the same pattern language: Amazon's
 * event-ruler 1.8.1 (Java), the library behind EventBridge's patterns. A few thousand random
 * (patterns, record) cases, generated with a fixed seed, are answered by both, twice:
 *
 * - as given: all patterns of a case in one event-ruler Machine, as a mapping's filters would be;
 * - expanded: each pattern rewritten into the equivalent patterns with one value per rule array
 *   (test/support/filter/pattern-expansion.ts), each in a Machine of its own, answers ORed.
 *
 * The answers must be the same, refusals included. Deliberate differences, each counted and printed:
 *
 * 1. A field matched both in an object and in one of its `$or` branches: we refuse the pattern
 *    ("... is also matched outside this $or ..."); event-ruler accepts it and, for that branch, keeps
 *    only the rule that comes later in the JSON text (JsonRuleCompiler writes a branch's fields over the
 *    enclosing object's). The arbitraries do not generate it (a unit test covers the refusal).
 * 2. A field whose rule values, across the case's patterns, mix a `wildcard` (or `anything-but`
 *    `wildcard`) with another operator: event-ruler 1.8.1's shared byte machine then answers wrongly and
 *    depending on the order of the values (`[{"wildcard": "*X*"}, {"equals-ignore-case": "X"}]` matches
 *    "PAID", the reverse order does not). We answer the OR of the values; those cases are compared in the
 *    expanded form only, where each value is alone in its Machine.
 *
 * Needs Java and Maven (the integration global setup builds the peer; without them this test fails,
 * it never passes empty-handed).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterPatternError } from '../../../src/filter/filter-pattern-error.js';
import { compileFilter } from '../../../src/filter/message-filter.js';
import { eventRulerMatches, type RulerAnswer } from '../../support/event-ruler-peer.js';
import {
  type JsonValue,
  type RandomRecord,
  recordArb,
  topPatternArb,
} from '../../support/filter/pattern-arbitraries.js';
import { expandAlternatives, operatorsByField } from '../../support/filter/pattern-expansion.js';

/** Fixed, so that a failure is reproducible; FILTER_DIFFERENTIAL_SEED explores others. */
const SEED = Number(process.env.FILTER_DIFFERENTIAL_SEED ?? 3303);
const CASES = 3000;
/** Expanded patterns per pattern at most (a case over it is compared as given only). */
const EXPANSION_LIMIT = 64;

type Pattern = { [key: string]: JsonValue };

interface DifferentialCase {
  patterns: Pattern[];
  record: RandomRecord;
}

type Answer = boolean | 'refused' | 'or-overlap';

/** Our answer: matched, refused (a FilterPatternError), or refused for deliberate difference 1. */
function ourAnswer({ patterns, record }: DifferentialCase): Answer {
  try {
    const filter = compileFilter(patterns.map((pattern) => JSON.stringify(pattern)));
    // Bytes, as the poller passes a body (json-body-scanner.ts reads them).
    return filter.matches(record.metadata, Buffer.from(JSON.stringify(record.body)));
  } catch (error) {
    if (error instanceof FilterPatternError) {
      return error.message.includes('is also matched outside this $or') ? 'or-overlap' : 'refused';
    }
    throw error;
  }
}

function rulerAnswer(answer: RulerAnswer | undefined): Answer {
  if (answer === undefined) throw new Error('event-ruler gave fewer answers than cases');
  return typeof answer === 'boolean' ? answer : 'refused';
}

/** Deliberate difference 2: a field mixing a wildcard with another operator. */
function mixesWildcard(patterns: readonly Pattern[]): boolean {
  for (const operators of operatorsByField(patterns).values()) {
    if (operators.size > 1 && (operators.has('wildcard') || operators.has('anything-but/wildcard')))
      return true;
  }
  return false;
}

function eventOf(record: RandomRecord): string {
  return JSON.stringify({ ...record.metadata, body: record.body });
}

describe('the filter against event-ruler 1.8.1', () => {
  const cases: DifferentialCase[] = fc.sample(
    fc.record({ patterns: fc.array(topPatternArb, { minLength: 1, maxLength: 3 }), record: recordArb }),
    { seed: SEED, numRuns: CASES },
  );
  const ours = cases.map(ourAnswer);

  it(`gives event-ruler's answer on ${CASES} random cases, patterns as given (seed ${SEED})`, {
    timeout: 180_000,
  }, async () => {
    const answers = await eventRulerMatches(
      cases.map(({ patterns, record }) => ({
        patterns: patterns.map((pattern) => JSON.stringify(pattern)),
        event: eventOf(record),
      })),
    );
    const rulers = answers.map(rulerAnswer);
    const overlap = ours.filter((answer) => answer === 'or-overlap').length;
    const differing = cases
      .map((one, index) => ({ ...one, ours: ours[index], ruler: rulers[index], raw: answers[index] }))
      .filter((one) => one.ours !== 'or-overlap' && one.ours !== one.ruler);
    const tolerated = differing.filter((one) => mixesWildcard(one.patterns));
    const differences = differing.filter((one) => !mixesWildcard(one.patterns));
    const matched = rulers.filter((answer) => answer === true).length;
    const refused = rulers.filter((answer) => answer === 'refused').length;
    console.info(
      `as given: event-ruler ${matched} matched, ${CASES - matched - refused} did not, ${refused} refused; ` +
        `${overlap} not compared (1: a field both outside and inside $or); ` +
        `${tolerated.length} answered differently with a wildcard mixed with another operator on a field (2)` +
        tolerated
          .slice(0, 3)
          .map(
            (one) => `\n  ${JSON.stringify({ patterns: one.patterns, record: one.record, ours: one.ours })}`,
          )
          .join(''),
    );
    // Both outcomes well represented, few cases set aside, or the comparison says little.
    expect(matched).toBeGreaterThan(CASES / 5);
    expect(CASES - matched - refused).toBeGreaterThan(CASES / 5);
    expect(overlap).toBeLessThan(CASES / 20);
    expect(tolerated.length).toBeLessThan(CASES / 100);
    expect(
      differences
        .slice(0, 10)
        .map((one) =>
          JSON.stringify({ patterns: one.patterns, record: one.record, ours: one.ours, ruler: one.raw }),
        ),
    ).toEqual([]);
  });

  it(`gives event-ruler's answer on the same cases with one value per rule array, each pattern alone`, {
    timeout: 180_000,
  }, async () => {
    const expanded = cases.map((one) => {
      const parts = one.patterns.map((pattern) => expandAlternatives(pattern, EXPANSION_LIMIT));
      return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
    });
    const lines = expanded.flatMap((patterns, index) =>
      (patterns ?? []).map((pattern) => ({
        patterns: [JSON.stringify(pattern)],
        event: eventOf(cases[index]?.record ?? { metadata: {}, body: {} }),
      })),
    );
    const answers = (await eventRulerMatches(lines)).map(rulerAnswer);
    let at = 0;
    const differences: string[] = [];
    let compared = 0;
    expanded.forEach((patterns, index) => {
      if (patterns === undefined) return;
      const mine = answers.slice(at, at + patterns.length);
      at += patterns.length;
      const one = cases[index];
      if (one === undefined || ours[index] === 'or-overlap') return;
      compared++;
      const ruler: Answer = mine.includes('refused') ? 'refused' : mine.includes(true);
      if (ruler !== ours[index]) {
        differences.push(
          JSON.stringify({ patterns: one.patterns, record: one.record, ours: ours[index], ruler }),
        );
      }
    });
    console.info(`expanded: ${lines.length} single-value patterns over ${compared} cases`);
    expect(compared).toBeGreaterThan(CASES * 0.9);
    expect(differences.slice(0, 10)).toEqual([]);
  });

  it("agrees with the AWS documentation's examples (test/fixtures/filter/aws-doc-vectors.json) whose body is JSON or absent", async () => {
    const fixture = JSON.parse(
      readFileSync(new URL('../../fixtures/filter/aws-doc-vectors.json', import.meta.url), 'utf8'),
    ) as {
      cases: {
        name: string;
        patterns: unknown[];
        record: { metadata: object; body?: string };
        matches: boolean;
      }[];
    };
    const isJson = (text: string): boolean => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    // A plain-text body is Lambda's rule (event-ruler sees only JSON events).
    const vectors = fixture.cases.filter(
      (vector) => vector.record.body === undefined || isJson(vector.record.body),
    );
    const answers = await eventRulerMatches(
      vectors.map((vector) => ({
        patterns: vector.patterns.map((pattern) => JSON.stringify(pattern)),
        event: JSON.stringify({
          ...vector.record.metadata,
          ...(vector.record.body === undefined ? {} : { body: JSON.parse(vector.record.body) as unknown }),
        }),
      })),
    );
    expect(vectors.length).toBeGreaterThan(60);
    expect(
      vectors.filter((vector, index) => answers[index] !== vector.matches).map((vector) => vector.name),
    ).toEqual([]);
  });
});
