/**
 * The writer id an operator's offset writes carry (an `offsets reset` from the CLI or any other
 * operations caller), so that whoever reads the store later (`status`, another operator) sees a reset
 * for what it is instead of a commit by an unknown client: `operator:<the command's client id>`.
 */

/** The prefix of every operator writer id. */
export const OPERATOR_WRITER_PREFIX = 'operator:';

/** The writer id of an operator whose RocketMQ client is `clientId`. */
export function operatorWriterId(clientId: string): string {
  return `${OPERATOR_WRITER_PREFIX}${clientId}`;
}

/** Whether a stored offset's writer is an operator (the last write was a reset). */
export function isOperatorWriter(writer: string | undefined): boolean {
  return writer?.startsWith(OPERATOR_WRITER_PREFIX) === true;
}
