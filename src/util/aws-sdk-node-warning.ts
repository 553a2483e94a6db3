/**
 * The AWS SDK for JavaScript v3 warns once per process, through `process.emitWarning`, that a later SDK
 * release will drop the running Node.js version (`NodeVersionSupportWarning: The AWS SDK for JavaScript
 * (v3) versions published after ... will require node >=22`; older releases: `NodeDeprecationWarning: The
 * AWS SDK for JavaScript (v3) will no longer support Node.js 20 ...`). Our users cannot act on it (the
 * supported Node.js versions are ours to pick), so the CLI drops exactly that warning and no other.
 */

/** The start of the SDK's Node.js version warnings, whatever their release. */
const AWS_SDK_NODE_VERSION_WARNING = /^Node\w*Warning: The AWS SDK for JavaScript \(v3\)/;

let installed = false;

/**
 * Whether a warning (as given to `process.emitWarning`) is the AWS SDK's Node.js version warning.
 */
export function isAwsSdkNodeVersionWarning(warning: unknown): boolean {
  const text = typeof warning === 'string' ? warning : warning instanceof Error ? warning.message : '';
  return AWS_SDK_NODE_VERSION_WARNING.test(text);
}

/**
 * Makes `process.emitWarning` drop the AWS SDK's Node.js version warning; every other warning goes through
 * unchanged. Idempotent; call it once, before the SDK's first client is made.
 */
export function suppressAwsSdkNodeVersionWarning(): void {
  if (installed) return;
  installed = true;
  const emitWarning = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]): void => {
    if (isAwsSdkNodeVersionWarning(warning)) return;
    (emitWarning as (warning: string | Error, ...rest: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}
