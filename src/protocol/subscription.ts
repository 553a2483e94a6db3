/**
 * Subscription data as the Java client builds it (`FilterAPI.build`), sent in heartbeats and used for
 * the client-side tag re-check after a pull.
 */
import { RocketMQError } from '../errors.js';
import { javaStringHashCode } from './java-hash.js';

/**
 * The subscription expression meaning "every message".
 */
export const SUB_ALL = '*';

/**
 * How the broker reads a subscription expression (Java `ExpressionType`).
 */
export type ExpressionType = 'TAG' | 'SQL92';

/**
 * One topic subscription (Java `SubscriptionData`, field names as in its JSON).
 */
export interface SubscriptionData {
  topic: string;
  /** The expression as given (`*` for everything). */
  subString: string;
  /** Tags of a TAG expression, without duplicates; empty for `*` and for SQL92. */
  tagsSet: string[];
  /** Java `String.hashCode()` of each tag, in `tagsSet` order: the broker filters by these. */
  codeSet: number[];
  /** Java uses the build time in ms; the broker rejects pulls carrying a version older than its own. */
  subVersion: number;
  expressionType: ExpressionType;
  /** Class filters were removed from RocketMQ; always false. */
  classFilterMode: boolean;
}

/**
 * Builds subscription data following Java `FilterAPI`: for TAG, an empty or `*` expression (whitespace
 * around it ignored) subscribes to everything with empty sets; otherwise the expression is split on
 * `||`, each tag trimmed, empty ones dropped. SQL92 expressions are only checked to be non-empty (the
 * broker compiles them). Throws {@link RocketMQError} for a TAG expression without any tag (such as
 * `||`; Java throws too) and for an empty SQL92 expression.
 */
export function buildSubscriptionData(
  topic: string,
  expression = SUB_ALL,
  type: ExpressionType = 'TAG',
  subVersion: number = Date.now(),
): SubscriptionData {
  const base = { topic, subVersion, expressionType: type, classFilterMode: false };
  if (type === 'SQL92') {
    if (expression.trim().length === 0) {
      throw new RocketMQError(`SQL92 subscription expression for topic ${topic} is empty`);
    }
    return { ...base, subString: expression, tagsSet: [], codeSet: [] };
  }
  if (type !== 'TAG') throw new RocketMQError(`unknown subscription expression type ${String(type)}`);
  const trimmed = expression.trim();
  if (trimmed.length === 0 || trimmed === SUB_ALL) {
    return { ...base, subString: SUB_ALL, tagsSet: [], codeSet: [] };
  }
  const tags = [
    ...new Set(
      expression
        .split('||')
        .map((tag) => tag.trim())
        .filter((tag) => tag.length > 0),
    ),
  ];
  if (tags.length === 0) {
    throw new RocketMQError(`tag expression ${JSON.stringify(expression)} for topic ${topic} names no tag`);
  }
  return { ...base, subString: expression, tagsSet: tags, codeSet: tags.map(javaStringHashCode) };
}

/**
 * The client-side tag re-check Java does after every pull (`PullAPIWrapper.processPullResult`): the
 * broker filters by tag hash codes, which collide, so a message is kept only if its tag is in
 * `tagsSet`. Everything matches when `tagsSet` is empty (`*` and SQL92); a message without a tag then
 * matches only such a subscription.
 */
export function matchesTags(sub: SubscriptionData, tag: string | undefined): boolean {
  if (sub.classFilterMode || sub.tagsSet.length === 0 || sub.subString === SUB_ALL) return true;
  return tag !== undefined && sub.tagsSet.includes(tag);
}
