import { describe, expect, it } from 'vitest';
import { demoOptions } from '../../../src/cli/demo-options.js';
import { DEFAULT_CONSOLE_PORT } from '../../../src/dev/console/console-port.js';

describe('demoOptions', () => {
  it('starts the console on its default port, no timeline, when given nothing', () => {
    expect(demoOptions([])).toEqual({ console: { port: DEFAULT_CONSOLE_PORT }, timings: false });
  });

  it('takes --console-port (0: any free port), --no-console and --timings together', () => {
    expect(demoOptions(['--console-port', '0', '--timings'])).toEqual({
      console: { port: 0 },
      timings: true,
    });
    expect(demoOptions(['--console-port=9999'])).toEqual({ console: { port: 9999 }, timings: false });
    expect(demoOptions(['--no-console', '--timings'])).toEqual({ console: undefined, timings: true });
  });

  it.each([
    [['--console-port', 'abc'], /--console-port must be a port number 0\.\.65535.*"abc"/],
    [['--console-port', '70000'], /--console-port must be a port number.*"70000"/],
    [['--verbose'], /--verbose.*the demo takes --console-port <n>, --no-console and --timings/],
    [['extra'], /extra.*the demo takes/],
  ])('names the problem with %j', (args, problem) => {
    expect(demoOptions(args)).toMatch(problem);
  });
});
