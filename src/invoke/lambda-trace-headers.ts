/**
 * The trace headers of a Lambda invoke: `X-Amzn-Trace-Id` (xray-trace-header.ts), which Lambda reads to
 * continue the trace in X-Ray, and the W3C `traceparent`/`tracestate` it was made from, for Invoke APIs
 * and proxies that read those.
 *
 * Set by a client middleware (lambda-invoke-context.ts) at the `build` step with priority `high`: before the SDK's
 * recursion-detection middleware (same step, priority `low`), which sets `X-Amzn-Trace-Id` from
 * `_X_AMZN_TRACE_ID` (and `traceparent` from the Lambda invoke store) only when the request has none, so
 * ours wins when the invoke carries a context and theirs applies, unchanged, when it does not (a poller
 * running inside a Lambda function). Both run before signing: the headers are signed.
 */

import type { TraceCarrier } from '../handler/trace-context.js';
import { XRAY_TRACE_HEADER, xrayTraceHeader } from './xray-trace-header.js';

/** The request a build-step middleware sees, as far as headers go. */
interface HeadersRequest {
  headers: Record<string, string>;
}

function hasHeaders(request: unknown): request is HeadersRequest {
  return (
    typeof request === 'object' &&
    request !== null &&
    typeof (request as { headers?: unknown }).headers === 'object' &&
    (request as { headers?: unknown }).headers !== null
  );
}

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

/**
 * Sets `headers` on `request` (an HTTP request of the SDK, as a build-step middleware sees it), replacing a
 * header of the same name in any letter case. Anything without a headers object is left alone.
 */
export function setTraceHeaders(request: unknown, headers: Record<string, string>): void {
  if (!hasHeaders(request)) return;
  const names = Object.keys(headers).map((name) => name.toLowerCase());
  for (const name of Object.keys(request.headers)) {
    if (names.includes(name.toLowerCase())) delete request.headers[name];
  }
  Object.assign(request.headers, headers);
}
