/**
 * How texts taken from Invoke API answers are quoted in failure messages, thrown errors and log lines:
 * each cut to a bound. A function's `errorMessage`, the message of an error answer and a response that is
 * not JSON can each be megabytes (up to the limit on an answer, lambda-response-cap.ts), and every one of
 * them ends up in a log line, and in a failure record for the batch's messages.
 */
import { RocketMQError } from '../errors.js';
import { echoedText } from '../util/echoed-value.js';

/**
 * How many characters of an error text (a function's `errorMessage`, an error answer's message, a
 * response that is not JSON) a failure message quotes: a stack trace's first lines, not a dump.
 */
export const MAX_ERROR_TEXT_CHARS = 1_000;

/**
 * How many characters of a name (a function's `errorType`, an error code, a throttle reason) a failure
 * message quotes: room for a fully qualified Java exception class.
 */
export const MAX_ERROR_NAME_CHARS = 200;

/**
 * Lambda's error shape `{"errorType","errorMessage"}` of a FunctionError answer, as JSON, each text cut
 * to its bound. An answer that is not that shape is quoted as the message, `functionError` (`Handled`,
 * `Unhandled`) as the type.
 */
export function functionErrorMessage(functionError: string, text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined; // not JSON: quoted as the message below
  }
  const shape = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const errorType = typeof shape.errorType === 'string' ? shape.errorType : functionError;
  const errorMessage = typeof shape.errorMessage === 'string' ? shape.errorMessage : text;
  return JSON.stringify({
    errorType: echoedText(errorType, MAX_ERROR_NAME_CHARS),
    errorMessage: echoedText(errorMessage, MAX_ERROR_TEXT_CHARS),
  });
}

/**
 * One line about an error of an invoke: its name, message, throttle reason and HTTP status, the texts an
 * answer supplied cut to their bounds.
 */
export function describeLambdaError(error: unknown): string {
  if (!(error instanceof Error)) return echoedText(String(error), MAX_ERROR_TEXT_CHARS);
  const status = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  const reason = (error as { Reason?: unknown }).Reason;
  return (
    `${echoedText(error.name, MAX_ERROR_NAME_CHARS)}: ${echoedText(error.message, MAX_ERROR_TEXT_CHARS)}` +
    (typeof reason === 'string' ? ` (${echoedText(reason, MAX_ERROR_NAME_CHARS)})` : '') +
    (typeof status === 'number' ? ` [HTTP ${status}]` : '')
  );
}

/**
 * `error` itself when every text on it is within its bound, else an error that says the same in short
 * (its {@link describeLambdaError} line, and the answer's `$metadata`): what goes into a log line or an
 * error's `cause`, where a logger prints the message, the stack and every field of the error.
 */
export function boundedLambdaError(error: unknown): unknown {
  if (!(error instanceof Error) || withinBounds(error)) return error;
  const short = new RocketMQError(describeLambdaError(error));
  const metadata = (error as { $metadata?: unknown }).$metadata;
  return metadata === undefined ? short : Object.assign(short, { $metadata: metadata });
}

/** How deep a chain of causes is looked at; a longer one counts as not within bounds. */
const MAX_CAUSE_DEPTH = 5;

function withinBounds(error: Error, depth = 0): boolean {
  if (depth > MAX_CAUSE_DEPTH) return false;
  if (error.name.length > MAX_ERROR_NAME_CHARS || error.message.length > MAX_ERROR_TEXT_CHARS) return false;
  for (const key in error) {
    const value: unknown = (error as unknown as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length > MAX_ERROR_TEXT_CHARS) return false;
  }
  return !(error.cause instanceof Error) || withinBounds(error.cause, depth + 1);
}
