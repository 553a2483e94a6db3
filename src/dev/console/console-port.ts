/**
 * The dev console's default port, in a file of its own: `npm run demo` parses its options before it
 * imports the console's server (src/cli/demo.ts starts the local broker first).
 */

/** The port the console listens on unless `--console-port` says otherwise. */
export const DEFAULT_CONSOLE_PORT = 9780;
