/**
 * serverless.yml variables that `rocketmq-lambda dev` resolves itself, without starting the Serverless
 * Framework (`serverless print` costs seconds): when every variable in the document reads only `env:`,
 * `opt:stage`, `opt:region`, `sls:stage` or `self:`, with quoted-string, number or boolean fallbacks, the
 * document is resolved here the way the Framework's own resolver (osls 4, the repository's devDependency)
 * resolves it, as test/integration/dev/simple-variables-framework.test.ts checks. Anything else, and anything whose outcome here would
 * be a guess (an error, a cycle, unusual syntax, a value that holds a variable again), is left to the
 * Framework: the answer is then `{ resolved: false }` with the reason.
 *
 * The rules followed (the Framework's):
 * - `${src:address, fallback, ...}`: sources are tried in order; a source whose value is null or unset
 *   falls through to the next one; an env variable set to '' is a value (''), not unset.
 * - A string that is one variable from start to end takes the variable's value as it is (a number stays a
 *   number, an object an object); a variable inside a longer string is turned into text (numbers and
 *   booleans as JavaScript writes them).
 * - Fallback literals: 'single' or "double" quoted strings, numbers and true/false; a literal ends the list.
 * - `self:a.b.c` reads the document's resolved value at that path; `sls:stage` is --stage, else
 *   provider.stage, else 'dev'; `opt:stage` and `opt:region` are --stage and --region (unset without them).
 * - A variable as a fallback (`${env:A, ${env:B}}`) is a syntax error for osls 4: the Framework says so.
 */
import { keyText } from './serverless-variables.js';

/** What the sources read. */
export interface SimpleVariableInputs {
  /** `${env:NAME}`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--stage`: `${opt:stage}`, and `${sls:stage}` before provider.stage. */
  readonly stage?: string | undefined;
  /** `--region`: `${opt:region}`. */
  readonly region?: string | undefined;
}

/** The outcome: the resolved document and the sources it read, or why the Framework must resolve it. */
export type SimpleResolution =
  | { readonly resolved: true; readonly document: unknown; readonly sources: readonly string[] }
  | { readonly resolved: false; readonly reason: string };

/** The Framework's rule for stage names (it refuses any other stage). */
const STAGE_PATTERN = /^[A-Za-z0-9-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SELF_PATH = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** A quoted fallback's content read the same by both of the Framework's quote rules: no escapes. */
const PLAIN_STRING = /^[^\\\p{Cc}]*$/u;
const NUMBER_LITERAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
const TYPED_SOURCE = /^([a-z][a-zA-Z0-9]*):(.*)$/s;
/**
 * Env variables the Framework's run does not see as dev does: dev's placeholder AWS credentials are not
 * passed on, and the run's own settings (serverless-print.ts frameworkEnv) and the Framework's.
 */
const FRAMEWORK_SET_ENV =
  /^(?:AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|NODE_PATH|NO_COLOR|FORCE_COLOR|(?:SLS|SERVERLESS|AWS_SDK)_.*)$/;
/** Keys of the document that make the Framework read more than the process env. */
const DEFERRING_KEYS = ['useDotenv'];

type Literal = string | number | boolean;

/** One source of a variable. */
export type SimpleSource =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'opt'; readonly name: 'stage' | 'region' }
  | { readonly kind: 'sls' }
  | { readonly kind: 'self'; readonly path: readonly string[] }
  | { readonly kind: 'literal'; readonly value: Literal };

/** A string as parsed: text and variables, in order. */
export type SimpleSegment = string | { readonly variable: string; readonly sources: readonly SimpleSource[] };

/** Thrown inside this file to give up; turned into `{ resolved: false }`. */
class Defer extends Error {
  /** Whether the message names the key already. */
  keyed = false;
}

/**
 * A string's text and variables, or a {@link Defer} when it holds a variable (or something the Framework
 * might take for one) outside the accepted forms.
 */
export function parseSimpleString(text: string): SimpleSegment[] {
  const segments: SimpleSegment[] = [];
  let last = 0;
  let index = text.indexOf('${');
  while (index !== -1) {
    const before = text[index - 1];
    if (before === '\\' || before === '$') throw new Defer('an escaped or doubled variable');
    const end = text.indexOf('}', index + 2);
    if (end === -1) throw new Defer('an unclosed variable');
    const variable = text.slice(index, end + 1);
    const body = text.slice(index + 2, end);
    if (/[{$]/.test(body)) throw new Defer('a nested variable');
    if (index > last) segments.push(text.slice(last, index));
    segments.push({ variable, sources: parseSources(body) });
    last = end + 1;
    index = text.indexOf('${', last);
  }
  if (last < text.length) segments.push(text.slice(last));
  return segments;
}

function parseSources(body: string): SimpleSource[] {
  const sources: SimpleSource[] = [];
  let rest = body;
  for (let first = true; ; first = false) {
    if (!first) rest = rest.replace(/^ +/, '');
    const quote = rest[0];
    if (!first && (quote === "'" || quote === '"')) {
      const close = rest.indexOf(quote, 1);
      const content = close === -1 ? '' : rest.slice(1, close);
      if (close === -1 || !/^ *$/.test(rest.slice(close + 1)) || !PLAIN_STRING.test(content)) {
        throw new Defer('a quoted fallback that is not last, or holds a backslash or control character');
      }
      sources.push({ kind: 'literal', value: content });
      return sources;
    }
    const comma = rest.indexOf(',');
    const part = comma === -1 ? rest : rest.slice(0, comma);
    const typed = TYPED_SOURCE.exec(part);
    if (typed === null) {
      const literal = part.trim();
      if (first || comma !== -1) throw new Defer('a variable of a form dev does not read');
      if (literal === 'true' || literal === 'false')
        sources.push({ kind: 'literal', value: literal === 'true' });
      else if (NUMBER_LITERAL.test(literal)) sources.push({ kind: 'literal', value: Number(literal) });
      else throw new Defer('a fallback that is not a quoted string, a number or true/false');
      return sources;
    }
    sources.push(typedSource(typed[1] ?? '', (typed[2] ?? '').trim()));
    if (comma === -1) return sources;
    rest = rest.slice(comma + 1);
  }
}

function typedSource(type: string, address: string): SimpleSource {
  if (type === 'env' && ENV_NAME.test(address) && !FRAMEWORK_SET_ENV.test(address)) {
    return { kind: 'env', name: address };
  }
  if (type === 'opt' && (address === 'stage' || address === 'region')) return { kind: 'opt', name: address };
  if (type === 'sls' && address === 'stage') return { kind: 'sls' };
  if (type === 'self' && SELF_PATH.test(address)) return { kind: 'self', path: address.split('.') };
  throw new Defer(`a ${type}: variable dev does not read itself`);
}

/**
 * Resolves every variable of `document` (a parsed serverless.yml) when all of them are of the forms
 * described at the top of this file; otherwise says why the Framework must.
 */
export function resolveSimpleVariables(document: unknown, inputs: SimpleVariableInputs): SimpleResolution {
  try {
    if (!isPlainObject(document)) throw new Defer('the service is not a mapping');
    const deferring = DEFERRING_KEYS.find((key) => Object.hasOwn(document, key));
    if (deferring !== undefined) throw new Defer(`the service sets ${deferring}`);
    const resolver = new Resolver(document, inputs);
    const resolved = resolver.resolveNode([], document);
    return { resolved: true, document: resolved, sources: [...resolver.used].sort() };
  } catch (error) {
    if (error instanceof Defer) return { resolved: false, reason: error.message };
    throw error;
  }
}

/** A path's key in the memo and the cycle guard (keys cannot hold NUL in YAML we read). */
const pathKey = (path: readonly (string | number)[]): string => path.join('\0');

class Resolver {
  readonly used = new Set<string>();
  private readonly memo = new Map<string, unknown>();
  private readonly inProgress = new Set<string>();

  constructor(
    private readonly root: Record<string, unknown>,
    private readonly inputs: SimpleVariableInputs,
  ) {}

  /** `value` (at `path` of the document as written) with every variable resolved. */
  resolveNode(path: readonly (string | number)[], value: unknown): unknown {
    if (typeof value === 'string') return value.includes('${') ? this.resolveString(path, value) : value;
    if (Array.isArray(value)) return value.map((item, index) => this.resolveNode([...path, index], item));
    if (isPlainObject(value)) {
      // fromEntries defines each key as its own property, `__proto__` included.
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, this.resolveNode([...path, key], item)]),
      );
    }
    return value;
  }

  private resolveString(path: readonly (string | number)[], text: string): unknown {
    const key = pathKey(path);
    if (this.memo.has(key)) return this.memo.get(key);
    if (this.inProgress.has(key)) throw new Defer('a circular self: reference');
    this.inProgress.add(key);
    try {
      return this.resolveStringOnce(key, text);
    } catch (error) {
      if (error instanceof Defer && !error.keyed) {
        error.message = `${keyText(path)}: ${error.message}`;
        error.keyed = true;
      }
      throw error;
    }
  }

  private resolveStringOnce(key: string, text: string): unknown {
    const segments = parseSimpleString(text);
    const [only] = segments;
    let value: unknown;
    if (segments.length === 1 && only !== undefined && typeof only !== 'string') {
      value = this.resolveVariable(only.variable, only.sources);
    } else {
      value = segments
        .map((segment) => {
          if (typeof segment === 'string') return segment;
          const part = this.resolveVariable(segment.variable, segment.sources);
          if (typeof part === 'string' || typeof part === 'number' || typeof part === 'boolean')
            return String(part);
          throw new Defer('a variable inside a string resolves to a list or mapping');
        })
        .join('');
    }
    if (holdsVariable(value)) throw new Defer('a variable resolves to a value that holds a variable');
    this.inProgress.delete(key);
    this.memo.set(key, value);
    return value;
  }

  private resolveVariable(variable: string, sources: readonly SimpleSource[]): unknown {
    for (const source of sources) {
      const value = this.read(source);
      if (value !== undefined && value !== null) return value;
    }
    throw new Defer(
      `${variable.startsWith('${env:') ? 'an env variable' : 'a variable'} without a value (the Framework reports it)`,
    );
  }

  private read(source: SimpleSource): unknown {
    if (source.kind !== 'literal') this.used.add(source.kind);
    switch (source.kind) {
      case 'literal':
        return source.value;
      case 'env':
        return Object.hasOwn(this.inputs.env, source.name) ? this.inputs.env[source.name] : undefined;
      case 'opt':
        if (source.name === 'region') return this.inputs.region;
        if (this.inputs.stage !== undefined && !STAGE_PATTERN.test(this.inputs.stage)) {
          throw new Defer('--stage is not a valid stage name (the Framework reports it)');
        }
        return this.inputs.stage;
      case 'sls': {
        const stage = this.inputs.stage ?? this.lookup(['provider', 'stage']) ?? 'dev';
        if (typeof stage !== 'string' || !STAGE_PATTERN.test(stage)) {
          throw new Defer('the stage is not a valid stage name (the Framework reports it)');
        }
        return stage;
      }
      case 'self':
        return this.lookup(source.path);
    }
  }

  /** The resolved value at `keys` in the document, or undefined when nothing is there. */
  private lookup(keys: readonly string[]): unknown {
    const path: (string | number)[] = [];
    let node: unknown = this.root;
    let resolved = false;
    for (const key of keys) {
      if (!resolved && typeof node === 'string' && node.includes('${')) {
        node = this.resolveString(path, node);
        resolved = true;
      }
      if (node === null || node === undefined) return undefined;
      if (Array.isArray(node)) {
        if (!/^(?:0|[1-9][0-9]*)$/.test(key)) throw new Defer(`self: reads "${key}" of a list`);
        path.push(Number(key));
        node = node[Number(key)];
      } else if (isPlainObject(node)) {
        path.push(key);
        node = Object.hasOwn(node, key) ? node[key] : undefined;
      } else {
        throw new Defer(`self: reads "${key}" of a ${typeof node}`);
      }
    }
    return resolved ? node : this.resolveNode(path, node);
  }
}

function holdsVariable(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${');
  if (Array.isArray(value)) return value.some(holdsVariable);
  if (isPlainObject(value)) return Object.values(value).some(holdsVariable);
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
