import { describe, expect, it } from 'vitest';
import { DEFAULT_KEEP_BROKER_MINUTES, demoOptions } from '../../../src/cli/demo-options.js';
import { DEFAULT_CONSOLE_PORT } from '../../../src/dev/console/console-port.js';

const KEPT_MS = DEFAULT_KEEP_BROKER_MINUTES * 60_000;

describe('demoOptions', () => {
  it('starts the console on its default port, no timeline, and keeps the broker 15 minutes, when given nothing', () => {
    expect(KEPT_MS).toBe(900_000);
    expect(demoOptions([])).toEqual({
      action: 'run',
      console: { port: DEFAULT_CONSOLE_PORT },
      timings: false,
      keepBrokerMs: KEPT_MS,
    });
  });

  it('takes --console-port (0: any free port), --no-console and --timings together', () => {
    expect(demoOptions(['--console-port', '0', '--timings'])).toEqual({
      action: 'run',
      console: { port: 0 },
      timings: true,
      keepBrokerMs: KEPT_MS,
    });
    expect(demoOptions(['--console-port=9999'])).toMatchObject({ console: { port: 9999 }, timings: false });
    expect(demoOptions(['--no-console', '--timings'])).toMatchObject({ console: undefined, timings: true });
  });

  it('takes --keep-broker in minutes (0: the broker stops with the demo) and --stop-broker alone', () => {
    expect(demoOptions(['--keep-broker', '0'])).toMatchObject({ action: 'run', keepBrokerMs: undefined });
    expect(demoOptions(['--keep-broker', '2.5'])).toMatchObject({ keepBrokerMs: 150_000 });
    expect(demoOptions(['--keep-broker=1440'])).toMatchObject({ keepBrokerMs: 86_400_000 });
    expect(demoOptions(['--stop-broker'])).toEqual({ action: 'stop-broker' });
  });

  it.each([
    [['--console-port', 'abc'], /--console-port must be a port number 0\.\.65535.*"abc"/],
    [['--console-port', '70000'], /--console-port must be a port number.*"70000"/],
    [
      ['--verbose'],
      /--verbose.*the demo takes --console-port <n>, --no-console, --timings, --keep-broker <minutes>/,
    ],
    [['extra'], /extra.*the demo takes/],
    [['--keep-broker=-1'], /--keep-broker takes minutes from 0 .* to 1440, got "-1"/],
    [['--keep-broker', '1441'], /--keep-broker takes minutes .* got "1441"/],
    [['--keep-broker', 'soon'], /--keep-broker takes minutes .* got "soon"/],
    [['--keep-broker', ''], /--keep-broker takes minutes .* got ""/],
    [
      ['--stop-broker', '--timings'],
      /--stop-broker stops the kept broker and exits: it takes no other option \(got --timings\)/,
    ],
  ])('names the problem with %j', (args, problem) => {
    expect(demoOptions(args)).toMatch(problem);
  });
});
