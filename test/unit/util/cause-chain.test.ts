import { describe, expect, it } from 'vitest';
import { anyInCauseChain, MAX_CAUSE_DEPTH } from '../../../src/util/cause-chain.js';

const hasCode = (code: string) => (candidate: object) => (candidate as { code?: unknown }).code === code;

describe('anyInCauseChain', () => {
  it('finds a match in the error, its causes and the members of aggregates on the way', () => {
    const socket = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    expect(anyInCauseChain(socket, hasCode('ECONNRESET'))).toBe(true);
    expect(anyInCauseChain(new Error('wrapped', { cause: socket }), hasCode('ECONNRESET'))).toBe(true);
    const aggregate = new AggregateError(
      [new Error('other'), new Error('inner', { cause: socket })],
      'writes',
    );
    expect(anyInCauseChain(new Error('outer', { cause: aggregate }), hasCode('ECONNRESET'))).toBe(true);
    expect(anyInCauseChain(new Error('unrelated'), hasCode('ECONNRESET'))).toBe(false);
    expect(anyInCauseChain(undefined, () => true)).toBe(false);
    expect(anyInCauseChain('text', () => true)).toBe(false);
  });

  it('stops at the depth limit, also on a cycle', () => {
    let deep: Error = Object.assign(new Error('bottom'), { code: 'X' });
    for (let i = 0; i < MAX_CAUSE_DEPTH; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(anyInCauseChain(deep, hasCode('X'))).toBe(false);
    const cyclic = new Error('a');
    cyclic.cause = cyclic;
    expect(anyInCauseChain(cyclic, hasCode('X'))).toBe(false);
  });
});
