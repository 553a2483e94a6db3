/**
 * The exit codes every `rocketmq-lambda` command shares (a command's help lists any others it uses).
 */

/** Done. */
export const EXIT_OK = 0;
/** The command ran and failed: the poller could not start or a mapping failed, a broker refused, ... */
export const EXIT_FAILURE = 1;
/** Bad arguments or an invalid config: nothing was started. */
export const EXIT_USAGE = 2;
