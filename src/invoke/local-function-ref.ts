/**
 * `local:` function references, run in-process by the LocalInvoker: `local:<module path>[#<export name>]`.
 * A module of its own (no logger, no handler loading) so that config/ checks references without them.
 */
import { InvokeError } from './invoke-error.js';

/**
 * The prefix of local function references.
 */
export const LOCAL_FUNCTION_REF_PREFIX = 'local:';
const DEFAULT_EXPORT_NAME = 'handler';

/**
 * The parts of a `local:` function reference.
 */
export interface LocalFunctionRef {
  /** As written: relative to the base directory, or absolute. */
  modulePath: string;
  exportName: string;
}

/**
 * Parses `local:<module path>[#<export name>]` (the export defaults to `handler`). Throws a fatal
 * {@link InvokeError} for anything else.
 */
export function parseLocalFunctionRef(functionRef: string): LocalFunctionRef {
  if (!functionRef.startsWith(LOCAL_FUNCTION_REF_PREFIX)) {
    throw new InvokeError(`function ${JSON.stringify(functionRef)} is not a local: reference`, {
      functionRef,
      fatal: true,
    });
  }
  const rest = functionRef.slice(LOCAL_FUNCTION_REF_PREFIX.length);
  const hash = rest.lastIndexOf('#');
  const modulePath = hash === -1 ? rest : rest.slice(0, hash);
  const exportName = hash === -1 ? DEFAULT_EXPORT_NAME : rest.slice(hash + 1);
  if (modulePath === '' || exportName === '') {
    throw new InvokeError(
      `function ${JSON.stringify(functionRef)} is not local:<module path>[#<export name>]`,
      { functionRef, fatal: true },
    );
  }
  return { modulePath, exportName };
}
