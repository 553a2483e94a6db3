import { describe, expect, it } from 'vitest';
import { describeError } from '../../../src/util/describe-error.js';

describe('describeError', () => {
  it('names errors without a message by their name and code, and follows causes', () => {
    const socket = Object.assign(new Error(''), { code: 'ECONNREFUSED' });
    expect(describeError(new Error('cannot write offset', { cause: socket }))).toBe(
      'cannot write offset: Error ECONNREFUSED',
    );
    const aws = Object.assign(new Error(''), { name: 'UnknownError' });
    expect(describeError(aws)).toBe('UnknownError');
  });

  it('keeps a named error name, skips a cause the wrapper already quotes, and summarises aggregates', () => {
    const missing = Object.assign(new Error('Requested resource not found'), {
      name: 'ResourceNotFoundException',
    });
    expect(describeError(missing)).toBe('ResourceNotFoundException: Requested resource not found');
    const wrapped = new Error('read failed: ResourceNotFoundException: Requested resource not found', {
      cause: missing,
    });
    expect(describeError(wrapped)).toBe(
      'read failed: ResourceNotFoundException: Requested resource not found',
    );
    const all = new AggregateError([new Error('first'), new Error('second')], '2 writes failed');
    expect(describeError(all)).toBe('2 writes failed (2 errors, first: first)');
    expect(describeError('plain text')).toBe('plain text');
    expect(describeError(undefined)).toBe('unknown error');
  });

  it('is one line even when a message spans several (a broker remark with a FAQ link)', () => {
    const remark = new Error(
      'No topic route info in name server for the topic: T\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.',
    );
    expect(describeError(new Error('route lookup failed', { cause: remark }))).toBe(
      'route lookup failed: No topic route info in name server for the topic: T See https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.',
    );
  });
});
