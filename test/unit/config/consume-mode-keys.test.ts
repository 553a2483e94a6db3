/**
 * `consumeMode` of a mapping: POP is accepted with the keys it works with and refused with the ones it cannot honour
 * (order, a client-side start position, broadcasting, bisecting, PUSH's allocation keys).
 */
import { describe, expect, it } from 'vitest';
import { parse, problems, raw } from './one-mapping-config.js';

describe('consumeMode POP', () => {
  it('is accepted with TRIM_HORIZON', () => {
    expect(parse(raw({ consumeMode: 'POP', startingPosition: 'TRIM_HORIZON' })).mappings[0]).toMatchObject({
      consumeMode: 'POP',
    });
  });

  it.each([
    ['orderly', true],
    ['messageModel', 'BROADCASTING'],
    ['bisectBatchOnError', true],
    ['allocateStrategy', 'AVG_BY_CIRCLE'],
    ['zoneNearby', {}],
  ])('refuses %s = %j', (key, value) => {
    expect(problems(raw({ consumeMode: 'POP', [key]: value }))).toEqual([
      expect.stringMatching(new RegExp(`${key}.*consumeMode`)),
    ]);
  });

  it('refuses AT_TIMESTAMP', () => {
    expect(
      problems(raw({ consumeMode: 'POP', startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: 1 })),
    ).toEqual([expect.stringMatching(/startingPosition: not with consumeMode POP/)]);
  });
});
