/**
 * The trace headers of a Lambda invoke: `X-Amzn-Trace-Id` (xray-trace-header.ts), which Lambda reads to
 * continue the trace in X-Ray, and the W3C `traceparent`/`tracestate` it was made from, for Invoke APIs
 * and proxies that read those.
 *
 * Set by a middleware of the one command at the `build` step with priority `high`: before the SDK's
 * recursion-detection middleware (same step, priority `low`), which sets `X-Amzn-Trace-Id` from
 * `_X_AMZN_TRACE_ID` (and `traceparent` from the Lambda invoke store) only when the request has none, so
 * ours wins when the invoke carries a context and theirs applies, unchanged, when it does not (a poller
 * running inside a Lambda function). Both run before signing: the headers are signed.
 */

import type { InvokeCommand } from '@aws-sdk/client-lambda';
import type { TraceCarrier } from '../handler/trace-context.js';
import { XRAY_TRACE_HEADER, xrayTraceHeader } from './xray-trace-header.js';

const MIDDLEWARE_NAME = 'rocketmqLambdaTraceHeaders';

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
 * Makes `command` send the trace headers of `carrier` (none for an invalid one), replacing a header of
 * the same name in any letter case.
 */
export function addTraceHeaders(command: InvokeCommand, carrier: TraceCarrier): void {
  const headers = traceHeaders(carrier);
  if (headers === undefined) return;
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  command.middlewareStack.add(
    (next) => async (args) => {
      const { request } = args;
      if (hasHeaders(request)) {
        for (const name of Object.keys(request.headers)) {
          if (names.has(name.toLowerCase())) delete request.headers[name];
        }
        Object.assign(request.headers, headers);
      }
      return next(args);
    },
    { step: 'build', priority: 'high', name: MIDDLEWARE_NAME, override: true },
  );
}
