/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as a record carries it: a producer
 * instrumented with OpenTelemetry puts `traceparent` (and maybe `tracestate`) into the message's user
 * properties; the poller checks them here and hands the valid ones to the function as
 * `record.traceContext` (docs/tracing.md). Pure and dependency-free: the handler kit uses it inside users'
 * functions, the poller (src/invoke) when it builds records and spans.
 */

/**
 * A record's W3C trace context: the carrier OpenTelemetry's propagation API reads,
 * `propagation.extract(context.active(), record.traceContext)` (with the W3C propagator registered, the
 * default of the Node SDK).
 */
export interface TraceCarrier {
  /** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, lowercase, checked by {@link parseTraceparent}. */
  traceparent: string;
  /** The vendors' list, at most {@link MAX_TRACESTATE_CHARS} characters and {@link MAX_TRACESTATE_MEMBERS} members. */
  tracestate?: string;
}

/**
 * A span context as OpenTelemetry's API describes one (`SpanContext` of `@opentelemetry/api`, without
 * its `traceState` object), from a record's traceparent: usable as a link, `{ context: spanContext }`, or
 * as a parent, `trace.setSpanContext(context.active(), spanContext)`.
 */
export interface RecordSpanContext {
  traceId: string;
  spanId: string;
  /** Bit 0 (1): sampled. */
  traceFlags: number;
  /** Always true: the context came from another process. */
  isRemote: true;
}

/** The longest `tracestate` kept: the length W3C asks every vendor to pass on at least. */
export const MAX_TRACESTATE_CHARS = 512;
/** The most list members a `tracestate` may have (W3C). */
export const MAX_TRACESTATE_MEMBERS = 32;
/** The length of a version-00 traceparent. */
const TRACEPARENT_CHARS = 55;
/** The longest traceparent read (a later version may append fields; none is defined yet). */
export const MAX_TRACEPARENT_CHARS = 256;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/** A tracestate list member: a simple or a multi-tenant key (`tenant@system`), `=`, a value (W3C). */
const TRACESTATE_MEMBER =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** Optional white space around list members. */
const OWS = /^[ \t]+|[ \t]+$/g;

/** A parsed traceparent. */
export interface ParsedTraceparent {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  /** The traceparent as version 00 (a later version's first four fields, which version 00 reads). */
  readonly traceparent: string;
}

/** {@link parseTraceparent}'s verdict: the parsed value, or why the text is not one. */
export type TraceparentResult =
  | { readonly ok: true; readonly value: ParsedTraceparent }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks a `traceparent` value as W3C says a version-00 parser must: `version-traceid-parentid-flags`,
 * lowercase hex, version not `ff`, a trace id and a span id that are not all zero; version 00 exactly 55
 * characters, a later version at least that and its extra fields after a `-` (read as version 00).
 *
 * @example
 * ```ts
 * parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
 * // { ok: true, value: { traceId: '4bf9…4736', spanId: '00f0…02b7', traceFlags: 1, traceparent: '00-…-01' } }
 * ```
 */
export function parseTraceparent(text: string): TraceparentResult {
  if (text.length < TRACEPARENT_CHARS) {
    return { ok: false, reason: `traceparent is ${text.length} characters, shorter than 55` };
  }
  if (text.length > MAX_TRACEPARENT_CHARS) {
    return { ok: false, reason: `traceparent is ${text.length} characters, over ${MAX_TRACEPARENT_CHARS}` };
  }
  const match = TRACEPARENT.exec(text);
  if (match === null) {
    return { ok: false, reason: 'traceparent is not version-traceid-parentid-flags in lowercase hex' };
  }
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === 'ff') return { ok: false, reason: 'traceparent version ff is invalid' };
  if (version === '00' && rest !== undefined) {
    return { ok: false, reason: 'traceparent version 00 is longer than 55 characters' };
  }
  if (ALL_ZERO.test(traceId)) return { ok: false, reason: 'traceparent trace id is all zeros' };
  if (ALL_ZERO.test(spanId)) return { ok: false, reason: 'traceparent parent id is all zeros' };
  const traceparent = version === '00' ? text : `00-${traceId}-${spanId}-${flags}`;
  return { ok: true, value: { traceId, spanId, traceFlags: Number.parseInt(flags, 16), traceparent } };
}

/** {@link checkTracestate}'s verdict. */
export type TracestateResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Checks a `tracestate` value: at most {@link MAX_TRACESTATE_CHARS} characters and
 * {@link MAX_TRACESTATE_MEMBERS} list members, each `key=value` as W3C defines them (empty members
 * between commas are allowed).
 */
export function checkTracestate(text: string): TracestateResult {
  if (text.length > MAX_TRACESTATE_CHARS) {
    return { ok: false, reason: `tracestate is ${text.length} characters, over ${MAX_TRACESTATE_CHARS}` };
  }
  const members = text.split(',');
  let count = 0;
  for (const raw of members) {
    const member = raw.replace(OWS, '');
    if (member === '') continue;
    if (++count > MAX_TRACESTATE_MEMBERS) {
      return { ok: false, reason: `tracestate has over ${MAX_TRACESTATE_MEMBERS} members` };
    }
    if (!TRACESTATE_MEMBER.test(member)) {
      return { ok: false, reason: `tracestate member ${count} is not key=value as W3C defines them` };
    }
  }
  return { ok: true };
}

/** {@link traceCarrierOf}'s verdict: the carrier (maybe without the tracestate given), or why none. */
export interface TraceCarrierResult {
  /** The valid context; undefined when there is no traceparent or it is invalid. */
  readonly carrier: TraceCarrier | undefined;
  /** Why the traceparent, or only the tracestate, was dropped; undefined when nothing was. */
  readonly problem: string | undefined;
}

const NOTHING: TraceCarrierResult = { carrier: undefined, problem: undefined };

/**
 * The trace context of a message's `traceparent` and `tracestate` properties: none without a
 * traceparent; none, with the reason, for an invalid one; the traceparent alone, with the reason, when
 * only the tracestate is invalid (W3C: a bad tracestate does not void the traceparent).
 */
export function traceCarrierOf(
  traceparent: string | undefined,
  tracestate: string | undefined,
): TraceCarrierResult {
  if (traceparent === undefined) return NOTHING;
  const parsed = parseTraceparent(traceparent);
  if (!parsed.ok) return { carrier: undefined, problem: parsed.reason };
  const value = parsed.value.traceparent;
  if (tracestate === undefined || tracestate === '')
    return { carrier: { traceparent: value }, problem: undefined };
  const state = checkTracestate(tracestate);
  return state.ok
    ? { carrier: { traceparent: value, tracestate }, problem: undefined }
    : { carrier: { traceparent: value }, problem: state.reason };
}

/**
 * The span context of a record's trace context, for a link or a parent in the handler; undefined when
 * the record carries none (or a traceparent that does not parse, which the poller never sends).
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { recordSpanContext } from 'rocketmq-lambda-handler';
 *
 * const links = event.Records.flatMap((r) => {
 *   const spanContext = recordSpanContext(r);
 *   return spanContext === undefined ? [] : [{ context: spanContext }];
 * });
 * trace.getTracer('orders').startActiveSpan('process orders', { links }, (span) => { ...; span.end(); });
 * ```
 */
export function recordSpanContext(record: {
  readonly traceContext?: TraceCarrier | undefined;
}): RecordSpanContext | undefined {
  const carrier = record.traceContext;
  if (carrier === undefined) return undefined;
  const parsed = parseTraceparent(carrier.traceparent);
  if (!parsed.ok) return undefined;
  const { traceId, spanId, traceFlags } = parsed.value;
  return { traceId, spanId, traceFlags, isRemote: true };
}
