/**
 * CDK tokens through the plugin's compiler. The compiler (src/serverless/compile-rocketmq-resources.ts)
 * checks literal strings (ARN shapes, names) and passes intrinsic functions through whole, as values of
 * `Fn::Sub` variable maps, `Fn::Join` lists and properties. A CDK token (`${Token[...]}`: an attribute of a
 * resource, an imported value) is neither: it is a string the compiler cannot read. So before compiling
 * each token becomes a placeholder intrinsic, `{ Ref: 'RocketMQCdkToken<n>' }` (a string with tokens inside
 * becomes an `Fn::Join` of its literal parts and placeholders), and after compiling every placeholder in
 * the output is put back as its token, which CDK resolves when it synthesizes the template.
 */
import { Token } from 'aws-cdk-lib';
import type { CfnString } from '../serverless/cfn-intrinsic.js';

/** The prefix of a placeholder's `Ref`: no CloudFormation logical id of ours starts like this. */
const PLACEHOLDER_PREFIX = 'RocketMQCdkToken';
/** CDK's encoding of a token inside a string (`${Token[NAME.123]}`). */
const STRING_TOKEN = /\$\{Token\[[^\]]+\]\}/g;

/**
 * Placeholders of one compile: {@link hold} before, {@link restore} after.
 */
export class TokenPlaceholders {
  readonly #tokens: string[] = [];

  /** `value` itself when it holds no token, else its placeholder intrinsic. */
  hold(value: string): CfnString {
    if (!Token.isUnresolved(value)) return value;
    const parts: CfnString[] = [];
    let last = 0;
    for (const match of value.matchAll(STRING_TOKEN)) {
      if (match.index > last) parts.push(value.slice(last, match.index));
      parts.push(this.#placeholder(match[0]));
      last = match.index + match[0].length;
    }
    if (last < value.length) parts.push(value.slice(last));
    if (parts.length === 1 && typeof parts[0] === 'object') return parts[0];
    return { 'Fn::Join': ['', parts] };
  }

  /** Every value of `values` held (a list of subnet ids, of topic ARNs). */
  holdAll(values: readonly string[]): CfnString[] {
    return values.map((value) => this.hold(value));
  }

  /**
   * `tree` (props as written) with every string held; a number that is a token is refused (the compiler
   * computes with numbers: they must be known at synth).
   */
  holdTree(tree: unknown, path: string): unknown {
    if (typeof tree === 'string') return this.hold(tree);
    if (typeof tree === 'number' && Token.isUnresolved(tree)) {
      throw new TypeError(`${path}: must be a number known at synth, not a token`);
    }
    if (Array.isArray(tree)) return tree.map((item, index) => this.holdTree(item, `${path}[${index}]`));
    if (typeof tree !== 'object' || tree === null) return tree;
    return Object.fromEntries(
      Object.entries(tree).map(([key, value]) => [key, this.holdTree(value, `${path}.${key}`)]),
    );
  }

  /** `tree` with every placeholder replaced by its token; everything else as it is. */
  restore(tree: unknown): unknown {
    if (Array.isArray(tree)) return tree.map((item) => this.restore(item));
    if (typeof tree !== 'object' || tree === null) return tree;
    const ref = placeholderIndex(tree);
    if (ref !== undefined) {
      const token = this.#tokens[ref];
      if (token === undefined) throw new Error(`${PLACEHOLDER_PREFIX}${ref} was never held`);
      return token;
    }
    return Object.fromEntries(Object.entries(tree).map(([key, value]) => [key, this.restore(value)]));
  }

  #placeholder(token: string): CfnString {
    let index = this.#tokens.indexOf(token);
    if (index < 0) index = this.#tokens.push(token) - 1;
    return { Ref: `${PLACEHOLDER_PREFIX}${index}` };
  }
}

function placeholderIndex(node: object): number | undefined {
  const keys = Object.keys(node);
  if (keys.length !== 1 || keys[0] !== 'Ref') return undefined;
  const ref = (node as { Ref: unknown }).Ref;
  if (typeof ref !== 'string' || !ref.startsWith(PLACEHOLDER_PREFIX)) return undefined;
  const index = Number(ref.slice(PLACEHOLDER_PREFIX.length));
  return Number.isInteger(index) ? index : undefined;
}
