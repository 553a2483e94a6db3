import { describe, expect, it } from 'vitest';
import { handler, recordedLatencies } from '../../../bench/latency-handler.js';
import {
  epochMicros,
  MEASURED_PHASE,
  PHASE_PROPERTY,
  SENT_AT_PROPERTY,
} from '../../../bench/steady-producer.js';

describe('epochMicros', () => {
  it('reads the wall clock in µs: Date.now() (whole ms, taken between two readings) lies within them', () => {
    for (let i = 0; i < 1000; i++) {
      const before = epochMicros();
      const now = Date.now();
      const after = epochMicros();
      expect(Number.isSafeInteger(before)).toBe(true);
      // Date.now() truncates to the ms: its reading is at most 1 ms behind the clock, never ahead.
      expect(now * 1000).toBeLessThanOrEqual(after + 1000);
      expect(now * 1000).toBeGreaterThan(before - 1000 - 1000);
    }
  });
});

describe('the latency handler', () => {
  it('notes the delivery latency of measured records in ms with µs precision, and skips warm-up ones', async () => {
    const { sentToHandlerMs, storeToHandlerMs } = recordedLatencies();
    const before = sentToHandlerMs.length;
    const sentAtUs = epochMicros() - 1500;
    const storeTimestamp = Date.now() - 3;
    await expect(
      handler({
        Records: [
          {
            properties: { [SENT_AT_PROPERTY]: String(sentAtUs), [PHASE_PROPERTY]: MEASURED_PHASE },
            storeTimestamp,
          },
          {
            properties: { [SENT_AT_PROPERTY]: String(sentAtUs), [PHASE_PROPERTY]: 'warmup' },
            storeTimestamp,
          },
        ],
      }),
    ).resolves.toEqual({ batchItemFailures: [] });
    expect(sentToHandlerMs.length).toBe(before + 1);
    const latency = sentToHandlerMs.at(-1) as number;
    // Sent 1.5 ms before the handler ran: with whole ms the difference would read 1 or 2.
    expect(latency).toBeGreaterThanOrEqual(1.5);
    expect(latency).toBeLessThan(1.5 + 100);
    expect(storeToHandlerMs.at(-1)).toBeGreaterThanOrEqual(3);
  });
});
