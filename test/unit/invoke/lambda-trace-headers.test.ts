/**
 * The trace header an invoke carries to the Invoke API (our HTTP server, called by the real
 * `@aws-sdk/client-lambda`): X-Ray’s `X-Amzn-Trace-Id` of the request’s W3C context, beside the
 * recursion-detection middleware, which sets the header from `_X_AMZN_TRACE_ID` inside a Lambda function.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { traceHeaders } from '../../../src/invoke/lambda-trace-headers.js';
import { xrayTraceHeader } from '../../../src/invoke/xray-trace-header.js';
import { lambdaInvokerPerTest } from './lambda-invoker-per-test.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const XRAY = 'Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=00f067aa0ba902b7;Sampled=1';
/** What a Lambda function's environment says when the poller runs inside one. */
const ENV_TRACE = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

describe('xrayTraceHeader', () => {
  it('writes the W3C trace id as X-Ray’s, the span id as the parent and the sampled flag', () => {
    expect(xrayTraceHeader(TRACEPARENT)).toBe(XRAY);
    expect(xrayTraceHeader(TRACEPARENT.replace(/01$/, '00'))).toBe(XRAY.replace('Sampled=1', 'Sampled=0'));
    expect(xrayTraceHeader(TRACEPARENT.replace(/01$/, '03'))).toBe(XRAY);
    expect(xrayTraceHeader('00-junk')).toBeUndefined();
  });

  it('keeps every digit of the trace id, in order, for any valid traceparent (property)', () => {
    const hex = (n: number) =>
      fc
        .string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n })
        .filter((h) => /[^0]/.test(h));
    fc.assert(
      fc.property(hex(32), hex(16), fc.nat(255), (traceId, spanId, flags) => {
        const header = xrayTraceHeader(`00-${traceId}-${spanId}-${flags.toString(16).padStart(2, '0')}`);
        const match = /^Root=1-([0-9a-f]{8})-([0-9a-f]{24});Parent=([0-9a-f]{16});Sampled=([01])$/.exec(
          header ?? '',
        );
        expect(match?.slice(1)).toEqual([traceId.slice(0, 8), traceId.slice(8), spanId, String(flags & 1)]);
      }),
    );
  });
});

describe('traceHeaders', () => {
  it('sends the W3C context beside the X-Ray header', () => {
    expect(traceHeaders({ traceparent: TRACEPARENT, tracestate: 'k=v' })).toEqual({
      'X-Amzn-Trace-Id': XRAY,
      traceparent: TRACEPARENT,
      tracestate: 'k=v',
    });
    expect(traceHeaders({ traceparent: 'junk' })).toBeUndefined();
  });
});

describe('the trace header reaching the Invoke API', () => {
  const lambda = lambdaInvokerPerTest(() => null);
  const payload = Buffer.from('{}');
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is the request’s context', async () => {
    await lambda.invoker.invoke({
      functionRef: 'orders',
      payload,
      traceContext: { traceparent: TRACEPARENT },
    });
    expect(lambda.server.calls('orders')).toEqual([
      expect.objectContaining({ traceHeader: XRAY, traceparent: TRACEPARENT }),
    ]);
  });

  it('is absent without a context (outside Lambda)', async () => {
    await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(lambda.server.calls('orders')).toEqual([
      expect.objectContaining({ traceHeader: undefined, traceparent: undefined }),
    ]);
  });

  it('inside a Lambda function: the request’s context wins over _X_AMZN_TRACE_ID, which applies without one', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'poller');
    vi.stubEnv('_X_AMZN_TRACE_ID', ENV_TRACE);
    await lambda.invoker.invoke({
      functionRef: 'orders',
      payload,
      traceContext: { traceparent: TRACEPARENT },
    });
    await lambda.invoker.invoke({ functionRef: 'orders', payload });
    expect(lambda.server.calls('orders').map((call) => call.traceHeader)).toEqual([XRAY, ENV_TRACE]);
  });
});
