/**
 * Checks an SQL92 message filter the way the broker compiles it (RocketMQ 5.x `filter` module), so a
 * bad filter fails when the config is loaded instead of as SUBSCRIPTION_PARSE_FAILED at run time.
 *
 * The grammar (keywords case-insensitive; identifiers ASCII `[A-Za-z_$][A-Za-z0-9_$]*` and never a
 * keyword; whitespace is space, tab, CR, LF, FF; `/* *\/` comments, `--` comments ended by a line break):
 *
 *   filter     := or
 *   or         := and ("OR" and)*
 *   and        := equality ("AND" equality)*
 *   equality   := comparison (("=" | "<>") comparison | "IS" ["NOT"] "NULL")*
 *   comparison := unary ((">" | ">=" | "<" | "<=") unary
 *                       | ["NOT"] ("CONTAINS" | "STARTSWITH" | "ENDSWITH") string
 *                       | ["NOT"] "BETWEEN" unary "AND" unary
 *                       | ["NOT"] "IN" "(" string ("," string)* ")")*
 *   unary      := ("+" | "-" | "NOT") unary | literal | identifier | "(" or ")"
 *   literal    := string | integer | float | "TRUE" | "FALSE" | "NULL"
 *   string     := "'" (any character but "'" | "''")* "'"
 *   integer    := "0" | [1-9][0-9]* ["L"]                 (at most 2^63 - 1)
 *   float      := 1.5 | 1. | .5 | 1e5 | 1.5E-3 ...          (finite and not zero)
 *
 * There is no LIKE, no arithmetic (`-` only negates), no hex or octal. Besides the grammar the broker
 * checks operand types while compiling, and so does this file: AND, OR, NOT and the whole filter need
 * a condition or a property; `>`, `>=`, `<`, `<=` and BETWEEN need numbers, properties or negations;
 * `=` and `<>` refuse NULL and `TRUE = 5` (but not `5 = TRUE`); IN needs a property on its left;
 * literal BETWEEN bounds must not be NULL or in descending order.
 *
 * Two deliberate differences: the broker stops at the end of the first complete expression and
 * ignores what follows (`a LIKE 'x%'` compiles as `a`, `a > 1 b < 2` as `a > 1`), we reject any such
 * rest; and we refuse nesting past {@link MAX_SQL92_NESTING}, where the broker goes on until its stack
 * overflows (somewhere between 1000 and 2000 parentheses). Tokens come from `sql92-lexer.ts`.
 */
import { RocketMQError } from '../errors.js';
import { type Token, type TokenType, tokenize, where } from './sql92-lexer.js';

/**
 * The verdict of {@link checkSql92Filter}: `index` is the UTF-16 offset of the problem in the expression.
 */
export type Sql92FilterCheck = { ok: true } | { ok: false; message: string; index: number };

/**
 * Nesting (parentheses and prefix operators) deeper than this is refused. Far beyond any real filter,
 * and far below the depth at which the broker's parser overflows its stack.
 */
export const MAX_SQL92_NESTING = 200;

/**
 * Checks an SQL92 filter against the broker's grammar and compile-time checks.
 */
export function checkSql92Filter(expression: string): Sql92FilterCheck {
  const tokens = tokenize(expression);
  if (tokens[0]?.type === 'end') {
    return { ok: false, message: 'the SQL92 filter is empty', index: 0 };
  }
  try {
    new Parser(expression, tokens).filter();
    return { ok: true };
  } catch (error) {
    if (error instanceof FilterSyntaxError) return { ok: false, message: error.message, index: error.index };
    throw error;
  }
}

/** What the broker builds for a sub-expression; its compile-time checks look only at this. */
type OperandKind = 'property' | 'number' | 'string' | 'boolean' | 'null' | 'negation' | 'condition';

interface Operand {
  kind: OperandKind;
  start: number;
  end: number;
  /** The value of a number literal, for the BETWEEN bound check. */
  value?: bigint | number;
}

const MAX_LONG = 9_223_372_036_854_775_807n;
const CONSTANTS: readonly OperandKind[] = ['number', 'string', 'boolean', 'null'];
const NEGATABLE = ['CONTAINS', 'STARTSWITH', 'ENDSWITH', 'BETWEEN', 'IN'];

class FilterSyntaxError extends RocketMQError {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

/** Recursive descent over the grammar above, one method per rule; throws {@link FilterSyntaxError}. */
class Parser {
  private position = 0;
  private depth = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  filter(): void {
    const result = this.or();
    this.requireCondition(result, 'a filter');
    const rest = this.peek();
    if (rest.type !== 'end') this.unexpected(rest, 'AND, OR, a comparison or the end of the expression');
  }

  private or(): Operand {
    return this.logical('OR', () => this.and());
  }

  private and(): Operand {
    return this.logical('AND', () => this.equality());
  }

  private logical(keyword: string, operand: () => Operand): Operand {
    let left = operand();
    while (this.accept('keyword', keyword)) {
      const right = operand();
      this.requireCondition(left, keyword);
      this.requireCondition(right, keyword);
      left = condition(left, right.end);
    }
    return left;
  }

  private equality(): Operand {
    let left = this.comparison();
    for (;;) {
      const token = this.peek();
      if (is(token, 'symbol', '=', '<>')) {
        this.position += 1;
        const right = this.comparison();
        this.checkEquality(left, right, token.text);
        left = condition(left, right.end);
      } else if (is(token, 'keyword', 'IS')) {
        this.position += 1;
        const not = this.accept('keyword', 'NOT');
        left = condition(left, this.expect('keyword', 'NULL', not ? 'NULL' : 'NULL or NOT NULL'));
      } else {
        return left;
      }
    }
  }

  private comparison(): Operand {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      if (is(token, 'symbol', '>', '>=', '<', '<=')) {
        this.position += 1;
        const right = this.unary();
        this.requireOrdered(left, token.text);
        this.requireOrdered(right, token.text);
        left = condition(left, right.end);
        continue;
      }
      const not = is(token, 'keyword', 'NOT');
      if (!not && !is(token, 'keyword', ...NEGATABLE)) return left;
      if (not) this.position += 1;
      const operator = this.next();
      if (!is(operator, 'keyword', ...NEGATABLE)) {
        this.unexpected(operator, 'CONTAINS, STARTSWITH, ENDSWITH, BETWEEN or IN after NOT');
      }
      const name = `${not ? 'NOT ' : ''}${operator.text.toUpperCase()}`;
      if (is(operator, 'keyword', 'BETWEEN')) {
        const low = this.unary();
        this.expect('keyword', 'AND', `AND after the lower bound of ${name}`);
        const high = this.unary();
        if (!not) this.checkBounds(low, high);
        for (const operand of [left, low, high]) this.requireOrdered(operand, name);
        left = condition(left, high.end);
      } else if (is(operator, 'keyword', 'IN')) {
        this.expect('symbol', '(', `"(" after ${name}`);
        do this.string(`a string in single quotes in the ${name} list`);
        while (this.accept('symbol', ','));
        const end = this.expect('symbol', ')', `"," or ")" in the ${name} list`);
        if (left.kind !== 'property') {
          this.fail(
            `${this.describe(left)} cannot take ${name}: it needs a property on its left`,
            left.start,
          );
        }
        left = condition(left, end);
      } else {
        left = condition(left, this.string(`a string in single quotes after ${name}`));
      }
    }
  }

  private unary(): Operand {
    const token = this.peek();
    if (!is(token, 'symbol', '+', '-') && !is(token, 'keyword', 'NOT')) return this.primary();
    this.position += 1;
    const operand = this.nested(token.index, () => this.unary());
    if (token.text === '+') return operand;
    if (token.text === '-') return { kind: 'negation', start: token.index, end: operand.end };
    this.requireCondition(operand, 'NOT');
    return condition({ ...operand, start: token.index }, operand.end);
  }

  private primary(): Operand {
    const token = this.next();
    const literal = (kind: OperandKind, value?: bigint | number): Operand => ({
      kind,
      start: token.index,
      end: token.index + token.text.length,
      ...(value === undefined ? {} : { value }),
    });
    if (token.type === 'identifier') return literal('property');
    if (token.type === 'string') return literal('string');
    if (token.type === 'integer') return literal('number', this.integerValue(token));
    if (token.type === 'float') return literal('number', this.floatValue(token));
    if (is(token, 'keyword', 'TRUE', 'FALSE')) return literal('boolean');
    if (is(token, 'keyword', 'NULL')) return literal('null');
    if (!is(token, 'symbol', '(')) this.unexpected(token, 'a value');
    const inner = this.nested(token.index, () => this.or());
    return { ...inner, start: token.index, end: this.expect('symbol', ')', '")"') };
  }

  private integerValue(token: Token): bigint {
    const value = BigInt(token.text.replace(/[lL]$/, ''));
    if (value > MAX_LONG) {
      this.fail(
        `integer ${token.text} at ${this.where(token.index)} is out of range: at most ${MAX_LONG}`,
        token.index,
      );
    }
    return value;
  }

  private floatValue(token: Token): number {
    const value = Number(token.text);
    const at = `number ${token.text} at ${this.where(token.index)}`;
    if (!Number.isFinite(value)) this.fail(`${at} is too large`, token.index);
    // The broker refuses float literals below Double.MIN_VALUE: 0.0 and whatever rounds to it.
    if (value === 0)
      this.fail(`${at} is a floating-point zero, which the broker refuses: write 0`, token.index);
    return value;
  }

  /** Consumes a string literal and returns the index after it. */
  private string(expected: string): number {
    const token = this.next();
    if (token.type !== 'string') this.unexpected(token, expected);
    return token.index + token.text.length;
  }

  /** Parses what the operator or parenthesis at `index` opens, refusing nesting past the limit. */
  private nested(index: number, parse: () => Operand): Operand {
    this.depth += 1;
    if (this.depth > MAX_SQL92_NESTING) {
      this.fail(`the filter nests deeper than ${MAX_SQL92_NESTING} levels at ${this.where(index)}`, index);
    }
    const operand = parse();
    this.depth -= 1;
    return operand;
  }

  private requireCondition(operand: Operand, context: string): void {
    if (operand.kind === 'number' || operand.kind === 'string' || operand.kind === 'negation') {
      this.fail(
        `${this.describe(operand)} is not a condition: ${context} needs a comparison, a property, TRUE or FALSE`,
        operand.start,
      );
    }
  }

  private requireOrdered(operand: Operand, operator: string): void {
    if (operand.kind === 'property' || operand.kind === 'number' || operand.kind === 'negation') return;
    const hint = /^not\b/i.test(this.source.slice(operand.start))
      ? ' (NOT binds tighter than comparisons: put the comparison in parentheses after NOT)'
      : '';
    this.fail(
      `${this.describe(operand)} cannot be compared with ${operator}: it needs numbers or properties${hint}`,
      operand.start,
    );
  }

  private checkEquality(left: Operand, right: Operand, operator: string): void {
    for (const operand of [left, right]) {
      if (operand.kind === 'null') {
        this.fail(
          `${this.describe(operand)} cannot be compared with ${operator}: write IS NULL or IS NOT NULL`,
          operand.start,
        );
      }
    }
    // The broker's check is one-sided: `TRUE = 5` fails, `5 = TRUE` compiles.
    if (left.kind === 'boolean' && CONSTANTS.includes(right.kind) && right.kind !== 'boolean') {
      this.fail(`${this.describe(left)} cannot be compared with ${this.describe(right)}`, left.start);
    }
  }

  private checkBounds(low: Operand, high: Operand): void {
    if (!CONSTANTS.includes(low.kind) || !CONSTANTS.includes(high.kind)) return;
    for (const bound of [low, high]) {
      if (bound.kind === 'null')
        this.fail(`BETWEEN bound ${this.describe(bound)} must not be NULL`, bound.start);
    }
    if (low.value !== undefined && high.value !== undefined && compareNumbers(high.value, low.value) < 0) {
      this.fail(
        `BETWEEN bound ${this.describe(low)} is greater than the upper bound ${this.describe(high)}`,
        low.start,
      );
    }
  }

  private peek(): Token {
    const token = this.tokens[Math.min(this.position, this.tokens.length - 1)];
    if (token === undefined) throw new RocketMQError('tokenize always returns an end token');
    if (token.type === 'invalid') this.fail(token.text, token.index);
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.position += 1;
    return token;
  }

  private accept(type: TokenType, text: string): boolean {
    const accepted = is(this.peek(), type, text);
    if (accepted) this.position += 1;
    return accepted;
  }

  /** Consumes the keyword or symbol and returns the index after it. */
  private expect(type: TokenType, text: string, expected: string): number {
    const token = this.peek();
    if (!this.accept(type, text)) this.unexpected(token, expected);
    return token.index + token.text.length;
  }

  private unexpected(token: Token, expected: string): never {
    if (token.type === 'end') {
      const previous = this.tokens[this.position - 1];
      const index = previous === undefined ? 0 : previous.index + previous.text.length;
      const before = tail(this.source.slice(0, index));
      this.fail(
        `unexpected end of expression after "${before}" (${this.where(index)}): expected ${expected}`,
        index,
      );
    }
    const hint = this.hint(token);
    this.fail(
      `unexpected "${token.text}" at ${this.where(token.index)}: expected ${expected}${hint === undefined ? '' : ` (${hint})`}`,
      token.index,
    );
  }

  private hint(token: Token): string | undefined {
    if (/^like$/i.test(token.text)) return 'LIKE is not supported: use CONTAINS, STARTSWITH or ENDSWITH';
    if (this.source.startsWith('--', token.index)) return 'a -- comment must end with a line break';
    if (is(token, 'symbol', '+', '-')) return 'arithmetic is not supported';
    return undefined;
  }

  private fail(message: string, index: number): never {
    throw new FilterSyntaxError(message, index);
  }

  /** `"a > 1" at column 3`: an operand as written, and where it starts. */
  private describe(operand: Operand): string {
    return `"${tail(this.source.slice(operand.start, operand.end))}" at ${this.where(operand.start)}`;
  }

  private where(index: number): string {
    return where(this.source, index);
  }
}

function condition(left: Operand, end: number): Operand {
  return { kind: 'condition', start: left.start, end };
}

/** Keywords compare case-insensitively (give them in upper case), symbols exactly. */
function is(token: Token, type: TokenType, ...texts: string[]): boolean {
  return token.type === type && texts.includes(type === 'keyword' ? token.text.toUpperCase() : token.text);
}

/** Java compares an integer with a float as doubles, two integers as longs. */
function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

/** The text, shortened to its last 40 characters. */
function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= 40 ? trimmed : `…${trimmed.slice(-39)}`;
}
