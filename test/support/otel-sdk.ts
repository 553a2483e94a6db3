/**
 * An OpenTelemetry SDK registered for a test (or a bench): the 2.x SDK's BasicTracerProvider exporting
 * to memory, an AsyncLocalStorage context manager and the W3C propagator, as a user's `NodeSDK` would
 * register them. `stop` unregisters all three (the API's globals live on `globalThis`).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A registered SDK: its finished spans, and how to unregister it. */
export interface TestSdk {
  readonly exporter: InMemorySpanExporter;
  /** The finished spans so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The finished span named `name` (exactly one must exist). */
  span(name: string): ReadableSpan;
  stop(): Promise<void>;
}

/** Registers the SDK globally; call `stop` when done (e.g. in `onTestFinished`). */
export function registerTestSdk(): TestSdk {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!trace.setGlobalTracerProvider(provider)) throw new Error('a tracer provider is registered already');
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    span(name) {
      const named = exporter.getFinishedSpans().filter((s) => s.name === name);
      if (named.length !== 1) {
        const all = exporter.getFinishedSpans().map((s) => s.name);
        throw new Error(
          `expected one span named ${JSON.stringify(name)}, found ${named.length} in ${JSON.stringify(all)}`,
        );
      }
      return named[0] as ReadableSpan;
    },
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Registers globally a tracer provider whose span processor throws on every span start (a broken SDK
 * a user may register): what is traced must go on without spans. `stop` unregisters it.
 */
export function registerThrowingSdk(): { stop(): void } {
  const throwing = new BasicTracerProvider({
    spanProcessors: [
      {
        onStart: () => {
          throw new Error('a broken span processor');
        },
        onEnd: () => undefined,
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
    ],
  });
  if (!trace.setGlobalTracerProvider(throwing)) throw new Error('a tracer provider is registered already');
  return { stop: () => trace.disable() };
}
