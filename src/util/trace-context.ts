/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as a record carries it: a producer
 * instrumented with OpenTelemetry puts `traceparent` (and maybe `tracestate`) into the message's user
 * properties; the poller checks them here and hands the valid ones to the function as
 * `record.traceContext` (docs/tracing.md). Pure and dependency-free, shared: the handler kit uses it inside
 * users' functions (src/handler/trace-context.ts re-exports it; the kit package compiles it along), the
 * poller when it builds records (src/invoke) and links its spans (src/invoke, src/consumer).
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
  const reason = traceparentProblem(text);
  if (reason !== undefined) return { ok: false, reason };
  const traceId = text.slice(3, 35);
  const spanId = text.slice(36, 52);
  const flags = text.slice(53, 55);
  const traceparent = text.length === TRACEPARENT_CHARS ? text : `00-${traceId}-${spanId}-${flags}`;
  return { ok: true, value: { traceId, spanId, traceFlags: Number.parseInt(flags, 16), traceparent } };
}

const VERSION_00 = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
const NOT_FIELDS = 'traceparent is not version-traceid-parentid-flags in lowercase hex';
const DASH = 0x2d;
/** A run of lowercase hex digits: not one, all zeros, or some other digit. */
const NOT_HEX = 0;
const ZEROS = 1;
const NONZERO = 2;

/** What `text` holds from `from` to `to`: {@link NOT_HEX}, {@link ZEROS} or {@link NONZERO}. */
function hexRun(text: string, from: number, to: number): number {
  let nonzero = false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (c !== 0x30) nonzero = true;
    } else if (c >= 0x61 && c <= 0x66) {
      nonzero = true;
    } else {
      return NOT_HEX;
    }
  }
  return nonzero ? NONZERO : ZEROS;
}

/**
 * Why `text` is no valid traceparent ({@link parseTraceparent}), or undefined when it is one: a scan of
 * its characters, nothing made (every record's traceparent is checked on the consume path).
 */
export function traceparentProblem(text: string): string | undefined {
  // The usual one: a version-00 traceparent, matched without a capture and told apart from all zeros.
  if (
    text.length === TRACEPARENT_CHARS &&
    VERSION_00.test(text) &&
    !text.startsWith(ZERO_TRACE_ID, 3) &&
    !text.startsWith(ZERO_SPAN_ID, 36)
  ) {
    return undefined;
  }
  const length = text.length;
  if (length < TRACEPARENT_CHARS) return `traceparent is ${length} characters, shorter than 55`;
  if (length > MAX_TRACEPARENT_CHARS) {
    return `traceparent is ${length} characters, over ${MAX_TRACEPARENT_CHARS}`;
  }
  if (text.charCodeAt(2) !== DASH || text.charCodeAt(35) !== DASH || text.charCodeAt(52) !== DASH) {
    return NOT_FIELDS;
  }
  if (hexRun(text, 0, 2) === NOT_HEX) return NOT_FIELDS;
  const traceId = hexRun(text, 3, 35);
  const spanId = hexRun(text, 36, 52);
  if (traceId === NOT_HEX || spanId === NOT_HEX || hexRun(text, 53, 55) === NOT_HEX) return NOT_FIELDS;
  if (length > TRACEPARENT_CHARS && text.charCodeAt(55) !== DASH) return NOT_FIELDS;
  const version00 = text.charCodeAt(0) === 0x30 && text.charCodeAt(1) === 0x30;
  if (text.charCodeAt(0) === 0x66 && text.charCodeAt(1) === 0x66) return 'traceparent version ff is invalid';
  if (version00 && length > TRACEPARENT_CHARS) return 'traceparent version 00 is longer than 55 characters';
  if (traceId === ZEROS) return 'traceparent trace id is all zeros';
  if (spanId === ZEROS) return 'traceparent parent id is all zeros';
  return undefined;
}

/** {@link checkTracestate}'s verdict. */
export type TracestateResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Checks a `tracestate` value: at most {@link MAX_TRACESTATE_CHARS} characters and
 * {@link MAX_TRACESTATE_MEMBERS} list members, each `key=value` as W3C defines them (empty members
 * between commas are allowed).
 */
export function checkTracestate(text: string): TracestateResult {
  // A producer often sends the same tracestate message after message: checked once.
  if (text === lastValidTracestate) return VALID;
  const result = checkTracestateText(text);
  if (result.ok) lastValidTracestate = text;
  return result;
}

const VALID: TracestateResult = { ok: true };
let lastValidTracestate: string | undefined;

function checkTracestateText(text: string): TracestateResult {
  if (text.length > MAX_TRACESTATE_CHARS) {
    return { ok: false, reason: `tracestate is ${text.length} characters, over ${MAX_TRACESTATE_CHARS}` };
  }
  const members = text.split(',');
  let count = 0;
  for (const raw of members) {
    const member =
      raw.length > 0 && isOws(raw, 0) + isOws(raw, raw.length - 1) === 0 ? raw : raw.replace(OWS, '');
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

/** 1 when the character at `at` is optional white space (space or tab), else 0. */
function isOws(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c === 0x20 || c === 0x09 ? 1 : 0;
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
  const invalid = traceparentProblem(traceparent);
  if (invalid !== undefined) return { carrier: undefined, problem: invalid };
  // Carried as version 00: a later version's first four fields.
  const value =
    traceparent.length === TRACEPARENT_CHARS ? traceparent : `00${traceparent.slice(2, TRACEPARENT_CHARS)}`;
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
