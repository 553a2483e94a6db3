/**
 * One line that says why something failed: the error's message, or its name and code when the message
 * is empty (AWS SDK and socket errors often have neither a useful name nor a message on their own),
 * followed by the reasons of its causes. Log lines keep the whole error as `err`; this is for the
 * sentences we put in error messages and on stderr.
 */

/** How many causes deep {@link describeError} looks. */
const MAX_CAUSE_DEPTH = 4;

/**
 * A one-line reason for `error`, with its causes (`a: b: c`), never empty.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    const part = describeOne(current);
    const previous = parts[parts.length - 1];
    // A wrapper often repeats its cause's message ("x failed: ECONNREFUSED" then "ECONNREFUSED").
    if (part !== '' && (previous === undefined || !previous.includes(part))) parts.push(part);
    current = current instanceof Error ? current.cause : undefined;
  }
  // One line: brokers end some messages with a line break and a FAQ link.
  return parts.length === 0 ? 'unknown error' : parts.join(': ').replace(/\s*\n\s*/g, ' ');
}

/**
 * Names worth printing before a message: AWS SDK exceptions (`ResourceNotFoundException`) and the
 * language's own error types. Our error classes say everything in their messages.
 */
function namedByType(name: string): boolean {
  return name.endsWith('Exception') || JS_ERROR_NAMES.has(name);
}

const JS_ERROR_NAMES: ReadonlySet<string> = new Set([
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
]);

function describeOne(error: unknown): string {
  if (error instanceof AggregateError) {
    const inner = error.errors.map(describeError);
    const first = inner[0];
    const head = error.message === '' ? '' : `${error.message} `;
    if (first === undefined) return error.message;
    return `${head}(${inner.length} errors, first: ${first})`;
  }
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const codeText = typeof code === 'string' || typeof code === 'number' ? String(code) : '';
  if (error.message !== '') {
    return namedByType(error.name) && !error.message.includes(error.name)
      ? `${error.name}: ${error.message}`
      : error.message;
  }
  return [error.name, codeText].filter((text) => text !== '').join(' ');
}
