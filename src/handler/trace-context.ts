/**
 * The handler kit's W3C trace context helpers: the checks live in src/util/trace-context.ts, shared with
 * the poller's consumer and invoke layers (the kit package compiles that file with the kit:
 * infra/npm/handler/tsconfig.json).
 */
export * from '../util/trace-context.js';
