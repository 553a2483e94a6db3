/**
 * The `function` of a mapping: `local:./module.js#export` (a handler module run in-process) or a Lambda
 * function (name, name:qualifier, partial ARN or ARN, as Lambda's Invoke API takes them; parsed by
 * `parseLambdaFunctionRef`, so the config accepts exactly what the invoker can call).
 */
import { InvokeError } from '../invoke/invoke-error.js';
import { type LambdaFunctionRef, parseLambdaFunctionRef } from '../invoke/lambda-function-ref.js';
import { LOCAL_FUNCTION_REF_PREFIX, parseLocalFunctionRef } from '../invoke/local-function-ref.js';
import { echoedValue } from '../util/echoed-value.js';

/**
 * A classified function reference.
 */
export type FunctionRef =
  | { readonly kind: 'local'; readonly ref: string; readonly modulePath: string; readonly exportName: string }
  | { readonly kind: 'lambda'; readonly ref: string; readonly lambda: LambdaFunctionRef }
  | {
      readonly kind: 'invalid';
      readonly ref: string;
      /** Why, in one line that quotes at most MAX_ECHOED_CHARS of the reference (src/util/echoed-value.ts). */
      readonly reason: string;
    };

const EXPORT_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * Classifies a mapping's `function` value. Never throws.
 */
export function classifyFunctionRef(ref: string): FunctionRef {
  if (ref.startsWith(LOCAL_FUNCTION_REF_PREFIX)) {
    try {
      const { modulePath, exportName } = parseLocalFunctionRef(ref);
      if (!EXPORT_NAME.test(exportName)) {
        return {
          kind: 'invalid',
          ref,
          // The name comes from a config: quoted like any echoed value, cut when long.
          reason: `export name ${echoedValue(exportName)} is not an identifier`,
        };
      }
      return { kind: 'local', ref, modulePath, exportName };
    } catch (error) {
      if (!(error instanceof InvokeError)) throw error;
      return { kind: 'invalid', ref, reason: 'must be local:<module path>[#<export name>]' };
    }
  }
  try {
    return { kind: 'lambda', ref, lambda: parseLambdaFunctionRef(ref) };
  } catch (error) {
    if (!(error instanceof InvokeError)) throw error;
    return {
      kind: 'invalid',
      ref,
      reason: 'must be "local:./module.js#export" or a Lambda function name or ARN',
    };
  }
}
