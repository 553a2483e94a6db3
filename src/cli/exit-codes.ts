/**
 * The one exit-code table of every `rocketmq-lambda` command: the same code for the same situation in
 * every command. A command's help lists the codes it uses (with its own wording of what they mean to
 * it: cli-command.ts), the README's table is generated from {@link EXIT_CODE_TABLE}, and a unit test
 * checks that no help lists a code this table does not have.
 */

/** Done. */
export const EXIT_OK = 0;
/**
 * The command ran and failed, or refused an action (the reason on stderr): the poller could not start
 * or a mapping failed, a broker refused, a reset was refused, a confirmation prompt was declined, ...
 */
export const EXIT_FAILURE = 1;
/**
 * Bad arguments or an invalid config: nothing was started. Also a missing `--yes` when stdin is not a
 * terminal (a usage problem: nobody can confirm), for every command that asks.
 */
export const EXIT_USAGE = 2;
/** Ended by SIGINT (128 + 2): Ctrl-C, a second one for `run`, or one during a redrive or a reset. */
export const EXIT_INTERRUPTED = 130;
/** Ended by SIGTERM (128 + 15). */
export const EXIT_TERMINATED = 143;

/**
 * Every exit code a command may end with, and what it means whatever the command: the README's table.
 */
export const EXIT_CODE_TABLE: Readonly<Record<number, string>> = {
  [EXIT_OK]: 'done',
  [EXIT_FAILURE]: 'the command ran and failed, or refused an action (the reason is on stderr)',
  [EXIT_USAGE]: 'bad arguments or an invalid config (one line per problem on stderr)',
  [EXIT_INTERRUPTED]: 'interrupted by SIGINT (Ctrl-C)',
  [EXIT_TERMINATED]: 'terminated by SIGTERM',
};

/**
 * What the same situation ends with in every command, beyond the table (the README prints it under it).
 */
export const EXIT_CODE_RULES: readonly string[] = [
  `A command that asks for confirmation and cannot (stdin is not a terminal) without --yes exits ${EXIT_USAGE}: nothing was done; a declined confirmation exits ${EXIT_FAILURE}.`,
  `Lag, an empty DLQ or nothing to do is not a failure: ${EXIT_OK}.`,
  `A dlq redrive or an offsets reset stopped by a signal says where it stopped and exits ${EXIT_INTERRUPTED} (SIGINT) or ${EXIT_TERMINATED} (SIGTERM), 128 + the signal's number as shells report it; run exits so on a second signal (the first stops it gracefully, exit ${EXIT_OK}); status --watch stops on the first with the code of its last snapshot.`,
];

/**
 * The "Exit codes:" lines of a help text: each code padded to a column, then its meaning.
 */
export function exitCodeLines(codes: Readonly<Record<number, string>>): string {
  return Object.entries(codes)
    .map(([code, meaning]) => `  ${code.padEnd(4)}${meaning}`)
    .join('\n');
}
