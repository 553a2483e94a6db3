/**
 * The console options of `npm run demo -- [--console-port <n>] [--no-console]`, as `dev` takes them.
 */
import { DEFAULT_CONSOLE_PORT } from '../dev/console/console-server.js';

/** The console the demo starts (undefined: none), or the problem of its arguments. */
export function demoConsoleOption(args: readonly string[]): { port: number } | undefined | string {
  let port = DEFAULT_CONSOLE_PORT;
  let enabled = true;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--no-console') {
      enabled = false;
    } else if (arg === '--console-port' || arg.startsWith('--console-port=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++index];
      if (value === undefined || !/^\d+$/.test(value) || Number(value) > 65535) {
        return `--console-port must be a port number 0..65535 (0: any free port), got ${JSON.stringify(value ?? '')}`;
      }
      port = Number(value);
    } else {
      return `unknown argument ${JSON.stringify(arg)}: the demo takes --console-port <n> and --no-console`;
    }
  }
  return enabled ? { port } : undefined;
}
