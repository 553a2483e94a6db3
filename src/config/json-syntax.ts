/**
 * Where a JSON text is broken and what kind of break it is, found by our own scan rather than read from
 * `JSON.parse`'s message: V8's messages quote the text around the error (`Unexpected token 'J',
 * ..."ecretKey":JsonSecret"...`), and a config holds secrets. Every description here is a constant: no
 * character of the text ever reaches it. The scan also refuses what `JSON.parse` lets through silently
 * (a key given twice, the last one winning) and nesting deeper than a config needs.
 */

/**
 * The first syntax problem of a JSON text: its offset (UTF-16 units from the start) and a description
 * of its class, which never quotes the text.
 */
export interface JsonSyntaxProblem {
  readonly offset: number;
  readonly description: string;
}

/** Where the scan is: what the next meaningful character must be. */
type Expect = 'value' | 'key' | 'colon' | 'after-value';

interface Container {
  readonly kind: 'object' | 'array';
  /** An object's keys so far, to refuse a duplicate. */
  readonly keys: Set<string>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first problem of `text` as JSON, or undefined when it is one well-formed JSON value with unique
 * keys nested at most `maxDepth` deep, with at most `maxItems` keys and values (every string, number,
 * literal, object and array counts, at any depth). Iterative (a deeply nested text cannot overflow the
 * stack).
 */
export function findJsonSyntaxProblem(
  text: string,
  maxDepth: number,
  maxItems: number = Number.POSITIVE_INFINITY,
): JsonSyntaxProblem | undefined {
  const stack: Container[] = [];
  let items = 0;
  let expect: Expect = 'value';
  /** A `,` was just read (a closer now would be a trailing comma). */
  let afterComma = false;
  /** A `{` or `[` was just read (a closer now closes an empty container). */
  let justOpened = false;
  let i = skipWhitespace(text, 0);
  const problem = (offset: number, description: string): JsonSyntaxProblem => ({ offset, description });

  while (i < text.length) {
    const code = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if ((expect === 'value' || expect === 'key') && code !== 0x5d && code !== 0x7d) {
      items++;
      if (items > maxItems) {
        return problem(
          i,
          `more than ${maxItems} keys and values: larger than a config needs (is this the right file?)`,
        );
      }
    }
    switch (expect) {
      case 'value': {
        if (code === QUOTE) {
          const end = stringEnd(text, i);
          if (typeof end !== 'number') return end;
          i = end;
          expect = 'after-value';
        } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
          if (stack.length >= maxDepth) return problem(i, `nested more than ${maxDepth} levels deep`);
          const kind = code === 0x7b ? 'object' : 'array';
          stack.push({ kind, keys: new Set() });
          i++;
          expect = kind === 'object' ? 'key' : 'value';
          justOpened = true;
          afterComma = false;
          i = skipWhitespace(text, i);
          continue;
        } else if (code === 0x5d /* ] */ && top?.kind === 'array' && justOpened) {
          stack.pop();
          i++;
          expect = 'after-value';
        } else if (code === 0x2d /* - */ || isDigit(code)) {
          const end = numberEnd(text, i);
          if (typeof end !== 'number') return end;
          i = end;
          expect = 'after-value';
        } else if (isLetter(code)) {
          const end = wordEnd(text, i);
          const word = text.slice(i, end);
          if (word !== 'true' && word !== 'false' && word !== 'null') {
            return problem(
              i,
              'a letter where a value should be (is a string missing its double quotes? the only bare words are true, false and null)',
            );
          }
          i = end;
          expect = 'after-value';
        } else if ((code === 0x5d || code === 0x7d) && afterComma) {
          return problem(i, 'a comma before a closing bracket (JSON allows no trailing comma)');
        } else {
          return problem(i, `${characterClass(code)} where a value should be`);
        }
        afterComma = false;
        justOpened = false;
        break;
      }
      case 'key': {
        if (code === QUOTE) {
          const end = stringEnd(text, i);
          if (typeof end !== 'number') return end;
          // The string is well-formed here, so JSON.parse reads just this key.
          const key = JSON.parse(text.slice(i, end)) as string;
          if (top?.keys.has(key) === true) return problem(i, 'a duplicate key (each key may appear once)');
          top?.keys.add(key);
          i = end;
          expect = 'colon';
        } else if (code === 0x7d && justOpened) {
          stack.pop();
          i++;
          expect = 'after-value';
        } else if (code === 0x7d && afterComma) {
          return problem(i, 'a comma before a closing bracket (JSON allows no trailing comma)');
        } else if (isLetter(code) || code === 0x5f /* _ */ || code === 0x24 /* $ */) {
          return problem(i, 'a key without double quotes (JSON keys are quoted: "key": value)');
        } else {
          return problem(i, `${characterClass(code)} where a key in double quotes should be`);
        }
        afterComma = false;
        justOpened = false;
        break;
      }
      case 'colon':
        if (code !== 0x3a /* : */)
          return problem(i, `${characterClass(code)} where a : should follow the key`);
        i++;
        expect = 'value';
        break;
      case 'after-value': {
        if (top === undefined) return problem(i, 'more text after the end of the JSON value');
        const closer = top.kind === 'object' ? 0x7d : 0x5d;
        if (code === 0x2c /* , */) {
          i++;
          expect = top.kind === 'object' ? 'key' : 'value';
          afterComma = true;
        } else if (code === closer) {
          stack.pop();
          i++;
        } else if (code === 0x5d || code === 0x7d) {
          return problem(i, `a closing ${code === 0x5d ? ']' : '}'} that matches no opening bracket`);
        } else {
          const want = top.kind === 'object' ? ', or } after a value' : ', or ] after a value';
          return problem(i, `${characterClass(code)} where ${want} should be (a missing comma?)`);
        }
        break;
      }
    }
    i = skipWhitespace(text, i);
  }
  if (expect === 'after-value' && stack.length === 0) return undefined;
  if (stack.length === 0 && expect === 'value') return problem(text.length, 'no JSON value');
  return problem(text.length, 'unexpected end of input (an unclosed { or [, or a value missing at the end)');
}

/** The offset after the string starting at `start` (a `"`), or its problem. */
function stringEnd(text: string, start: number): number | JsonSyntaxProblem {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code < 0x20) {
      return {
        offset: i,
        description:
          'a control character inside a string (a line break or tab in a string is written \\n or \\t; is the closing quote missing?)',
      };
    }
    if (code === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      if (next === 0x75 /* u */) {
        for (let k = 2; k <= 5; k++) {
          if (!isHexDigit(text.charCodeAt(i + k))) {
            return { offset: i, description: 'a bad \\u escape in a string (\\u takes four hex digits)' };
          }
        }
        i += 5;
      } else if (ESCAPABLE.has(next)) {
        i++;
      } else {
        return {
          offset: i,
          description:
            'a bad escape in a string (a backslash is written \\\\; the escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)',
        };
      }
    }
  }
  return { offset: start, description: 'an unterminated string (no closing double quote)' };
}

/** Characters that may follow a backslash in a JSON string, besides `u`. */
const ESCAPABLE: ReadonlySet<number> = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** The offset after the number starting at `start`, or its problem (JSON's number grammar exactly). */
function numberEnd(text: string, start: number): number | JsonSyntaxProblem {
  let i = start;
  const bad = (why: string): JsonSyntaxProblem => ({ offset: start, description: `a bad number (${why})` });
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30 /* 0 */) {
    i++;
    if (isDigit(text.charCodeAt(i))) return bad('no leading zeros');
  } else if (isDigit(text.charCodeAt(i))) {
    while (isDigit(text.charCodeAt(i))) i++;
  } else {
    return bad('a digit must follow the minus sign');
  }
  if (text.charCodeAt(i) === 0x2e /* . */) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return bad('a digit must follow the decimal point');
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return bad('the exponent needs digits');
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

function wordEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && (isLetter(text.charCodeAt(i)) || isDigit(text.charCodeAt(i)))) i++;
  return i;
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) break;
  }
  return i;
}

/**
 * What kind of character stands at an error: JSON's punctuation by name (it is never part of a secret
 * worth hiding), anything else only by class.
 */
function characterClass(code: number): string {
  const punctuation = PUNCTUATION.get(code);
  if (punctuation !== undefined) return punctuation;
  if (isLetter(code)) return 'a letter';
  if (isDigit(code)) return 'a digit';
  if (code < 0x20 || code === 0x7f) return 'a control character';
  if (code === 0xfeff) return 'a byte order mark';
  if (code >= 0x80) return 'a non-ASCII character';
  return 'an unexpected character';
}

const PUNCTUATION: ReadonlyMap<number, string> = new Map([
  [0x7b, 'a {'],
  [0x7d, 'a }'],
  [0x5b, 'a ['],
  [0x5d, 'a ]'],
  [0x3a, 'a :'],
  [0x2c, 'a ,'],
  [0x22, 'a "'],
  [0x27, "a ' (JSON strings take double quotes)"],
  [0x2f, 'a / (JSON has no comments)'],
  [0x23, 'a # (JSON has no comments)'],
]);

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isHexDigit(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
