/**
 * Serverless Framework variables (`${source:address}`) as written in serverless.yml: where each one sits and
 * which source it reads. `rocketmq-lambda dev` does not resolve them itself (the service's own Framework
 * does, through `serverless print`); this file finds them, so dev knows when it needs the Framework, and
 * turns the Framework's resolution errors into problems that name both the key and the variable.
 */
import { echoedText, echoedValue } from '../util/echoed-value.js';

/**
 * One variable in the service as written.
 */
export interface VariableUse {
  /** The keys from the root to the string holding the variable. */
  readonly path: readonly (string | number)[];
  /** `path` as dev names keys in its problems, e.g. `functions.orders.events[0].rocketmq.topic`. */
  readonly key: string;
  /** The variable with its `${` and `}`, nested variables included: `${self:custom.${sls:stage}.ns}`. */
  readonly variable: string;
  /** The source: `self`, `env`, `opt`, `sls`, `file`, `param`, `ssm`, `cf`, ... */
  readonly source: string;
}

/** Sources the Framework reads from AWS (they need credentials and a region). */
const AWS_SOURCES = new Set(['ssm', 'cf', 's3', 'aws']);
/** What the Framework takes for a variable: `${` then a lowercase source name, then `:` or `(`. */
const VARIABLE_START = /^\$\{([a-z][a-zA-Z0-9]*)[:(]/;
/** How many other keys a problem names as users of a failing value. */
const MAX_USERS_NAMED = 3;
/** How much of the Framework's reason for one key is quoted (keys and variables: MAX_ECHOED_CHARS). */
const MAX_REASON_CHARS = 500;

/**
 * The variables in one string, outermost first: `${` followed by a source name (as the Framework parses
 * it; `${AWS::Region}` of `Fn::Sub` and an escaped `\${...}` are not variables), up to its matching `}`.
 */
export function variablesIn(text: string): { text: string; source: string }[] {
  const found: { text: string; source: string }[] = [];
  let index = text.indexOf('${');
  while (index !== -1) {
    const source = text[index - 1] === '\\' ? undefined : VARIABLE_START.exec(text.slice(index))?.[1];
    if (source === undefined) {
      index = text.indexOf('${', index + 2);
      continue;
    }
    const end = closingBrace(text, index + 2);
    found.push({ text: end === -1 ? text.slice(index) : text.slice(index, end + 1), source });
    index = end === -1 ? -1 : text.indexOf('${', end + 1);
  }
  return found;
}

/** The index of the `}` that closes a `{` opened just before `from`, or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * Every variable in a parsed serverless.yml (or any part of it), in document order. `at` is the path of
 * `value` in the service, prefixed to each use's path.
 */
export function findVariables(value: unknown, at: readonly (string | number)[] = []): VariableUse[] {
  if (typeof value === 'string') {
    const key = keyText(at);
    return variablesIn(value).map(({ text, source }) => ({ path: at, key, variable: text, source }));
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findVariables(item, [...at, index]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => findVariables(item, [...at, key]));
  }
  return [];
}

/**
 * A key path as dev's problems name keys: dotted, with list indexes in brackets.
 */
export function keyText(path: readonly (string | number)[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    return text === '' ? key : `${text}.${key}`;
  }, '');
}

/**
 * Whether a source reads AWS (`ssm`, `cf`, `s3`, `aws`): resolving it needs credentials and a region.
 */
export function readsAws(source: string): boolean {
  return AWS_SOURCES.has(source);
}

/**
 * The path in `document` that a key named the Framework's way (`functions.f.events.0.rocketmq.topic`, keys
 * joined by dots, so a key that holds a dot is ambiguous) points to, or undefined when nothing is there.
 */
export function pathOfFrameworkKey(document: unknown, frameworkKey: string): (string | number)[] | undefined {
  return walk(document, frameworkKey.split('.'));
}

function walk(value: unknown, parts: readonly string[]): (string | number)[] | undefined {
  if (parts.length === 0) return [];
  if (Array.isArray(value)) {
    const [first, ...rest] = parts;
    const index = Number(first);
    if (!Number.isInteger(index) || index < 0 || index >= value.length) return undefined;
    const tail = walk(value[index], rest);
    return tail === undefined ? undefined : [index, ...tail];
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  // The shortest key first, then keys that themselves contain dots.
  for (let take = 1; take <= parts.length; take++) {
    const key = parts.slice(0, take).join('.');
    if (!Object.hasOwn(record, key)) continue;
    const tail = walk(record[key], parts.slice(take));
    if (tail !== undefined) return [key, ...tail];
  }
  return undefined;
}

/** One resolution failure the Framework reported for a key. */
const KEY_FAILURE =
  /(Cannot resolve variable at|Variable syntax error at) "([^"]+)": ([\s\S]*?)(?=,?\n\s*- (?:Cannot resolve variable at|Variable syntax error at) "|\s*$)/g;
const UNRECOGNIZED_SOURCES = /Unrecognized configuration variable sources: ((?:"[^"]+"(?:, )?)+)/;
const INACCESSIBLE_PROPERTY = /"([^"]+)" property is not accessible \(([^)]*)\)/;

/**
 * The Framework's variable resolution error (what `serverless print` says) as dev problems: one line per
 * failing key, naming the key, the variable(s) written there, the Framework's reason, the keys that use
 * the failing value through `${self:...}`, and what an AWS source needs. Empty when the message is not
 * about variables (the caller shows it as it is).
 */
export function resolutionProblems(message: string, document: unknown): string[] {
  const uses = findVariables(document);
  const problems: string[] = [];
  for (const match of message.matchAll(KEY_FAILURE)) {
    const [, kind = '', frameworkKey = '', reason = ''] = match;
    const syntax = kind.startsWith('Variable syntax');
    problems.push(
      keyProblem(document, uses, frameworkKey, `${syntax ? 'syntax error: ' : ''}${reason.trim()}`),
    );
  }
  const unrecognized = UNRECOGNIZED_SOURCES.exec(message);
  if (unrecognized !== null) {
    const names = [...(unrecognized[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '');
    const offending = uses.filter((use) => names.includes(use.source));
    for (const use of offending) {
      problems.push(
        `${echoedText(use.key)}: ${echoedText(use.variable)}: unknown variable source ${echoedValue(use.source)} (neither the Framework nor a plugin of the service provides it)`,
      );
    }
    if (offending.length === 0) problems.push(echoedText(unrecognized[0], MAX_REASON_CHARS));
  }
  const inaccessible = INACCESSIBLE_PROPERTY.exec(message);
  if (inaccessible !== null) {
    problems.push(keyProblem(document, uses, inaccessible[1] ?? '', inaccessible[2] ?? 'not accessible'));
  }
  return problems;
}

function keyProblem(
  document: unknown,
  uses: readonly VariableUse[],
  frameworkKey: string,
  reason: string,
): string {
  const path = pathOfFrameworkKey(document, frameworkKey);
  const key = path === undefined ? frameworkKey : keyText(path);
  const here = uses.filter((use) => use.key === key);
  const variables = here.length === 0 ? '' : `${here.map((use) => echoedText(use.variable)).join(' ')}: `;
  const users = usersOf(uses, frameworkKey, key);
  const usedBy =
    users.length === 0
      ? ''
      : ` (used by ${users
          .slice(0, MAX_USERS_NAMED)
          .map((user) => echoedText(user))
          .join(', ')}${users.length > MAX_USERS_NAMED ? ', ...' : ''})`;
  const aws = here.find((use) => readsAws(use.source));
  const awsHint =
    aws === undefined
      ? ''
      : ` — ${aws.source}: reads AWS: run dev with credentials that can read it (AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and --region, or give the value another way (--param, an env variable)`;
  return `${echoedText(key)}: ${variables}${echoedText(reason, MAX_REASON_CHARS)}${usedBy}${awsHint}`;
}

/** The keys whose `${self:...}` reads the failing key (or a part of it, or a value that contains it). */
function usersOf(uses: readonly VariableUse[], frameworkKey: string, key: string): string[] {
  const users = uses.filter((use) => {
    if (use.source !== 'self' || use.key === key) return false;
    const address = /^\$\{self:([^,}$]*)/.exec(use.variable)?.[1]?.trim();
    if (address === undefined || address === '') return false;
    return (
      address === frameworkKey ||
      address.startsWith(`${frameworkKey}.`) ||
      frameworkKey.startsWith(`${address}.`)
    );
  });
  return [...new Set(users.map((use) => use.key))];
}
