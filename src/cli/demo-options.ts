/**
 * The options of `npm run demo -- [--console-port <n>] [--no-console] [--timings] [--keep-broker <minutes>]
 * [--stop-broker]`: the console ones as `dev` takes them, `--timings` (the start-up timeline after the
 * first invocation), and the kept broker's (src/local-broker/kept-broker.ts).
 */
import { parseArgs } from 'node:util';
import { DEFAULT_CONSOLE_PORT } from '../dev/console/console-port.js';
import { portNumber } from './option-parsers.js';

/** Minutes the demo's broker stays up after the demo, for the next run, unless `--keep-broker` says. */
export const DEFAULT_KEEP_BROKER_MINUTES = 15;
/** The longest `--keep-broker`: a day. */
export const MAX_KEEP_BROKER_MINUTES = 24 * 60;

/** What the demo was asked for. */
export type DemoOptions =
  | {
      readonly action: 'run';
      /** The console the demo starts (undefined: none). */
      readonly console: { readonly port: number } | undefined;
      readonly timings: boolean;
      /** How long the broker stays up after the demo (undefined: it stops with the demo). */
      readonly keepBrokerMs: number | undefined;
    }
  | { readonly action: 'stop-broker' };

const USAGE =
  'the demo takes --console-port <n>, --no-console, --timings, --keep-broker <minutes> (0: stop it with the demo) and --stop-broker';

/** The demo's options, or the problem with its arguments (a message naming it). */
export function demoOptions(args: readonly string[]): DemoOptions | string {
  let values: {
    'console-port'?: string;
    'no-console'?: boolean;
    timings?: boolean;
    'keep-broker'?: string;
    'stop-broker'?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        'console-port': { type: 'string' },
        'no-console': { type: 'boolean' },
        timings: { type: 'boolean' },
        'keep-broker': { type: 'string' },
        'stop-broker': { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return `${(err as Error).message}: ${USAGE}`;
  }
  if (values['stop-broker'] === true) {
    const others = Object.keys(values).filter((key) => key !== 'stop-broker');
    if (others.length > 0)
      return `--stop-broker stops the kept broker and exits: it takes no other option (got --${others.join(', --')})`;
    return { action: 'stop-broker' };
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
  const keepText = values['keep-broker'];
  let keepMinutes = DEFAULT_KEEP_BROKER_MINUTES;
  if (keepText !== undefined) {
    keepMinutes = Number(keepText);
    if (
      keepText.trim() === '' ||
      !Number.isFinite(keepMinutes) ||
      keepMinutes < 0 ||
      keepMinutes > MAX_KEEP_BROKER_MINUTES
    ) {
      return `--keep-broker takes minutes from 0 (stop the broker with the demo) to ${MAX_KEEP_BROKER_MINUTES}, got ${JSON.stringify(keepText)}`;
    }
  }
  return {
    action: 'run',
    console: values['no-console'] === true ? undefined : { port },
    timings: values.timings === true,
    keepBrokerMs: keepMinutes === 0 ? undefined : Math.round(keepMinutes * 60_000),
  };
}
