/**
 * The same invoke request for another function reference: what a wrapping invoker (the dev mode's
 * reloading invoker, src/dev/reloading-invoker.ts) hands to the invoker it wraps.
 */

import type { TraceCarrier } from '../handler/trace-context.js';
import type { InvokeRequest } from './invoker.js';

/**
 * `request` with `functionRef` replaced. Its payload is read from `request` only when read here, so a
 * payload serialized on first read (the function listener's) stays unmade for an invoker that takes the
 * event objects. Use it rather than `{ ...request, functionRef }`: a spread reads every getter at once,
 * and copies none that a request class keeps on its prototype.
 */
export function retargetRequest(request: InvokeRequest, functionRef: string): InvokeRequest {
  return new RetargetedRequest(request, functionRef);
}

/** A class, so that the payload getter is shared on its prototype rather than made per request. */
class RetargetedRequest implements InvokeRequest {
  readonly functionRef: string;
  readonly event: (() => unknown) | undefined;
  readonly signal: AbortSignal | undefined;
  readonly onThrottle: (() => void) | undefined;
  readonly traceContext: TraceCarrier | undefined;
  readonly #request: InvokeRequest;

  constructor(request: InvokeRequest, functionRef: string) {
    this.#request = request;
    this.functionRef = functionRef;
    this.event = request.event;
    this.signal = request.signal;
    this.onThrottle = request.onThrottle;
    this.traceContext = request.traceContext;
  }

  get payload(): Buffer {
    return this.#request.payload;
  }
}
