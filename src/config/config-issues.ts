/**
 * Turns zod's issues into our problem lines: one per problem, naming the key path, in words a config
 * author understands (`must be ≤ 10000`, `unknown key (did you mean batchSize?)`, `required`).
 */
import type { z } from 'zod';
import { closestKey } from '../util/closest-key.js';
import { echoedValue } from '../util/echoed-value.js';
import { knownKeysAt } from './config-keys.js';
import type { ConfigProblem, KeyPath } from './config-problem.js';

type Issue = z.core.$ZodIssue;

/** Keys whose values are secrets (or parts of credentials): no problem line ever shows their value. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'accessKey',
  'secretKey',
  'securityToken',
  'keyPassphrase',
  // tls.key: a private key's PEM text.
  'key',
]);

/**
 * Keys whose whole value is credentials: a value in the wrong shape there (`acl: <the secret key>`, a
 * misplaced line) is still a secret.
 */
const SECRET_SECTIONS: ReadonlySet<string> = new Set(['acl']);

/** A key that reads as a misspelt key name (letters only, short), not as a credential. */
const NAME_LIKE = /^[A-Za-z]{1,20}$/;

/** True when the value at `path` is, or is inside, a secret. */
function holdsSecret(path: KeyPath): boolean {
  return path.some(
    (part) => typeof part === 'string' && (SECRET_KEYS.has(part) || SECRET_SECTIONS.has(part)),
  );
}

/** Extra words for a missing required key. */
const REQUIRED_HINTS: Readonly<Record<string, string>> = {
  nameServer: 'required (or set ROCKETMQ_NAME_SERVER or NAMESRV_ADDR)',
};

/**
 * What the wording knows of the schema the issues came from: the poller config's by default, the
 * Serverless plugin's for its own schemas, so a typo is never answered with a key of the other.
 */
export interface IssueVocabulary {
  /** The keys allowed at `path`, for "did you mean". */
  readonly knownKeysAt: (path: KeyPath) => readonly string[];
  /** Words for a missing key, by dotted path with `[]` for array items (`mappings.[].topic`). */
  readonly requiredHints: Readonly<Record<string, string>>;
}

const RUN_CONFIG_VOCABULARY: IssueVocabulary = { knownKeysAt, requiredHints: REQUIRED_HINTS };

/**
 * One problem per zod issue (one per key for unknown keys; the matching alternative's issues for unions).
 * Issues must come from a parse with `reportInput: true` so that messages can show the bad value.
 */
export function problemsOfIssues(
  issues: readonly Issue[],
  base: KeyPath = [],
  vocabulary: IssueVocabulary = RUN_CONFIG_VOCABULARY,
): ConfigProblem[] {
  return issues.flatMap((issue) =>
    problemsOfIssue(issue, [...base, ...issue.path.map(pathPart)], vocabulary),
  );
}

function pathPart(part: PropertyKey): string | number {
  return typeof part === 'number' ? part : String(part);
}

function problemsOfIssue(issue: Issue, path: KeyPath, vocabulary: IssueVocabulary): ConfigProblem[] {
  const got = (input: unknown) => gotSuffix(input, holdsSecret(path));
  switch (issue.code) {
    case 'unrecognized_keys':
      // Under acl a key may be a secret written in the wrong place (`{ secretKey:abc }` is one key):
      // only a short word of letters (a misspelt key name) is shown there.
      if (holdsSecret(path)) {
        return issue.keys.map((key) =>
          NAME_LIKE.test(key)
            ? { path: [...path, key], message: unknownKeyMessage(vocabulary.knownKeysAt(path), key) }
            : {
                path,
                message: `${unknownKeyMessage(vocabulary.knownKeysAt(path), key)} (the key is not shown: here it may be a secret)`,
              },
        );
      }
      return issue.keys.map((key) => ({
        path: [...path, key],
        message: unknownKeyMessage(vocabulary.knownKeysAt(path), key),
      }));
    case 'invalid_union': {
      if (issue.input === undefined)
        return [{ path, message: vocabulary.requiredHints[pathKey(path)] ?? 'required' }];
      const matching = matchingAlternative(issue.errors);
      if (matching !== undefined) return problemsOfIssues(matching, path, vocabulary);
      return [{ path, message: `${issue.message}${got(issue.input)}` }];
    }
    case 'invalid_type':
      if (issue.input === undefined) {
        return [{ path, message: vocabulary.requiredHints[pathKey(path)] ?? 'required' }];
      }
      return [
        {
          path,
          message: `must be ${typeWords(issue.expected)}${got(issue.input)}${quoteHint(issue.expected, issue.input)}`,
        },
      ];
    case 'too_big':
      return [{ path, message: tooBigMessage(issue, got) }];
    case 'too_small':
      return [{ path, message: tooSmallMessage(issue, got) }];
    case 'invalid_value':
      return [{ path, message: invalidValueMessage(issue.values, issue.input, got) }];
    default:
      return [{ path, message: issue.message }];
  }
}

/**
 * The alternative of a union whose type matched (its issues are not "wrong type" at the union's own
 * place), so that `filter: { sqll: ... }` reports the unknown key rather than "must be a string or ...".
 * Among several objects, the one that knows the keys given: `image: { pullThroughCache: { upstream: x } }`
 * reports `upstream`, not that `{ build }` has no key `pullThroughCache`.
 */
function matchingAlternative(alternatives: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const candidates = alternatives.filter(
    (issues) => !issues.some((issue) => issue.code === 'invalid_type' && issue.path.length === 0),
  );
  if (candidates.length === 0) return undefined;
  // One alternative left, but it refuses the value as a whole too (`true` of `true | { ... }` given
  // `false`): no alternative matched, and the union's own message says what would.
  if (candidates.length === 1) {
    const only = candidates[0];
    return alternatives.length > 1 && only?.some(matchesNoOption) ? undefined : only;
  }
  const knowingTheKeys = candidates.filter((issues) => !issues.some(failsAtItsRoot));
  return knowingTheKeys.length === 1 ? knowingTheKeys[0] : undefined;
}

/** An issue saying that the value is none of this alternative's own options (a literal, an enum, a union). */
function matchesNoOption(issue: Issue): boolean {
  return issue.path.length === 0 && (issue.code === 'invalid_union' || issue.code === 'invalid_value');
}

/** An issue saying that the value as a whole is not this alternative's (a key it lacks, no option of it). */
function failsAtItsRoot(issue: Issue): boolean {
  return (
    issue.path.length === 0 &&
    (issue.code === 'unrecognized_keys' || issue.code === 'invalid_union' || issue.code === 'invalid_value')
  );
}

function pathKey(path: KeyPath): string {
  return path.map((part) => (typeof part === 'number' ? '[]' : part)).join('.');
}

/**
 * Keys longer than this get no "did you mean": no known key is close to them, and the edit distance
 * costs the product of the lengths (a 1 MiB key against every known key took seconds).
 */
const MAX_SUGGESTED_KEY_CHARS = 64;

function unknownKeyMessage(known: readonly string[], key: string): string {
  const suggestion = key.length > MAX_SUGGESTED_KEY_CHARS ? undefined : closestKey(key, known);
  return suggestion === undefined ? 'unknown key' : `unknown key (did you mean ${suggestion}?)`;
}

function typeWords(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
      return 'a mapping of keys to values';
    default:
      return `of type ${expected}`;
  }
}

type GotSuffix = (input: unknown) => string;

/** A number where text belongs is usually unquoted YAML (`secretKey: 0123` reads as the number 123). */
function quoteHint(expected: string, input: unknown): string {
  return expected === 'string' && typeof input === 'number' ? ' (put it in quotes)' : '';
}

function tooBigMessage(issue: z.core.$ZodIssueTooBig, got: GotSuffix): string {
  const limit = String(issue.maximum);
  switch (issue.origin) {
    case 'string':
      return `must be at most ${limit} characters long`;
    case 'array':
      return `must have at most ${limit} entries`;
    default:
      return `must be ${issue.inclusive === false ? '<' : '≤'} ${limit}${got(issue.input)}`;
  }
}

function tooSmallMessage(issue: z.core.$ZodIssueTooSmall, got: GotSuffix): string {
  const limit = Number(issue.minimum);
  switch (issue.origin) {
    case 'string':
      return limit <= 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'array':
      return `must have at least ${limit} ${limit === 1 ? 'entry' : 'entries'}`;
    default:
      return `must be ${issue.inclusive === false ? '>' : '≥'} ${limit}${got(issue.input)}`;
  }
}

function invalidValueMessage(values: readonly unknown[], input: unknown, got: GotSuffix): string {
  const allowed = values.map((value) => String(value));
  const text = typeof input === 'string' ? input : undefined;
  const sameCase =
    text === undefined ? undefined : allowed.find((value) => value.toLowerCase() === text.toLowerCase());
  const hint = sameCase === undefined ? '' : ` (did you mean ${sameCase}?)`;
  return `must be one of ${allowed.join(', ')}${got(input)}${hint}`;
}

/**
 * `, got <value>` for a value worth showing (short scalars), else its kind; for a secret only its kind,
 * never the value.
 */
function gotSuffix(input: unknown, secret: boolean): string {
  if (secret) {
    const kind = Array.isArray(input) ? 'a list' : input === null ? 'null' : `a ${typeof input}`;
    return input === undefined ? '' : `, got ${kind} (value not shown)`;
  }
  if (typeof input === 'string')
    return input.length <= 60
      ? `, got ${echoedValue(input)}`
      : `, got a string of ${input.length} characters`;
  if (typeof input === 'number' || typeof input === 'boolean') return `, got ${String(input)}`;
  if (input === null) return ', got null';
  if (Array.isArray(input)) return ', got a list';
  if (typeof input === 'object') return ', got an object';
  return '';
}
