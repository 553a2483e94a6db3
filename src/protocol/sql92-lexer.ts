/**
 * The lexer of SQL92 message filters, token for token what the broker's (JavaCC) lexer produces:
 * longest match, keywords case-insensitive, identifiers ASCII only, whitespace only space, tab, CR, LF
 * and FF, `/* *\/` comments, and `--` comments only when a line break ends them (the broker's lexer
 * reads a `--` that runs to the end of the input as two minus signs).
 */

/**
 * The kinds of {@link Token}. `end` closes every token list; `invalid` closes it instead where the
 * input cannot be lexed (an unknown character, an unterminated string or comment).
 */
export type TokenType =
  | 'identifier'
  | 'keyword'
  | 'string'
  | 'integer'
  | 'float'
  | 'symbol'
  | 'end'
  | 'invalid';

/**
 * One token of an SQL92 filter.
 */
export interface Token {
  type: TokenType;
  /** The source text; for `invalid`, the lexer's complaint. */
  text: string;
  index: number;
}

const KEYWORDS = new Set('NOT AND OR BETWEEN IN TRUE FALSE NULL IS CONTAINS STARTSWITH ENDSWITH'.split(' '));
// Two-character symbols first: the lexer takes the longest match.
const SYMBOLS = ['<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '+', '-'];
const WHITESPACE = ' \t\n\r\f';
const FLOAT = /[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+/y;
const INTEGER = /0|[1-9][0-9]*[lL]?/y;
const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const LINE_BREAK = /[\n\r]/g;
const CHARACTER_HINTS: Record<string, string> = {
  '!': 'write <> for "not equal"',
  '&': 'write AND',
  '|': 'write OR',
  '"': 'strings take single quotes',
  '*': 'arithmetic is not supported',
  '/': 'arithmetic is not supported',
  '%': 'arithmetic is not supported',
};

/**
 * The tokens of `source`, skipping whitespace and comments, ending with an `end` token, or with an
 * `invalid` one (its text the complaint) where lexing failed.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const invalid = (index: number, problem: string, hint?: string): Token[] => [
    ...tokens,
    {
      type: 'invalid',
      text: `${problem} at ${where(source, index)}${hint === undefined ? '' : ` (${hint})`}`,
      index,
    },
  ];
  const lastLineBreak = Math.max(source.lastIndexOf('\n'), source.lastIndexOf('\r'));
  let i = 0;
  while (i < source.length) {
    const char = source.charAt(i);
    if (WHITESPACE.includes(char)) {
      i += 1;
      continue;
    }
    // Without a line break after it the broker's lexer reads `--` as two minus signs, not as a comment.
    if (source.startsWith('--', i) && i < lastLineBreak) {
      LINE_BREAK.lastIndex = i;
      LINE_BREAK.test(source);
      i = LINE_BREAK.lastIndex;
      continue;
    }
    if (source.startsWith('/*', i)) {
      const close = source.indexOf('*/', i + 2);
      if (close < 0) return invalid(i, 'unterminated comment');
      i = close + 2;
      continue;
    }
    const text = lexString(source, i) ?? lexNumber(source, i) ?? match(IDENTIFIER, source, i);
    if (text === undefined && char === "'") return invalid(i, 'unterminated string');
    if (text !== undefined) {
      tokens.push({ type: tokenType(text), text, index: i });
      i += text.length;
      continue;
    }
    const symbol = SYMBOLS.find((candidate) => source.startsWith(candidate, i));
    if (symbol === undefined) {
      return invalid(i, `unexpected character ${describeCharacter(source, i)}`, CHARACTER_HINTS[char]);
    }
    tokens.push({ type: 'symbol', text: symbol, index: i });
    i += symbol.length;
  }
  tokens.push({ type: 'end', text: '', index: source.length });
  return tokens;
}

/** `"&"`, `"é" (U+00E9)`, or `U+00A0` for characters that do not show (whitespace, controls). */
function describeCharacter(source: string, index: number): string {
  const codePoint = source.codePointAt(index) ?? 0;
  const char = String.fromCodePoint(codePoint);
  if (codePoint > 0x20 && codePoint < 0x7f) return `"${char}"`;
  const code = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? `"${char}" (${code})` : code;
}

function lexString(source: string, start: number): string | undefined {
  if (source.charAt(start) !== "'") return undefined;
  let from = start + 1;
  for (;;) {
    const quote = source.indexOf("'", from);
    if (quote < 0) return undefined;
    if (source.charAt(quote + 1) !== "'") return source.slice(start, quote + 1);
    from = quote + 2; // '' is an escaped quote
  }
}

function lexNumber(source: string, start: number): string | undefined {
  const float = match(FLOAT, source, start);
  const integer = match(INTEGER, source, start);
  return float !== undefined && float.length > (integer?.length ?? 0) ? float : integer;
}

function match(pattern: RegExp, source: string, start: number): string | undefined {
  pattern.lastIndex = start;
  return pattern.exec(source)?.[0];
}

function tokenType(text: string): TokenType {
  if (text.startsWith("'")) return 'string';
  if (/^[0-9.]/.test(text)) return /^(?:0|[1-9][0-9]*[lL]?)$/.test(text) ? 'integer' : 'float';
  return KEYWORDS.has(text.toUpperCase()) ? 'keyword' : 'identifier';
}

/**
 * Where `index` is, for messages: `column 7`, or `line 2, column 3` in a filter of several lines.
 * Columns count characters (code points), from 1.
 */
export function where(source: string, index: number): string {
  const lines = source.slice(0, index).split(/\r\n|\r|\n/);
  const column = [...(lines[lines.length - 1] ?? '')].length + 1;
  return lines.length === 1 ? `column ${column}` : `line ${lines.length}, column ${column}`;
}
