/**
 * The message of a thrown value: an Error's own message (no cause chain, no name), anything else as
 * a string. For the full reason with causes, use `describeError`.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
