/**
 * The W3C trace context of a consumed message: its `traceparent` and `tracestate` user properties,
 * checked (src/handler/trace-context.ts). A valid one becomes the record's `traceContext` and the parent
 * or a link of the poller's spans (invoke-tracing.ts); an invalid one is ignored, never failing the
 * message, and counted ({@link invalidTraceContexts}) with its reason logged at debug level (throttled).
 */

import { type TraceCarrier, traceCarrierOf } from '../handler/trace-context.js';
import { propertiesHeadOf } from '../protocol/decoded-message.js';
import type { MessageExt } from '../protocol/message.js';
import type { PropertiesHead } from '../protocol/properties-head.js';
import { componentLogger } from '../util/logger.js';
import { sharedThrottledLog } from '../util/shared-throttled-log.js';

/** The property names OpenTelemetry's W3C propagator writes (lowercase, as W3C's header names). */
export const TRACEPARENT_PROPERTY = 'traceparent';
export const TRACESTATE_PROPERTY = 'tracestate';

const log = componentLogger('invoke.trace-context');
let invalid = 0;

/**
 * The positions of `traceparent` and `tracestate` in the last user-key array looked at: decoded messages
 * of one producer share their key array (src/protocol/properties-head.ts), so a stream of them is
 * searched once.
 */
let lastKeys: readonly string[] | undefined;
let lastParentAt = -1;
let lastStateAt = -1;

/**
 * The valid trace context `message` carries, or undefined (none, or an invalid one: counted and logged).
 * `head` is the decoded message's properties head when the caller read it already (a second read
 * would repeat the pass over the properties text).
 */
export function messageTraceContext(
  message: MessageExt,
  head: PropertiesHead | undefined = propertiesHeadOf(message),
): TraceCarrier | undefined {
  let traceparent: string | undefined;
  let tracestate: string | undefined;
  if (head === undefined) {
    const properties = message.properties;
    traceparent = properties[TRACEPARENT_PROPERTY];
    if (traceparent === undefined) return undefined;
    tracestate = properties[TRACESTATE_PROPERTY];
  } else {
    const keys = head.userKeys;
    if (keys.length === 0) return undefined;
    if (keys !== lastKeys) {
      lastKeys = keys;
      lastParentAt = keys.indexOf(TRACEPARENT_PROPERTY);
      lastStateAt = keys.indexOf(TRACESTATE_PROPERTY);
    }
    if (lastParentAt < 0) return undefined;
    traceparent = head.userValues[lastParentAt];
    tracestate = lastStateAt < 0 ? undefined : head.userValues[lastStateAt];
  }
  const { carrier, problem } = traceCarrierOf(traceparent, tracestate);
  if (problem !== undefined) {
    invalid++;
    sharedThrottledLog(log).debug(
      problem,
      { messageId: message.msgId, problem, ignored: carrier === undefined ? 'traceparent' : 'tracestate' },
      'trace context of a message ignored',
    );
  }
  return carrier;
}

/** How many messages carried a trace context this process ignored (wholly or its tracestate). */
export function invalidTraceContexts(): number {
  return invalid;
}
