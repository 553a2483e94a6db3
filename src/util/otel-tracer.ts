/**
 * What the poller's OpenTelemetry spans share across layers (docs/tracing.md): whether the user registered
 * an SDK, the poller's tracer, the link bound, and running a tracing step so that a throwing SDK never
 * fails consumption. Through `@opentelemetry/api` only; no SDK or exporter is bundled.
 */
import { ProxyTracerProvider, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { buildInfo } from './build-info.js';
import type { Logger } from './logger.js';
import { sharedThrottledLog } from './shared-throttled-log.js';

/** The instrumentation scope of the poller's spans. */
export const TRACER_NAME = 'rocketmq-lambda';
/**
 * The most links a span of ours gets (one per message with a trace context): the OpenTelemetry SDK's
 * default span link limit. Links past it are counted in `rocketmq_lambda.links_dropped`.
 */
export const MAX_SPAN_LINKS = 128;

/** The API's own no-op provider: what the global proxy delegates to while no SDK is registered. */
const NOOP_DELEGATE = new ProxyTracerProvider().getDelegate();

/**
 * The tracer provider registered (`trace.setGlobalTracerProvider`, which every OpenTelemetry SDK's
 * `register()` calls), or undefined while none is: the API's global is then its proxy without a
 * delegate, every span would be a no-op, so none is made.
 */
export function registeredTracerProvider(): TracerProvider | undefined {
  const provider = trace.getTracerProvider();
  if (!(provider instanceof ProxyTracerProvider)) return provider;
  const delegate = provider.getDelegate();
  return delegate === NOOP_DELEGATE ? undefined : delegate;
}

let cached: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/** The poller's tracer of `provider` (made again when another provider is registered). */
export function pollerTracer(provider: TracerProvider): Tracer {
  if (cached?.provider !== provider) {
    cached = { provider, tracer: provider.getTracer(TRACER_NAME, buildInfo().version) };
  }
  return cached.tracer;
}

/**
 * Runs `step` of the tracing, never letting it fail the work traced: a registered SDK that throws (a bad
 * processor, an exporter that throws synchronously) costs the trace, not the messages. Warned on `log`
 * once per 30 s per step.
 */
export function tracingStep<T>(log: Logger, step: string, run: () => T, fallback: T): T {
  try {
    return run();
  } catch (error) {
    sharedThrottledLog(log).warn(
      step,
      { err: error, step },
      'tracing failed; consumption goes on without it',
    );
    return fallback;
  }
}
