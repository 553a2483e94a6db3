/**
 * ISO times must say their zone (util/zoned-time.ts): a time without one is refused with both ways to
 * write it, and a time reads back in UTC and in the local zone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { localIsoTime, parseZonedTime, utcOffsetText } from '../../../src/util/zoned-time.js';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

describe('parseZonedTime', () => {
  it('reads times with Z or an offset, with or without seconds, fractions and the colon', () => {
    expect(parseZonedTime('2026-12-01T12:00:00Z')).toEqual({
      ok: true,
      timestampMs: Date.UTC(2026, 11, 1, 12),
    });
    expect(parseZonedTime('2026-12-01T12:00z')).toEqual({ ok: true, timestampMs: Date.UTC(2026, 11, 1, 12) });
    expect(parseZonedTime('2026-12-01T14:00:00.250+02:00')).toEqual({
      ok: true,
      timestampMs: Date.UTC(2026, 11, 1, 12, 0, 0, 250),
    });
    expect(parseZonedTime('2026-12-01T07:30-0430')).toEqual({
      ok: true,
      timestampMs: Date.UTC(2026, 11, 1, 12),
    });
  });

  it('refuses a date or a date-time without a zone, showing both ways to write it', () => {
    process.env.TZ = 'Europe/Berlin';
    const winter = Date.UTC(2026, 0, 15);
    expect(parseZonedTime('2026-12-01T10:00', winter)).toEqual({
      ok: false,
      problem:
        '2026-12-01T10:00 has no time zone, so it is ambiguous: add Z for UTC (2026-12-01T10:00Z) or your offset (2026-12-01T10:00+01:00)',
    });
    expect(parseZonedTime('2026-01-01T00:00:00', winter)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('(2026-01-01T00:00:00Z) or your offset (2026-01-01T00:00:00+01:00)'),
    });
    expect(parseZonedTime('2026-12-01', winter)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('2026-12-01 has no time zone'),
    });
  });

  it('refuses dates that do not exist instead of rolling them over', () => {
    expect(parseZonedTime('2026-02-31T00:00:00Z')).toEqual({
      ok: false,
      problem: '2026-02-31T00:00:00Z is not a valid date and time',
    });
    expect(parseZonedTime('2026-12-01T24:00Z')).toMatchObject({ ok: false });
    expect(parseZonedTime('2026-13-01T00:00Z')).toMatchObject({ ok: false });
  });

  it('leaves what is not an ISO time to the caller', () => {
    for (const text of ['', 'yesterday', '1042', '2026/12/01', '2026-12-01 10:00Z']) {
      expect(parseZonedTime(text), text).toBeUndefined();
    }
  });
});

describe('local time', () => {
  it('reads a time in the local zone with its offset, across daylight saving time', () => {
    process.env.TZ = 'Europe/Berlin';
    expect(localIsoTime(Date.UTC(2026, 11, 1, 12))).toBe('2026-12-01T13:00:00.000+01:00');
    expect(localIsoTime(Date.UTC(2026, 6, 1, 12, 0, 0, 5))).toBe('2026-07-01T14:00:00.005+02:00');
    process.env.TZ = 'America/St_Johns';
    expect(utcOffsetText(Date.UTC(2026, 11, 1))).toBe('-03:30');
    process.env.TZ = 'UTC';
    expect(localIsoTime(0)).toBe('1970-01-01T00:00:00.000+00:00');
  });
});
