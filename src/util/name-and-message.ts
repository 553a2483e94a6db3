/**
 * `Name: message` of a thrown value (anything else as a string): for reasons where the error's name is
 * the information, AWS error codes (`AccessDenied`, `ThrottlingException`) and Lambda's own
 * `SyntaxError: ...` lines. `describeError` drops names it does not know; this keeps every one.
 */
export function nameAndMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
