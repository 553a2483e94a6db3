import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkTracestate,
  MAX_TRACEPARENT_CHARS,
  MAX_TRACESTATE_CHARS,
  MAX_TRACESTATE_MEMBERS,
  parseTraceparent,
  recordSpanContext,
  traceCarrierOf,
} from '../../../src/handler/trace-context.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${SPAN_ID}-01`;

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const nonZeroHex = (length: number) => hex(length).filter((h) => /[^0]/.test(h));
/** Every valid version-00 traceparent. */
const validTraceparent = fc
  .tuple(nonZeroHex(32), nonZeroHex(16), hex(2))
  .map(([traceId, spanId, flags]) => ({ traceId, spanId, flags, text: `00-${traceId}-${spanId}-${flags}` }));

describe('parseTraceparent', () => {
  it('reads a W3C example', () => {
    expect(parseTraceparent(VALID)).toEqual({
      ok: true,
      value: { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceparent: VALID },
    });
  });

  it('accepts every valid version-00 traceparent, giving back its fields (property)', () => {
    fc.assert(
      fc.property(validTraceparent, ({ traceId, spanId, flags, text }) => {
        expect(parseTraceparent(text)).toEqual({
          ok: true,
          value: { traceId, spanId, traceFlags: Number.parseInt(flags, 16), traceparent: text },
        });
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses every change of one character of a valid traceparent that W3C forbids (property)', () => {
    fc.assert(
      fc.property(
        validTraceparent,
        fc.nat(54),
        fc.constantFrom(...'ABCDEFGxyz-_ 0'),
        ({ text }, at, replacement) => {
          const changed = text.slice(0, at) + replacement + text.slice(at + 1);
          const fields = changed.split('-');
          const stillValid =
            changed.length === 55 &&
            fields.length === 4 &&
            fields[0] === '00' &&
            /^[0-9a-f]{32}$/.test(fields[1] ?? '') &&
            /[^0]/.test(fields[1] ?? '') &&
            /^[0-9a-f]{16}$/.test(fields[2] ?? '') &&
            /[^0]/.test(fields[2] ?? '') &&
            /^[0-9a-f]{2}$/.test(fields[3] ?? '');
          expect(parseTraceparent(changed).ok).toBe(stillValid);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never throws, and what it accepts is always 55 characters of version 00 (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const result = parseTraceparent(text);
        if (result.ok) {
          expect(result.value.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
        } else {
          expect(result.reason).toMatch(/^traceparent /);
        }
      }),
    );
  });

  it.each([
    ['', 'traceparent is 0 characters, shorter than 55'],
    [VALID.toUpperCase(), 'traceparent is not version-traceid-parentid-flags in lowercase hex'],
    [`ff-${TRACE_ID}-${SPAN_ID}-01`, 'traceparent version ff is invalid'],
    [`00-${'0'.repeat(32)}-${SPAN_ID}-01`, 'traceparent trace id is all zeros'],
    [`00-${TRACE_ID}-${'0'.repeat(16)}-01`, 'traceparent parent id is all zeros'],
    [`${VALID}-extra`, 'traceparent version 00 is longer than 55 characters'],
    [`${VALID}x`, 'traceparent is not version-traceid-parentid-flags in lowercase hex'],
    [
      `01-${TRACE_ID}-${SPAN_ID}-01${'x'.repeat(MAX_TRACEPARENT_CHARS)}`,
      'traceparent is 311 characters, over 256',
    ],
  ])('refuses %j: %s', (text, reason) => {
    expect(parseTraceparent(text)).toEqual({ ok: false, reason });
  });

  it('reads a later version as version 00 (its first four fields), as W3C asks', () => {
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-01-what-the-future-holds`)).toEqual({
      ok: true,
      value: { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceparent: VALID },
    });
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-01`)).toMatchObject({ ok: true });
  });
});

describe('checkTracestate', () => {
  it('accepts W3C examples, empty members and multi-tenant keys', () => {
    expect(checkTracestate('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE')).toEqual({ ok: true });
    expect(checkTracestate('a=1, ,b@vendor=x "q"')).toEqual({ ok: true });
  });

  it(`keeps at most ${MAX_TRACESTATE_MEMBERS} members and ${MAX_TRACESTATE_CHARS} characters`, () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');
    expect(checkTracestate(members(MAX_TRACESTATE_MEMBERS))).toEqual({ ok: true });
    expect(checkTracestate(members(MAX_TRACESTATE_MEMBERS + 1))).toEqual({
      ok: false,
      reason: 'tracestate has over 32 members',
    });
    const long = `k=${'v'.repeat(MAX_TRACESTATE_CHARS - 2)}`;
    expect(checkTracestate(`a=${'v'.repeat(250)},b=${'v'.repeat(250)}`)).toEqual({ ok: true });
    expect(checkTracestate(`${long}x`)).toEqual({
      ok: false,
      reason: 'tracestate is 513 characters, over 512',
    });
  });

  it.each(['Upper=1', 'k', 'k=', '=v', 'k=v,k2=a=b', 'k=v\u0001'])('refuses the member %j', (text) => {
    expect(checkTracestate(text)).toMatchObject({ ok: false });
  });
});

describe('traceCarrierOf', () => {
  it('has nothing to say without a traceparent', () => {
    expect(traceCarrierOf(undefined, 'k=v')).toEqual({ carrier: undefined, problem: undefined });
  });

  it('keeps a valid context, and drops only a bad tracestate, saying why', () => {
    expect(traceCarrierOf(VALID, 'k=v')).toEqual({
      carrier: { traceparent: VALID, tracestate: 'k=v' },
      problem: undefined,
    });
    expect(traceCarrierOf(VALID, '')).toEqual({ carrier: { traceparent: VALID }, problem: undefined });
    expect(traceCarrierOf(VALID, 'K=v')).toEqual({
      carrier: { traceparent: VALID },
      problem: 'tracestate member 1 is not key=value as W3C defines them',
    });
    expect(traceCarrierOf('00-bad', 'k=v')).toEqual({
      carrier: undefined,
      problem: 'traceparent is 6 characters, shorter than 55',
    });
  });
});

describe('recordSpanContext', () => {
  it('gives the span context of a record, in the shape of the OpenTelemetry API', () => {
    expect(recordSpanContext({ traceContext: { traceparent: VALID } })).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      isRemote: true,
    });
    expect(recordSpanContext({})).toBeUndefined();
    expect(recordSpanContext({ traceContext: { traceparent: 'junk' } })).toBeUndefined();
  });
});
