/**
 * What one invoke gives a LambdaClient besides its input (its abort signal, its trace headers) when the
 * client resolves its middleware stack once (`cacheMiddleware: true`) instead of on every send.
 *
 * Resolving the stack per send (`command.resolveMiddleware`: sorting the stack, building each
 * middleware's closure, the serde and endpoint plugins) cost about 0.1 ms of CPU per invoke in the profile
 * of docs/decisions/2026-12-07-http-invoke-cut.md. The SDK reuses the resolved handler only for a send
 * without options and ignores a command's own middleware then, so the per-invoke parts travel beside the
 * command's input object instead: a client middleware sets the trace headers from it, another hands its
 * abort signal to the request handler, which still destroys the request when it fires.
 */

import type { LambdaClient } from '@aws-sdk/client-lambda';
import { RocketMQError } from '../errors.js';
import { setTraceHeaders } from './lambda-trace-headers.js';

/** What an invoke adds to its command's input. */
export interface LambdaInvokeContext {
  /** Aborts the HTTP request (destroys it). */
  readonly abortSignal: AbortSignal;
  /** Headers set on the request before it is signed (lambda-trace-headers.ts); none when undefined. */
  readonly traceHeaders: Record<string, string> | undefined;
}

/** The request handler's `handle`, as far as it is called here. */
type Handle = (request: unknown, options?: { abortSignal?: AbortSignal }) => Promise<unknown>;

/** The contexts of the clients' inputs in flight. */
const contexts = new WeakMap<object, LambdaInvokeContext>();
/** The signal of each HTTP request about to be handled. */
const requestSignals = new WeakMap<object, AbortSignal>();

/** A name in the client's middleware stack, for stack listings. */
const TRACE_MIDDLEWARE = 'rocketmqLambdaTraceHeaders';
const SIGNAL_MIDDLEWARE = 'rocketmqLambdaAbortSignal';

/**
 * Makes `client` (built with `cacheMiddleware: true`) take each input's {@link LambdaInvokeContext} set by
 * {@link withInvokeContext}: its trace headers before the SDK's own trace middleware and before signing
 * (build step, priority high), its signal passed to the request handler.
 */
export function takeInvokeContexts(client: LambdaClient): void {
  if (client.config.cacheMiddleware !== true) {
    throw new RocketMQError('takeInvokeContexts needs a LambdaClient built with cacheMiddleware: true');
  }
  client.middlewareStack.add(
    (next) => async (args) => {
      const headers = contexts.get(args.input as object)?.traceHeaders;
      if (headers !== undefined) setTraceHeaders(args.request, headers);
      return next(args);
    },
    { step: 'build', priority: 'high', name: TRACE_MIDDLEWARE },
  );
  // The last step before the handler: the request seen here is the signed one the handler is given.
  client.middlewareStack.add(
    (next) => async (args) => {
      const signal = contexts.get(args.input as object)?.abortSignal;
      if (signal !== undefined && typeof args.request === 'object' && args.request !== null) {
        requestSignals.set(args.request, signal);
      }
      return next(args);
    },
    { step: 'deserialize', priority: 'low', name: SIGNAL_MIDDLEWARE },
  );
  const handler = client.config.requestHandler as unknown as { handle: Handle };
  const handle: Handle = handler.handle.bind(handler);
  handler.handle = (request, options) => {
    const abortSignal =
      typeof request === 'object' && request !== null ? requestSignals.get(request) : undefined;
    return handle(request, abortSignal === undefined ? options : { ...options, abortSignal });
  };
}

/**
 * `input` with `context` attached for a client that {@link takeInvokeContexts}; returns it. The context
 * is dropped with the input (a weak reference).
 */
export function withInvokeContext<T extends object>(input: T, context: LambdaInvokeContext): T {
  contexts.set(input, context);
  return input;
}
