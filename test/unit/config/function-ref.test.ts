/**
 * A mapping's `function` that cannot be used says why in one bounded line: the export name is quoted
 * like any echoed value (cut, with its length), once.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { classifyFunctionRef } from '../../../src/config/function-ref.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { MAX_ECHOED_CHARS } from '../../../src/util/echoed-value.js';

const LONG = 200_000;
/** An export name that is no identifier (it starts with a digit), `LONG + 1` characters long. */
const longName = `1${'w'.repeat(LONG)}`;
const cutName = `"1${'w'.repeat(MAX_ECHOED_CHARS - 1)}…" (${LONG + 1} characters)`;

describe('classifyFunctionRef', () => {
  it('quotes a short export name whole', () => {
    expect(classifyFunctionRef('local:./a.mjs#not-an-id')).toEqual({
      kind: 'invalid',
      ref: 'local:./a.mjs#not-an-id',
      reason: 'export name "not-an-id" is not an identifier',
    });
  });

  it('cuts a long export name in its reason, noting its length', () => {
    const ref = classifyFunctionRef(`local:./a.mjs#${longName}`);
    expect(ref.kind === 'invalid' ? ref.reason : ref.kind).toBe(
      `export name ${cutName} is not an identifier`,
    );
  });

  it('the config problem is that reason, cut once', () => {
    let problems: readonly string[] = [];
    try {
      parseConfig({
        nameServer: '127.0.0.1:9876',
        offsets: { store: 'memory' },
        mappings: [{ topic: 'T', consumerGroup: 'G', function: `local:./a.mjs#${longName}` }],
      });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems;
    }
    expect(problems).toEqual([`mappings[0].function: export name ${cutName} is not an identifier`]);
  });
});
