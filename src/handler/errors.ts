/**
 * The one error class of the handler kit. The kit runs inside users' functions and imports nothing from the
 * poller, so this class does not extend the poller's RocketMQError.
 */

/**
 * One problem found while parsing: where (a path such as `Records[2].messageId` or `body.items[0].price`)
 * and what.
 *
 * @example
 * ```ts
 * const issue: RocketMQParseIssue = { path: 'Records[0].queueId', message: 'expected number, received string' };
 * ```
 */
export interface RocketMQParseIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * An event, a record body or a response that does not have the expected shape. The message names every
 * issue's path (and, for a record, its `messageId`), so the log line alone says what to fix.
 *
 * @example
 * ```ts
 * try {
 *   const order = recordJson(record, OrderSchema);
 * } catch (error) {
 *   if (error instanceof RocketMQParseError) console.error(error.messageId, error.issues);
 *   throw error;
 * }
 * ```
 */
export class RocketMQParseError extends Error {
  override readonly name = 'RocketMQParseError';
  /** What was parsed, e.g. `'RocketMQ event'` or `'record "7F00...01" body'`. */
  readonly subject: string;
  /** The `messageId` of the record whose body failed, when a record body was parsed. */
  readonly messageId: string | undefined;
  readonly issues: readonly RocketMQParseIssue[];

  constructor(
    subject: string,
    issues: readonly RocketMQParseIssue[],
    options: { messageId?: string | undefined; cause?: unknown } = {},
  ) {
    super(`invalid ${subject}: ${formatIssues(issues)}`, { cause: options.cause });
    this.subject = subject;
    this.messageId = options.messageId;
    this.issues = issues;
  }
}

/** At most this many issues are spelled out in an error message (all of them stay in `issues`). */
const MAX_ISSUES_IN_MESSAGE = 5;

function formatIssues(issues: readonly RocketMQParseIssue[]): string {
  const shown = issues
    .slice(0, MAX_ISSUES_IN_MESSAGE)
    .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/**
 * A path segment as schema libraries report it (Standard Schema allows `{ key }` objects too).
 */
export type PathSegment = PropertyKey | { readonly key: PropertyKey };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A path as one string, JavaScript-style: `Records[2].properties["trace-id"]`.
 */
export function formatPath(prefix: string, segments: readonly PathSegment[] | undefined): string {
  let path = prefix;
  for (const segment of segments ?? []) {
    const key = typeof segment === 'object' ? segment.key : segment;
    if (typeof key === 'number') path += `[${key}]`;
    else if (typeof key === 'symbol') path += `[${key.toString()}]`;
    else if (IDENTIFIER.test(key)) path += path === '' ? key : `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
  }
  return path;
}
