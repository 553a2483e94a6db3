/**
 * The options of `npm run demo -- [--console-port <n>] [--no-console] [--timings]`: the console ones as
 * `dev` takes them, and `--timings` (the start-up timeline after the first invocation).
 */
import { parseArgs } from 'node:util';
import { DEFAULT_CONSOLE_PORT } from '../dev/console/console-port.js';
import { portNumber } from './option-parsers.js';

/** What the demo was asked for. */
export interface DemoOptions {
  /** The console the demo starts (undefined: none). */
  readonly console: { readonly port: number } | undefined;
  readonly timings: boolean;
}

/** The demo's options, or the problem with its arguments (a message naming it). */
export function demoOptions(args: readonly string[]): DemoOptions | string {
  let values: { 'console-port'?: string; 'no-console'?: boolean; timings?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        'console-port': { type: 'string' },
        'no-console': { type: 'boolean' },
        timings: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return `${(err as Error).message}: the demo takes --console-port <n>, --no-console and --timings`;
  }
  const portText = values['console-port'];
  let port = DEFAULT_CONSOLE_PORT;
  if (portText !== undefined) {
    try {
      port = portNumber('--console-port')(portText);
    } catch (err) {
      return `${(err as Error).message.replace(/\.$/, '')}, got ${JSON.stringify(portText)}`;
    }
  }
  return {
    console: values['no-console'] === true ? undefined : { port },
    timings: values.timings === true,
  };
}
