/**
 * Config text (JSON or YAML) to a value, where a syntax error says only what we computed ourselves: the
 * line, the column and a constant description of the class of error. The parsers' own messages quote
 * the text around the error (V8: `..."ecretKey":JsonSecret"...`; yaml: the offending line, an escape, a
 * token), and a config holds secrets, so no parser message, and no parser error as a cause, ever leaves
 * this file. Parsing is bounded too: one YAML document, a cap on alias expansion (a "billion laughs"
 * document), a cap on nesting, a cap on the size of the document in tokens (YAML) or keys and values
 * (JSON), and YAML reading stops at the first syntax errors; every refusal is a {@link ConfigError},
 * never a thrown parser error.
 */
import {
  Composer,
  type CST,
  type Document,
  type ErrorCode,
  isMap,
  isNode,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  type Tags,
} from 'yaml';
import { ConfigError } from './config-error.js';
import { findJsonSyntaxProblem } from './json-syntax.js';

/**
 * The deepest nesting of mappings and lists a config may have. A poller config nests 5 levels and a
 * serverless.yml with CloudFormation resources rarely 15; deeper input is a mistake or an attack (the
 * code that walks a config recurses).
 */
export const MAX_CONFIG_DEPTH = 64;

/**
 * How many times YAML aliases may be expanded, as the `yaml` package counts them (an anchor's uses times
 * the aliases inside it): anchors that share settings between mappings stay far below it, and a "billion
 * laughs" document (aliases of aliases) is refused before it is expanded.
 */
export const MAX_YAML_ALIAS_COUNT = 100;

/**
 * The most tokens a YAML config may have, as the package's lexer splits a text: a key, a value, an
 * indicator (`:`, `-`, `[`), a run of spaces, a line break. Real configs have one per 5 to 7 bytes (this
 * repository's CloudFormation template: 4,103 in 29 KB; a mapping of 20 keys about 130), so the limit is
 * about 300 KB of YAML, several hundred mappings. The parser and the composer cost up to 3 µs and
 * 800 bytes per token: a megabyte of small tokens took 2 s and 700 MB to be read. Reading stops at the
 * first token past the limit.
 */
export const MAX_YAML_TOKENS = 50_000;

/**
 * The most keys and values (strings, numbers, literals, objects, arrays, at any depth) a JSON config may
 * have, the JSON counterpart of {@link MAX_YAML_TOKENS}. Parsing JSON is cheap; checking it against the
 * schema costs about 6 µs a value, and a megabyte of `[],` held 350,000 values that took 2 s and 500 MB
 * to check. A config of 100 mappings has about 3,000.
 */
export const MAX_JSON_ITEMS = 25_000;

/** Options of the parse functions. */
export interface ConfigSyntaxOptions {
  /** Named in the {@link ConfigError}. */
  readonly source?: string | undefined;
  /** What the text is, in the line for empty text: `file`, `variable`. @default 'file' */
  readonly what?: string | undefined;
  /** Starts a line that has no line and column: `(config)`, `(serverless.yml)`. @default '(config)' */
  readonly label?: string | undefined;
  /**
   * YAML only: tags read as values of their own (CloudFormation's `!Ref`, see
   * src/serverless/cfn-yaml-tags.ts). With them, a tag that is none of them is a syntax error; without
   * them, an unknown tag reads as its plain value.
   */
  readonly customTags?: Tags | undefined;
}

/**
 * Parses a JSON config. Throws {@link ConfigError} with one line `line L, column C: invalid JSON: <what>`
 * for a syntax error, a duplicate key, nesting deeper than {@link MAX_CONFIG_DEPTH} or more than
 * {@link MAX_JSON_ITEMS} keys and values.
 */
export function parseJsonConfigText(text: string, options: ConfigSyntaxOptions = {}): unknown {
  refuseEmpty(text, options);
  const problem = findJsonSyntaxProblem(text, MAX_CONFIG_DEPTH, MAX_JSON_ITEMS);
  if (problem !== undefined) {
    throw new ConfigError([`${placeOf(text, problem.offset)}invalid JSON: ${problem.description}`], {
      source: options.source,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The scan above found nothing: a disagreement with V8, told without V8's words.
    throw new ConfigError([`${options.label ?? '(config)'}: invalid JSON`], { source: options.source });
  }
}

/**
 * Parses a YAML config (one document, YAML 1.2 core schema, unique keys; unknown tags such as
 * CloudFormation's `!Ref` read as their plain value). Throws {@link ConfigError} with one line per
 * syntax error (`line L, column C: invalid YAML: <what>`; the first {@link MAX_SYNTAX_LINES}, then a line
 * saying where reading stopped), or one line for an alias bomb, nesting deeper than
 * {@link MAX_CONFIG_DEPTH} or more than {@link MAX_YAML_TOKENS} tokens.
 */
export function parseYamlConfigText(text: string, options: ConfigSyntaxOptions = {}): unknown {
  refuseEmpty(text, options);
  const label = options.label ?? '(config)';
  const refuse = (lines: string[]): ConfigError => new ConfigError(lines, { source: options.source });
  const lineCounter = new LineCounter();
  let read: YamlRead;
  try {
    read = readYamlDocument(text, lineCounter, options.customTags);
  } catch (error) {
    throw refuse([`${label}: invalid YAML: ${thrownWords(error)}`]);
  }
  if (read.refusal !== undefined) {
    throw refuse([`${placeOf(text, read.refusal.offset)}invalid YAML: ${read.refusal.description}`]);
  }
  if (read.errors.length > 0) {
    throw refuse(syntaxErrorLines(read.errors, read.stoppedAt, lineCounter));
  }
  const document = read.document;
  if (document === undefined) throw refuse([`${label}: invalid YAML: the document cannot be read`]);
  const badKeys = keyProblems(document.contents);
  if (badKeys.length > 0) {
    throw refuse(
      firstLines(
        badKeys.map(({ offset, description }) => {
          const place = lineCounter.linePos(offset);
          return `line ${place.line}, column ${place.col}: invalid YAML: ${description}`;
        }),
      ),
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    throw refuse([`${label}: invalid YAML: ${thrownWords(error)}`]);
  }
  if (depthExceeds(value, MAX_CONFIG_DEPTH)) {
    throw refuse([`${label}: invalid YAML: nested more than ${MAX_CONFIG_DEPTH} levels deep`]);
  }
  return value;
}

/** A syntax error of a YAML text as the package reports it: where, its code and its message. */
interface YamlSyntaxError {
  readonly offset: number;
  readonly code: ErrorCode;
  /** Only tested against fixed patterns (see {@link yamlErrorWords}), never shown. */
  readonly message: string;
}

/** What {@link readYamlDocument} found. */
interface YamlRead {
  /** The document, when the text was read to its end. */
  readonly document: Document.Parsed | undefined;
  /** The syntax errors found, in the order of the text. */
  readonly errors: readonly YamlSyntaxError[];
  /** Where reading stopped because there were more errors than are listed. */
  readonly stoppedAt: number | undefined;
  /** A problem that stops reading at once: too deep, a stray bracket, too many tokens. */
  readonly refusal: { offset: number; description: string } | undefined;
}

/** The lexer's tokens that mark a place without standing for any text. */
const MARKER_TOKENS: ReadonlySet<string> = new Set(['\x02', '\x18', '\x1f']);
/** The lexer's token that ends every open flow collection (a flow cut short by a dedent). */
const FLOW_END_TOKEN = '\x18';

/**
 * How far the parser's stack of open nodes may grow: one per level of nesting plus the document and a
 * scalar (64 nested mappings or lists hold 66), with room to spare; {@link depthExceeds} holds the exact
 * limit. It stops a text that nests thousands of levels before the parser and the composer spend
 * seconds and hundreds of megabytes on it.
 */
const MAX_PARSER_STACK = 2 * MAX_CONFIG_DEPTH + 2;

/**
 * The composer's error handler: where (an offset, a range, or a token with an offset), the code, the
 * message, and whether it is only a warning.
 */
type ComposeErrorHandler = (
  source: number | readonly number[] | { readonly offset: number },
  code: ErrorCode,
  message: string,
  warning?: boolean,
) => void;

/** Thrown inside {@link readYamlDocument} to stop the parser and the composer where they are. */
class StopReading extends Error {}

/**
 * Reads one YAML document in a single pass that can stop anywhere: the package's lexer feeds its parser
 * one token at a time, and the parser's top-level tokens feed its composer. Reading stops at the first
 * flow bracket problem, at nesting far past {@link MAX_CONFIG_DEPTH}, past {@link MAX_YAML_TOKENS}
 * tokens, at a second document, and at the first syntax error past {@link MAX_SYNTAX_LINES}: a
 * megabyte made of errors (`- a\nb: 1\n` repeated) cost the package 6 s and 1 GB, an error object per
 * error, before it was refused. Errors are kept as offset, code and message; no message is shown.
 */
function readYamlDocument(text: string, lineCounter: LineCounter, customTags: Tags | undefined): YamlRead {
  const errors: YamlSyntaxError[] = [];
  const seen = new Set<string>();
  let stopped = false;
  let stoppedAt: number | undefined;
  let refusal: { offset: number; description: string } | undefined;
  const stop = (): never => {
    stopped = true;
    throw new StopReading();
  };
  const record = (offset: number, code: ErrorCode, message: string): void => {
    // The composer catches what is thrown while it composes a collection and reports it as one more
    // error of that collection: once stopped, each such report only goes on stopping.
    if (stopped) stop();
    const key = `${offset} ${code}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (errors.length === MAX_SYNTAX_LINES) {
      stoppedAt = offset;
      stop();
    }
    errors.push({ offset, code, message });
    // A stack overflow is reported once per level it unwinds: its first report says it all.
    if (code === 'RESOURCE_EXHAUSTION') stop();
  };
  const refuseAt = (offset: number, description: string): never => {
    refusal = { offset, description };
    return stop();
  };

  // logLevel 'error': at 'warn' the package prints a collection used as a key to stderr, as written.
  // Duplicate keys are found by keyProblems: the package's own check compares every key with every
  // other one of its mapping (60,000 keys took tens of seconds).
  const composer = new Composer({
    uniqueKeys: false,
    logLevel: 'error',
    ...(customTags === undefined ? {} : { customTags }),
  });
  // The composer reports each error to this handler, whose default builds an error object and goes
  // on: ours keeps the first ones and stops.
  // A private member of the pinned yaml version: should an upgrade drop it, every parse fails here (and
  // with it the config tests), not silently back to one error object per error.
  const hooked = composer as unknown as { onError?: unknown };
  if (typeof hooked.onError !== 'function') {
    throw new Error('the yaml package no longer has Composer.onError: review src/config/config-syntax.ts');
  }
  (composer as unknown as { onError: ComposeErrorHandler }).onError = (source, code, message, warning) => {
    // With tags of its own the text may use only those: an unknown one (a typo of `!Ref`) is an error.
    const unknownTag = customTags !== undefined && code === 'TAG_RESOLVE_FAILED';
    if (warning !== true || unknownTag) record(errorOffset(source), code, message);
  };
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  let document: Document.Parsed | undefined;
  let documents = 0;
  const compose = (token: CST.Token): void => {
    if (token.type === 'error') {
      record(token.offset, 'UNEXPECTED_TOKEN', token.message);
      return;
    }
    if (token.type === 'document') {
      documents++;
      if (documents > 1) {
        record(token.offset, 'MULTIPLE_DOCS', '');
        stop();
      }
    }
    for (const composed of composer.next(token)) document ??= composed;
  };

  let flowDepth = 0;
  let offset = 0;
  let tokens = 0;
  try {
    for (const lexeme of new Lexer().lex(text)) {
      if (lexeme === '[' || lexeme === '{') {
        flowDepth++;
        // A deep [[[[... costs the parser seconds per MiB before it overflows the stack.
        if (flowDepth > MAX_CONFIG_DEPTH)
          refuseAt(offset, `nested more than ${MAX_CONFIG_DEPTH} levels deep`);
      } else if (lexeme === ']' || lexeme === '}') {
        // The lexer's own "this is an error" case, refused at the first one.
        if (flowDepth === 0) {
          refuseAt(offset, `a ${lexeme} that closes no [ or { (a stray bracket, or a value to quote?)`);
        }
        flowDepth--;
      } else if (lexeme === FLOW_END_TOKEN) {
        flowDepth = 0;
      }
      if (!MARKER_TOKENS.has(lexeme)) {
        tokens++;
        if (tokens > MAX_YAML_TOKENS) refuseAt(offset, TOO_MANY_TOKENS_WORDS);
      }
      for (const token of parser.next(lexeme)) compose(token);
      if (parser.stack.length > MAX_PARSER_STACK) {
        refuseAt(offset, `nested too deeply (at most ${MAX_CONFIG_DEPTH} levels)`);
      }
      if (!MARKER_TOKENS.has(lexeme)) offset += lexeme.length;
    }
    for (const token of parser.end()) compose(token);
    for (const composed of composer.end(true, text.length)) document ??= composed;
    // What the composer found outside its handler (a document end marker with no document) is on the
    // document.
    for (const error of document?.errors ?? []) record(error.pos[0], error.code, String(error.message));
  } catch (error) {
    if (!(error instanceof StopReading)) throw error;
    return { document: undefined, errors: byOffset(errors), stoppedAt, refusal };
  }
  return { document, errors: byOffset(errors), stoppedAt: undefined, refusal: undefined };
}

const TOO_MANY_TOKENS_WORDS =
  `more than ${MAX_YAML_TOKENS} tokens (keys, values, indicators, spaces): ` +
  'larger than a config needs (is this the right file?)';

/** The offset at which the composer places an error. */
function errorOffset(source: Parameters<ComposeErrorHandler>[0]): number {
  if (typeof source === 'number') return source;
  if ('offset' in source) return source.offset;
  return source[0] ?? 0;
}

function byOffset(errors: readonly YamlSyntaxError[]): YamlSyntaxError[] {
  return [...errors].sort((a, b) => a.offset - b.offset);
}

/**
 * One line per syntax error (its place and our words for its class), and when reading stopped at
 * {@link MAX_SYNTAX_LINES}, one line saying where.
 */
function syntaxErrorLines(
  errors: readonly YamlSyntaxError[],
  stoppedAt: number | undefined,
  lineCounter: LineCounter,
): string[] {
  const lines = [...new Set(errors.map((error) => yamlErrorLine(error, lineCounter)))];
  if (stoppedAt !== undefined) {
    const line = lineCounter.linePos(stoppedAt).line;
    lines.push(`… and more syntax errors from line ${line} on (reading stops after ${MAX_SYNTAX_LINES})`);
  }
  return lines;
}

/**
 * The keys no config has, in document order: a key that repeats a key of its mapping (scalar keys
 * compared by their text: `1` and `"1"` are one key once read into an object), and a key that is a
 * mapping, a list or an alias (it would become its own text as a key, and be quoted back as one). One
 * pass with a set per mapping.
 */
function keyProblems(root: unknown): { offset: number; description: string }[] {
  const problems: { offset: number; description: string }[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const keys = new Set<string>();
      for (const pair of node.items) {
        const key: unknown = pair.key;
        const offset = isNode(key) ? key.range?.[0] : undefined;
        if (isScalar(key)) {
          const text = String(key.value);
          if (keys.has(text) && offset !== undefined) {
            problems.push({ offset, description: YAML_ERROR_WORDS.DUPLICATE_KEY });
          }
          keys.add(text);
        } else if (offset !== undefined) {
          problems.push({
            offset,
            description: 'a key that is a mapping, a list or an alias (keys are names)',
          });
        }
        pending.push(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    }
  }
  return problems.sort((a, b) => a.offset - b.offset);
}

/**
 * How many syntax errors of one YAML text are listed (the first ones explain the rest); reading stops at
 * the next one.
 */
export const MAX_SYNTAX_LINES = 10;

/** The first {@link MAX_SYNTAX_LINES} lines, then one counting the others. */
function firstLines(lines: readonly string[]): string[] {
  const listed = lines.slice(0, MAX_SYNTAX_LINES);
  const more = lines.length - listed.length;
  if (more > 0) listed.push(`… and ${more} more syntax error${more === 1 ? '' : 's'}`);
  return listed;
}

function refuseEmpty(text: string, options: ConfigSyntaxOptions): void {
  if (text.trim() === '') {
    const label = options.label ?? '(config)';
    throw new ConfigError([`${label}: the ${options.what ?? 'file'} is empty`], { source: options.source });
  }
}

/** `line L, column C: ` of an offset in `text` (both from 1; columns count UTF-16 units). */
function placeOf(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}: `;
}

/** One problem line of a YAML error: its place and our words for its code (never its message). */
function yamlErrorLine(error: YamlSyntaxError, lineCounter: LineCounter): string {
  const offset = error.offset;
  const place = offset >= 0 ? lineCounter.linePos(offset) : undefined;
  const where = place === undefined ? '' : `line ${place.line}, column ${place.col}: `;
  return `${where}invalid YAML: ${yamlErrorWords(error)}`;
}

/** The words of each yaml error code (the codes are the package's public, fixed set). */
const YAML_ERROR_WORDS: Readonly<Record<ErrorCode, string>> = {
  ALIAS_PROPS: 'an alias (*name) cannot have an anchor or a tag',
  BAD_ALIAS: 'a bad anchor or alias name',
  BAD_COLLECTION_TYPE: 'a tag that does not fit the collection it is on',
  BAD_DIRECTIVE: 'a bad % directive',
  BAD_DQ_ESCAPE: 'a bad escape in a double-quoted string (a backslash is written \\\\)',
  BAD_INDENT: 'bad indentation',
  BAD_PROP_ORDER: 'an anchor or tag in the wrong place',
  BAD_SCALAR_START: 'a plain value cannot start with this character (put the value in quotes)',
  BLOCK_AS_IMPLICIT_KEY: 'a mapping or list used as a key (is a : misplaced?)',
  BLOCK_IN_FLOW: 'an indented mapping or list inside { } or [ ]',
  DUPLICATE_KEY: 'a duplicate key (each key may appear once)',
  IMPOSSIBLE: 'an unexpected structure',
  KEY_OVER_1024_CHARS: 'a key longer than 1024 characters (is a : missing?)',
  MISSING_CHAR: 'a missing character (an unclosed quote, { or [, or a missing : or ,)',
  MULTILINE_IMPLICIT_KEY: 'a key that spans lines (is a : missing, or a quote unclosed?)',
  MULTIPLE_ANCHORS: 'more than one anchor on a value',
  MULTIPLE_DOCS: 'more than one document (a config is one document: remove the ---)',
  MULTIPLE_TAGS: 'more than one tag on a value',
  NON_STRING_KEY: 'a key that is not a string',
  RESOURCE_EXHAUSTION: `nested too deeply (at most ${MAX_CONFIG_DEPTH} levels)`,
  TAB_AS_INDENT: 'a tab used for indentation (YAML indents with spaces)',
  TAG_RESOLVE_FAILED: 'a value that does not fit its tag',
  UNEXPECTED_TOKEN: 'an unexpected character or token (an unclosed quote, or a stray : - { } [ ] ,?)',
};

/**
 * Finer words for the codes that cover several cases, chosen by testing the package's message against
 * fixed patterns: the words are still ours, the message is never shown.
 */
const YAML_REFINEMENTS: readonly { code: ErrorCode; pattern: RegExp; words: string }[] = [
  { code: 'TAG_RESOLVE_FAILED', pattern: /^Unresolved tag/, words: 'an unknown ! tag' },
  { code: 'MISSING_CHAR', pattern: /^Missing closing "quote/, words: 'an unterminated double-quoted string' },
  { code: 'MISSING_CHAR', pattern: /^Missing closing 'quote/, words: 'an unterminated single-quoted string' },
  { code: 'MISSING_CHAR', pattern: /must end with a [}\]]/, words: 'an unclosed { or [' },
  {
    code: 'MISSING_CHAR',
    pattern: /^Missing , (or : )?between/,
    words: 'a missing , between items in { } or [ ]',
  },
  { code: 'MISSING_CHAR', pattern: /^Missing space after :/, words: 'a missing space after : in { } or [ ]' },
  {
    code: 'MISSING_CHAR',
    pattern: /^Implicit map keys need to be followed/,
    words: 'a key without a : and value',
  },
  {
    code: 'MISSING_CHAR',
    pattern: /^Comments must be separated/,
    words: 'a # comment must follow a space',
  },
  {
    code: 'MISSING_CHAR',
    pattern: /^Tags and anchors must be separated/,
    words: 'an anchor or tag must be followed by a space',
  },
  {
    code: 'BAD_INDENT',
    pattern: /must be sufficiently indented and end with a [}\]]/,
    words: 'an unclosed { or [ (or the next line is not indented enough)',
  },
  {
    code: 'BAD_INDENT',
    pattern: /^All (mapping|sequence) items must start at the same column/,
    words: 'bad indentation (items of one mapping or list must start at the same column)',
  },
];

function yamlErrorWords(error: YamlSyntaxError): string {
  const refined = YAML_REFINEMENTS.find(
    (refinement) => refinement.code === error.code && refinement.pattern.test(error.message),
  );
  return refined?.words ?? YAML_ERROR_WORDS[error.code] ?? 'a syntax error';
}

/**
 * Words for an error thrown while parsing or converting (an alias bomb, an alias before its anchor, a
 * stack overflow), by its kind only.
 */
function thrownWords(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  if (/^Excessive alias count/.test(message)) {
    return `aliases expand more than ${MAX_YAML_ALIAS_COUNT} times (an alias bomb?)`;
  }
  if (/^Unresolved alias/.test(message)) return 'an alias (*name) used before its anchor (&name)';
  if (error instanceof RangeError) return `nested too deeply (at most ${MAX_CONFIG_DEPTH} levels)`;
  return 'the document cannot be read';
}

/**
 * True when `value` nests mappings and lists deeper than `max`. Iterative, and each shared node (a YAML
 * alias yields the same object again) is walked again only when reached deeper than before, so a cycle
 * ends at `max`.
 */
function depthExceeds(value: unknown, max: number): boolean {
  const deepest = new Map<object, number>();
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return true;
    const seen = deepest.get(node);
    if (seen !== undefined && seen >= depth) continue;
    deepest.set(node, depth);
    const children = node instanceof Map ? [...node.values()] : Object.values(node);
    for (const child of children) pending.push([child, depth + 1]);
  }
  return false;
}
