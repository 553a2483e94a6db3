/**
 * The trace headers of a Lambda invoke: `X-Amzn-Trace-Id` (xray-trace-header.ts), which Lambda reads to
 * continue the trace in X-Ray, and the W3C `traceparent`/`tracestate` it was made from, for Invoke APIs
 * and proxies that read those.
 *
 * Set on the request before it is signed (lambda-invoke-channel.ts): the headers are signed. A poller running
 * inside a Lambda function sends its function's `_X_AMZN_TRACE_ID` only when the invoke carries no context,
 * as the SDK's recursion-detection middleware does.
 */

import type { TraceCarrier } from '../handler/trace-context.js';
import { XRAY_TRACE_HEADER, xrayTraceHeader } from './xray-trace-header.js';

/**
 * The headers an invoke continuing `carrier` carries; undefined for a traceparent that does not parse.
 */
export function traceHeaders(carrier: TraceCarrier): Record<string, string> | undefined {
  const xray = xrayTraceHeader(carrier.traceparent);
  if (xray === undefined) return undefined;
  const headers: Record<string, string> = { [XRAY_TRACE_HEADER]: xray, traceparent: carrier.traceparent };
  if (carrier.tracestate !== undefined) headers.tracestate = carrier.tracestate;
  return headers;
}
