/**
 * Lambda function references as the Invoke API takes them: a bare name, `name:qualifier`, a partial ARN
 * `123456789012:function:name[:qualifier]`, or a full ARN
 * `arn:<partition>:lambda:<region>:<account>:function:name[:qualifier]`.
 */
import { InvokeError } from './invoke-error.js';

const FULL_ARN =
  /^arn:(aws[a-zA-Z-]*):lambda:([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d+):(\d{12}):function:([a-zA-Z0-9_-]{1,64})(?::(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;
const PARTIAL_ARN = /^(\d{12}):function:([a-zA-Z0-9_-]{1,64})(?::(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;
const NAME = /^([a-zA-Z0-9_-]{1,64})(?::(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;

/**
 * The parts of a Lambda function reference.
 */
export interface LambdaFunctionRef {
  /** As written in the mapping. */
  readonly ref: string;
  /** The reference without its qualifier (name, partial or full ARN): the Invoke API's `FunctionName`. */
  readonly functionName: string;
  /** The version or alias, when the reference names one. */
  readonly qualifier?: string | undefined;
  /** The bare function name. */
  readonly name: string;
  /** From a full ARN: where the function lives (the invoker calls that region). */
  readonly region?: string | undefined;
  readonly partition?: string | undefined;
  /** From a full or partial ARN. */
  readonly accountId?: string | undefined;
}

/**
 * Parses a Lambda function reference. Throws a fatal {@link InvokeError} when it is none of the forms the
 * Invoke API takes (a mapping with such a function can never deliver).
 */
export function parseLambdaFunctionRef(ref: string): LambdaFunctionRef {
  const full = FULL_ARN.exec(ref);
  if (full !== null) {
    const [, partition, region, accountId, name, qualifier] = full as unknown as [
      string,
      string,
      string,
      string,
      string,
      string | undefined,
    ];
    return {
      ref,
      functionName: `arn:${partition}:lambda:${region}:${accountId}:function:${name}`,
      qualifier,
      name,
      region,
      partition,
      accountId,
    };
  }
  const partial = PARTIAL_ARN.exec(ref);
  if (partial !== null) {
    const [, accountId, name, qualifier] = partial as unknown as [string, string, string, string | undefined];
    return { ref, functionName: `${accountId}:function:${name}`, qualifier, name, accountId };
  }
  const bare = NAME.exec(ref);
  if (bare !== null) {
    const [, name, qualifier] = bare as unknown as [string, string, string | undefined];
    return { ref, functionName: name, qualifier, name };
  }
  throw new InvokeError(
    `function ${JSON.stringify(ref)} is not a Lambda function name, name:qualifier, partial ARN or ARN`,
    { functionRef: ref, fatal: true },
  );
}

/**
 * The function's ARN as far as the reference tells it: the reference itself when it is a full ARN, else
 * one built from `region` and the account (`*` when unknown), for logs and failure records.
 */
export function lambdaFunctionArn(ref: LambdaFunctionRef, region: string): string {
  const base = `arn:${ref.partition ?? 'aws'}:lambda:${ref.region ?? region}:${ref.accountId ?? '*'}:function:${ref.name}`;
  return ref.qualifier === undefined ? base : `${base}:${ref.qualifier}`;
}
