/**
 * How long a Lambda invoke may take, by default. A module of its own (no SDK import) so that config/
 * can check its rules against these numbers without loading the Lambda client.
 */

/**
 * How long a function may run by default: Lambda's maximum timeout (15 minutes).
 */
export const DEFAULT_FUNCTION_TIMEOUT_MS = 900_000;
/**
 * How much longer than the function's timeout an invoke may wait for its answer by default.
 */
export const DEFAULT_TIMEOUT_MARGIN_MS = 10_000;
