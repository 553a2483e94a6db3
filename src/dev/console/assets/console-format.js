// The console page's pure helpers (no DOM, no network): decoding record bodies, formatting times,
// durations and counts, the page's routes and the parsing of what its forms take. console.js renders
// with them; test/unit/dev/console-format.test.ts runs them in Node. Types: console-format.d.ts.

/** Bytes of a hex dump line. */
const HEX_LINE_BYTES = 16;
/** The record and invocation outcomes the invocation filter offers (the server's `outcome` filter). */
export const OUTCOMES = [
  'succeeded',
  'partial',
  'failed',
  'error',
  'retried',
  'dead-lettered',
  'filtered',
  'pending',
];
/** Outcomes an invocation (not a record) can have: a summary can be matched on them without its records. */
const INVOCATION_OUTCOMES = new Set(['succeeded', 'partial', 'failed', 'error']);
/** The filters of the invocations list, in the order of the form and the query string. */
export const INVOCATION_FILTERS = ['mapping', 'outcome', 'messageId', 'key'];

/**
 * A record's or dead letter's body as the page shows it: `{ label, text }`, text JSON pretty-printed
 * (2 spaces), binary as a hex dump. An unknown shape is shown as its JSON, labelled so.
 */
export function describeBody(body) {
  if (body !== null && typeof body === 'object') {
    if (body.kind === 'text' && typeof body.text === 'string') return { label: 'text', text: body.text };
    if (body.kind === 'json')
      return { label: 'JSON', text: JSON.stringify(body.json, null, 2) ?? 'undefined' };
    if (body.kind === 'binary' && typeof body.hex === 'string') {
      const bytes = typeof body.bytes === 'number' ? body.bytes : body.hex.length / 2;
      return { label: `binary, ${formatCount(bytes, 'byte')}`, text: hexDump(body.hex) };
    }
  }
  return { label: 'unknown body', text: JSON.stringify(body, null, 2) ?? 'undefined' };
}

/**
 * A hex string (`48656c6c6f`) as `xxd`-like lines: offset, 16 bytes in hex, the printable ASCII of
 * them (`.` for the rest). Characters that are not hex digits are refused with an error naming them.
 */
export function hexDump(hex) {
  const clean = hex.replace(/\s+/g, '');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(clean)) {
    throw new Error(`not a hex string of whole bytes: ${JSON.stringify(hex.slice(0, 40))}`);
  }
  const lines = [];
  for (let at = 0; at < clean.length / 2; at += HEX_LINE_BYTES) {
    const bytes = [];
    for (let i = at; i < Math.min(at + HEX_LINE_BYTES, clean.length / 2); i++) {
      bytes.push(Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16));
    }
    const hexPart = bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = bytes.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}  ${hexPart.padEnd(HEX_LINE_BYTES * 3 - 1)}  |${ascii}|`);
  }
  return lines.join('\n');
}

/** One line of a body for a table cell: at most `max` characters, newlines as spaces, `…` when cut. */
export function bodyPreview(body, max = 80) {
  const { text } = describeBody(body);
  const flat = body?.kind === 'json' ? JSON.stringify(body.json) : text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A function's response: `{ label, text }`, a result as pretty JSON, an error as `type: message`. */
export function describeResponse(response) {
  if (response?.kind === 'result') {
    return { label: 'result', text: JSON.stringify(response.value, null, 2) ?? '(no result)' };
  }
  if (response?.kind === 'error') {
    return { label: 'error', text: `${response.errorType}: ${response.errorMessage}` };
  }
  return { label: 'no response', text: JSON.stringify(response, null, 2) ?? '(none)' };
}

/** A time (epoch ms or an ISO string) as local `HH:MM:SS.mmm`; an unreadable one as given. */
export function formatTime(value) {
  const date = new Date(value);
  if (value === undefined || value === null || Number.isNaN(date.getTime())) return String(value);
  const two = (n) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A time as an ISO string for `<time datetime>`; undefined when unreadable. */
export function isoTime(value) {
  const date = new Date(value);
  return value === undefined || value === null || Number.isNaN(date.getTime())
    ? undefined
    : date.toISOString();
}

/** A duration: `850 ms`, `1.25 s`, `2 min 5 s`. */
export function formatDuration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** `1 record`, `3 records`. */
export function formatCount(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A queue's lag: `–` when unknown (null). */
export function formatLag(lag) {
  return lag === null || lag === undefined ? '–' : String(lag);
}

/** The total lag of a mapping's queues, null when no queue's lag is known. */
export function totalLag(queues) {
  const known = (queues ?? []).filter((q) => typeof q.lag === 'number');
  return known.length === 0 ? null : known.reduce((sum, q) => sum + q.lag, 0);
}

/** A mapping's health in words: `healthy`, or `unhealthy: <reason>`. */
export function describeHealth(health) {
  if (health?.healthy === true) return 'healthy';
  return health?.reason ? `unhealthy: ${health.reason}` : 'unhealthy';
}

/**
 * The page's location (`location.hash`) as a route: `{ view, id?, query }` with view one of
 * `mappings`, `invocations`, `invocation`, `send`, `dead-letters`, `filtered`, `message`. An unknown hash is the
 * mappings view.
 */
export function parseRoute(hash) {
  const raw = (hash ?? '').replace(/^#/, '');
  const [pathPart = '', queryPart = ''] = raw.split('?', 2);
  const query = Object.fromEntries(new URLSearchParams(queryPart));
  const parts = pathPart.split('/').filter((p) => p !== '');
  const id = parts[1] === undefined ? undefined : decodeURIComponent(parts[1]);
  switch (parts[0]) {
    case 'invocations':
      return id === undefined ? { view: 'invocations', query } : { view: 'invocation', id, query };
    case 'send':
      return { view: 'send', query };
    case 'dead-letters':
      return { view: 'dead-letters', query };
    case 'filtered':
      return { view: 'filtered', query };
    case 'messages':
      return { view: 'message', id, query };
    default:
      return { view: 'mappings', query };
  }
}

/** The hash of a route: the inverse of {@link parseRoute} (empty query values left out). */
export function routeHash(view, id, query = {}) {
  const base = {
    mappings: '#/mappings',
    invocations: '#/invocations',
    invocation: '#/invocations',
    send: '#/send',
    'dead-letters': '#/dead-letters',
    filtered: '#/filtered',
    message: '#/messages',
  }[view];
  if (base === undefined) throw new Error(`unknown view ${JSON.stringify(view)}`);
  const search = queryString(query);
  return `${base}${id === undefined ? '' : `/${encodeURIComponent(id)}`}${search === '' ? '' : `?${search}`}`;
}

/** `a=1&b=2` of the non-empty values of `query` (strings and numbers). */
export function queryString(query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && String(value).trim() !== '')
      params.set(name, String(value).trim());
  }
  return params.toString();
}

/** The invocation filters of a route's query: only the known ones, trimmed, empty ones left out. */
export function invocationFilters(query) {
  const filters = {};
  for (const name of INVOCATION_FILTERS) {
    const value = query?.[name];
    if (typeof value === 'string' && value.trim() !== '') filters[name] = value.trim();
  }
  return filters;
}

/**
 * Whether a live invocation summary belongs in a list filtered by `filters`: `yes`, `no`, or
 * `unknown` when it depends on its records (a key, or a record outcome), which a summary does not carry.
 */
export function summaryMatches(summary, filters) {
  if (filters.mapping !== undefined && summary.mappingId !== filters.mapping) return 'no';
  if (filters.messageId !== undefined && !(summary.messageIds ?? []).includes(filters.messageId)) return 'no';
  let unknown = filters.key !== undefined;
  if (filters.outcome !== undefined && summary.outcome !== filters.outcome) {
    // A record outcome (retried, dead-lettered...) may still match one of its records.
    if (INVOCATION_OUTCOMES.has(filters.outcome)) return 'no';
    unknown = true;
  }
  return unknown ? 'unknown' : 'yes';
}

/**
 * An edited event (the replay textarea) as an object, or `{ error }` naming what is wrong: the JSON
 * parser's message, or that an event must be a JSON object.
 */
export function parseEvent(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      error: `the event is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      error: `the event must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    };
  }
  return { event: value };
}

/** Keys typed in the send form: separated by commas, spaces or newlines, empty ones dropped. */
export function parseKeys(text) {
  return (text ?? '')
    .split(/[\s,]+/)
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

/**
 * Properties typed in the send form, one `name=value` a line (blank lines ignored): `{ properties }`, or
 * `{ error }` naming the first bad line (no `=`, an empty name, a name given twice).
 */
export function parseProperties(text) {
  const properties = {};
  const lines = (text ?? '').split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    const name = at < 0 ? '' : line.slice(0, at).trim();
    if (at < 0 || name === '') {
      return { error: `property line ${index + 1} is not name=value: ${JSON.stringify(line)}` };
    }
    if (Object.hasOwn(properties, name)) {
      return { error: `property ${JSON.stringify(name)} is given twice (line ${index + 1})` };
    }
    properties[name] = line.slice(at + 1).trim();
  }
  return { properties };
}

/**
 * The body of `POST /api/send` from the send form's fields, or `{ error }` naming what is wrong. Tags,
 * keys and properties are left out when empty.
 */
export function sendRequest(fields) {
  const topic = (fields.topic ?? '').trim();
  if (topic === '') return { error: 'a topic is required' };
  const parsed = parseProperties(fields.properties);
  if (parsed.error !== undefined) return { error: parsed.error };
  const request = { topic, body: fields.body ?? '' };
  const tags = (fields.tags ?? '').trim();
  if (tags !== '') request.tags = tags;
  const keys = parseKeys(fields.keys);
  if (keys.length > 0) request.keys = keys;
  if (Object.keys(parsed.properties).length > 0) request.properties = parsed.properties;
  return { request };
}

/** The message of an API error answer (`{ error }`), else the HTTP status in words. */
export function apiErrorMessage(status, statusText, body) {
  if (body !== null && typeof body === 'object' && typeof body.error === 'string') return body.error;
  return `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
}

/** What the way of a message ended as, in words. */
export function describeEnd(endedAs) {
  return (
    {
      succeeded: 'handled: the function succeeded with it',
      'dead-lettered': 'dead-lettered: in the group’s dead-letter topic',
      filtered: 'filtered out: never given to the function',
      'in-flight': 'in flight: being handled or waiting for a retry',
      unknown: 'unknown: no invocation in memory carried it',
    }[endedAs] ?? String(endedAs)
  );
}
