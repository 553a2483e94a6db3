import { beforeEach, describe, expect, it, vi } from 'vitest';
import { closestKey } from '../../../src/util/closest-key.js';
import { editDistance } from '../../../src/util/edit-distance.js';

// The real edit distance, watched: which pairs closestKey computes a distance for.
vi.mock('../../../src/util/edit-distance.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/util/edit-distance.js')>();
  return { editDistance: vi.fn(original.editDistance) };
});

describe('closestKey', () => {
  const known = ['batchSize', 'topic', 'consumerGroup'];

  beforeEach(() => {
    vi.mocked(editDistance).mockClear();
  });

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

  it('still reaches a key two letters shorter or longer', () => {
    expect(closestKey('batchSi', known)).toBe('batchSize');
    expect(closestKey('batchSizes', known)).toBe('batchSize');
    expect(closestKey('topicXY', known)).toBe('topic');
  });

  it('computes no distance to a key whose length alone is out of reach', () => {
    // 'batchSize' is 9 long: within 2 of 'batchSizeXY' (11), not of 'batchSizeXYZ' (12).
    expect(closestKey('batchSizeXY', ['batchSize'])).toBe('batchSize');
    expect(vi.mocked(editDistance)).toHaveBeenCalledTimes(1);
    vi.mocked(editDistance).mockClear();
    expect(closestKey('batchSizeXYZ', ['batchSize'])).toBeUndefined();
    expect(vi.mocked(editDistance)).not.toHaveBeenCalled();
  });

  it('a huge unknown key is compared with no candidate', () => {
    // Its length times each candidate's: 10 MB of key against 3 keys were 30 million steps, and a
    // table of 10 million rows.
    const huge = 'x'.repeat(10 * 1024 * 1024);
    expect(closestKey(huge, known)).toBeUndefined();
    expect(closestKey(huge.toUpperCase(), [...known, huge])).toBe(huge);
    expect(vi.mocked(editDistance)).not.toHaveBeenCalled();
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
