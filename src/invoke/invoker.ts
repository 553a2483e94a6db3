/**
 * What the consume path calls to run a function once: the Invoker interface and its outcome.
 * Implementations: the LocalInvoker (handler modules in-process) and the Lambda invoker.
 */

import type { TraceCarrier } from '../handler/trace-context.js';

/**
 * Why an invoke failed. Every kind fails the whole batch (docs/writing-a-handler.md, "What to return",
 * rule 1).
 * - `function-error`: the function ran and failed (threw, rejected, called back with an error; Lambda's
 *   `FunctionError` Handled or Unhandled).
 * - `timeout`: the function did not finish in time, or the connection to it hung.
 * - `network`: the request did not reach the function or its answer was lost.
 * - `server-error`: the invoke service answered with a 5xx.
 * - `rejected`: the invoke service refused this request with a 4xx that is neither a throttle nor a
 *   condition that stops the mapping (e.g. an invalid request body).
 * - `payload-too-large`: the request was over the service's payload limit (Lambda: 6 MiB); the listener
 *   then splits the batch, and a single message that cannot fit goes to the failure path.
 * - `malformed-response`: the service answered with a body that is not JSON (truncated, garbled), or
 *   with one over the size limit, which is not read whole (src/invoke/lambda-response-cap.ts).
 * - `aborted`: the caller's signal aborted the invoke (shutdown gave up waiting).
 *
 * Throttles are not a kind: an invoker retries them itself (with backoff, until its request's signal
 * aborts), because a throttle must never count as a consume failure. Conditions that no retry can fix
 * (missing function, access denied) are thrown as an `InvokeError` with `fatal: true` instead.
 */
export type InvokeFailureKind =
  | 'function-error'
  | 'timeout'
  | 'network'
  | 'server-error'
  | 'rejected'
  | 'payload-too-large'
  | 'malformed-response'
  | 'aborted';

/**
 * A failed invoke.
 */
export interface InvokeFailure {
  readonly ok: false;
  readonly kind: InvokeFailureKind;
  /** What went wrong; for `function-error`, Lambda's error shape as JSON (`errorType`, `errorMessage`). */
  readonly message: string;
}

/**
 * The outcome of one invoke: the function's response payload (JSON bytes, as Lambda returns them; `null`
 * when the function returned nothing), or a failure.
 *
 * @example
 * ```ts
 * const outcome = await invoker.invoke({ functionRef, payload });
 * if (outcome.ok) console.log(outcome.payload.toString('utf8'));
 * else console.warn(outcome.kind, outcome.message);
 * ```
 */
export type InvokeOutcome = { readonly ok: true; readonly payload: Buffer } | InvokeFailure;

/**
 * One invoke: which function, with what event. Valid while its invoke runs: read `payload` and `event`
 * before `invoke` settles (the FunctionMessageListener lets go of the records behind them once the batch
 * is done, see docs/architecture.md, "Garbage").
 *
 * @example
 * ```ts
 * const request: InvokeRequest = { functionRef: 'local:./handler.js#handler', payload: serializeEvent(group, batch) };
 * ```
 */
export interface InvokeRequest {
  /** `local:./path/module.js#export` for the LocalInvoker; a function name or ARN for Lambda. */
  readonly functionRef: string;
  /** The event, JSON in UTF-8. */
  readonly payload: Buffer;
  /**
   * For an invoker that runs the function in-process: returns, on every call, a fresh object deep-equal
   * to `JSON.parse(payload)` (plain objects and arrays, nothing shared between calls), so that the invoker
   * need not decode and parse `payload`; such an invoker may then never read `payload`. Invokers that send
   * the payload ignore it.
   */
  readonly event?: (() => unknown) | undefined;
  /** Aborting it gives up the invoke: the outcome is then an `aborted` failure. */
  readonly signal?: AbortSignal | undefined;
  /** Called for every attempt the invoke service throttled (the invoker waits and tries again). */
  readonly onThrottle?: (() => void) | undefined;
  /**
   * The W3C trace context the invoke continues (docs/tracing.md): the poller's invoke span, or the
   * records' own context when they share one trace. The Lambda invoker sends it as X-Ray's
   * `X-Amzn-Trace-Id` (and `traceparent`); an in-process invoker runs in the span's context already.
   */
  readonly traceContext?: TraceCarrier | undefined;
}

/**
 * Runs functions. `invoke` resolves with the outcome of an invoke that happened (or was attempted) and
 * rejects only with an `InvokeError` when the function cannot be invoked at all (`fatal` then says
 * whether the mapping must stop). `close` releases connections and caches; invokes after it are rejected.
 *
 * @example
 * ```ts
 * const invoker: Invoker = new LocalInvoker({ baseDir: path.dirname(configFile) });
 * const outcome = await invoker.invoke({ functionRef: 'local:./handler.js', payload });
 * await invoker.close();
 * ```
 */
export interface Invoker {
  invoke(request: InvokeRequest): Promise<InvokeOutcome>;
  close(): Promise<void>;
}
