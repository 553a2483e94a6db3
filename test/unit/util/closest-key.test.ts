import { describe, expect, it } from 'vitest';
import { closestKey, editDistance } from '../../../src/util/closest-key.js';

describe('closestKey', () => {
  const known = ['batchSize', 'topic', 'consumerGroup'];

  it('prefers a key equal but for case', () => {
    expect(closestKey('TOPIC', known)).toBe('topic');
  });

  it('suggests a key one transposition away', () => {
    expect(closestKey('bathcSize', known)).toBe('batchSize');
  });

  it('suggests nothing beyond the edit limit', () => {
    expect(closestKey('region', known)).toBeUndefined();
    expect(closestKey('tpc', known)).toBeUndefined();
  });
});

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('topic', 'tpoic')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
  });
});
