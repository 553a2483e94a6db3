import { describe, expect, it } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import { backoffDelayMs, retry } from '../../../src/util/retry.js';

const fast = { initialDelayMs: 1, maxDelayMs: 2 };

describe('retry', () => {
  it('retries retriable errors until success and reports each retry', async () => {
    const seen: number[] = [];
    const result = await retry(
      async (attempt) => {
        if (attempt < 3) throw new RocketMQError('busy', { retriable: true });
        return attempt;
      },
      { ...fast, onRetry: (_e, attempt) => seen.push(attempt) },
    );
    expect(result).toBe(3);
    expect(seen).toEqual([1, 2]);
  });

  it('rethrows a non-retriable error at once', async () => {
    let calls = 0;
    const failure = new RocketMQError('bad', { retriable: false });
    await expect(
      retry(async () => {
        calls++;
        throw failure;
      }, fast),
    ).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it('gives up after maxAttempts with the last error', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls++;
          throw new RocketMQError(`busy ${calls}`, { retriable: true });
        },
        { ...fast, maxAttempts: 4 },
      ),
    ).rejects.toThrow('busy 4');
    expect(calls).toBe(4);
  });

  it('stops waiting when aborted', async () => {
    const controller = new AbortController();
    const pending = retry(
      async () => {
        throw new RocketMQError('busy', { retriable: true });
      },
      { initialDelayMs: 60_000, maxDelayMs: 60_000, random: () => 1, signal: controller.signal },
    );
    controller.abort();
    await expect(pending).rejects.toThrow('busy');
  });

  it('grows the delay cap exponentially and clamps it', () => {
    const top = () => 1;
    expect(backoffDelayMs(1, { initialDelayMs: 100, random: top })).toBe(100);
    expect(backoffDelayMs(4, { initialDelayMs: 100, random: top })).toBe(800);
    expect(backoffDelayMs(20, { initialDelayMs: 100, maxDelayMs: 5000, random: top })).toBe(5000);
    expect(backoffDelayMs(3, { initialDelayMs: 100, random: () => 0 })).toBe(0);
  });
});
