/**
 * The trace header Lambda reads for X-Ray, `X-Amzn-Trace-Id`, of a W3C trace context: X-Ray's trace id
 * is the W3C one written as `1-<8 hex>-<24 hex>` (its first 8 hex digits are the epoch seconds for ids
 * X-Ray makes; Lambda takes any), the parent is the W3C span id, and `Sampled` is the W3C sampled flag.
 * An invoke that carries it continues that trace in X-Ray (docs/tracing.md).
 */

import { parseTraceparent } from '../handler/trace-context.js';

/** The header's name, as the Invoke API reads it. */
export const XRAY_TRACE_HEADER = 'X-Amzn-Trace-Id';

/**
 * `Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=<0|1>` of a traceparent, or undefined when it is not
 * a valid one (src/handler/trace-context.ts).
 */
export function xrayTraceHeader(traceparent: string): string | undefined {
  const parsed = parseTraceparent(traceparent);
  if (!parsed.ok) return undefined;
  const { traceId, spanId, traceFlags } = parsed.value;
  return `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8)};Parent=${spanId};Sampled=${traceFlags & 1}`;
}
