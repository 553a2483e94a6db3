import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { signalExitCode } from '../../../src/cli/cli-io.js';
import { main, USAGE } from '../../../src/cli/main.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/config/', import.meta.url));

describe('rocketmq-lambda', () => {
  it('--help and help print the usage on stdout', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const t = fakeCliIo();
      expect(await main(argv, t)).toBe(0);
      expect(t.out()).toBe(USAGE);
      expect(t.err()).toBe('');
    }
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const argv of [['--version'], ['-v']]) {
      const t = fakeCliIo();
      expect(await main(argv, t)).toBe(0);
      expect(t.out()).toBe(`${version}\n`);
    }
  });

  it('no command, an unknown command or an unknown option: usage on stderr, exit 2', async () => {
    const none = fakeCliIo();
    expect(await main([], none)).toBe(2);
    expect(none.err()).toBe(USAGE);

    const unknown = fakeCliIo();
    expect(await main(['serve'], unknown)).toBe(2);
    expect(unknown.err()).toBe(`rocketmq-lambda: unknown command serve\n\n${USAGE}`);

    const flag = fakeCliIo();
    expect(await main(['--verbose'], flag)).toBe(2);
    expect(flag.err().split('\n')[0]).toBe('rocketmq-lambda: unknown option --verbose');
  });
});

describe('rocketmq-lambda run', () => {
  it('--help prints the usage, the options, examples, exit codes and environment', async () => {
    const t = fakeCliIo();
    expect(await main(['run', '--help'], t)).toBe(0);
    const help = t.out();
    expect(help.split('\n')[0]).toBe('Usage: rocketmq-lambda run [options]');
    for (const section of ['Options:', 'Examples:', 'Exit codes:', 'Environment:']) {
      expect(help).toContain(`\n${section}\n`);
    }
    expect(help).toContain('-c, --config <file>');
    expect(help).toContain('$ rocketmq-lambda run --config poller.yaml');
    expect(help).toMatch(/\n {2}2 {3}bad arguments or an invalid config/);
    expect(t.err()).toBe('');
    // The first command loaded pays for the CLI's imports: seconds on a busy machine.
  }, 60_000);

  it('every command answers --help with examples and exit codes, without starting anything', async () => {
    const commands = USAGE.split('Commands:\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const line of commands) {
      const name = line.trim().split(/\s+/)[0] ?? '';
      const t = fakeCliIo();
      expect(await main([name, '--help'], t), name).toBe(0);
      expect(t.out().split('\n')[0]).toBe(`Usage: rocketmq-lambda ${name} [options]`);
      expect(t.out()).toContain('\nExamples:\n  $ rocketmq-lambda ');
      expect(t.out()).toContain('\nExit codes:\n');
    }
    // Loads every command module once (dev's included).
  }, 60_000);

  it('wants --config', async () => {
    const t = fakeCliIo();
    expect(await main(['run'], t)).toBe(2);
    expect(t.err()).toBe(
      'rocketmq-lambda run: --config <file> is required (or the config as JSON in ROCKETMQ_LAMBDA_CONFIG)\n' +
        '(rocketmq-lambda run --help shows the options)\n',
    );
    const blank = fakeCliIo({ ROCKETMQ_LAMBDA_CONFIG: '  ' });
    expect(await main(['run'], blank)).toBe(2);
    expect(blank.err()).toContain('--config <file> is required');
    const empty = fakeCliIo();
    expect(await main(['run', '--config'], empty)).toBe(2);
    expect(empty.err().split('\n')[0]).toMatch(
      /^rocketmq-lambda run: option '-c, --config <file>' argument missing/,
    );
  });

  it('rejects unknown options and stray arguments with the usage', async () => {
    const t = fakeCliIo();
    expect(await main(['run', '--config', 'x.yaml', '--dry-run'], t)).toBe(2);
    expect(t.err()).toBe(
      "rocketmq-lambda run: unknown option '--dry-run'\n(rocketmq-lambda run --help shows the options)\n",
    );
    const stray = fakeCliIo();
    expect(await main(['run', 'x.yaml'], stray)).toBe(2);
    expect(stray.err()).toContain('rocketmq-lambda run: too many arguments. Expected 0 arguments but got 1.');
    expect(stray.err()).toContain('(rocketmq-lambda run --help shows the options)');
  });

  it('a bad config: one stderr line per problem, prefixed with the file, exit 2, no signal handler left', async () => {
    const file = `${FIXTURES}bad-ranges.yaml`;
    const t = fakeCliIo();
    expect(await main(['run', '-c', file], t)).toBe(2);
    const lines = t.err().trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(`${file}: mappings[0].batchSize: must be ≤ 10000, got 10001`);
    for (const line of lines) expect(line.startsWith(`${file}: mappings[`)).toBe(true);
    expect(t.out()).toBe('');
    expect(t.stopHandlers).toHaveLength(0);
  });

  it('a missing config file: one line, exit 2', async () => {
    const t = fakeCliIo();
    expect(await main(['run', '--config', '/nonexistent/poller.yaml'], t)).toBe(2);
    expect(t.err()).toBe(
      '/nonexistent/poller.yaml: (config): cannot read /nonexistent/poller.yaml: no such file\n',
    );
  });

  it('without --config, reads the config as JSON from ROCKETMQ_LAMBDA_CONFIG; problems name the variable', async () => {
    const config = {
      nameServer: 'nohost',
      offsets: { store: 'memory' },
      mappings: [{ topic: 'T', consumerGroup: 'G', function: 'orders', batchSize: 0 }],
    };
    const t = fakeCliIo({ ROCKETMQ_LAMBDA_CONFIG: JSON.stringify(config) });
    expect(await main(['run'], t)).toBe(2);
    expect(t.err()).toBe(
      [
        'ROCKETMQ_LAMBDA_CONFIG: nameServer: "nohost" is not host:port',
        'ROCKETMQ_LAMBDA_CONFIG: mappings[0].batchSize: must be ≥ 1, got 0',
        '',
      ].join('\n'),
    );
    const notJson = fakeCliIo({ ROCKETMQ_LAMBDA_CONFIG: 'nameServer: a:1' });
    expect(await main(['run'], notJson)).toBe(2);
    expect(notJson.err()).toMatch(/^ROCKETMQ_LAMBDA_CONFIG: (line \d+, column \d+: )?invalid JSON: /);
  });

  it('--config wins over ROCKETMQ_LAMBDA_CONFIG', async () => {
    const t = fakeCliIo({ ROCKETMQ_LAMBDA_CONFIG: '{' });
    expect(await main(['run', '--config', '/nonexistent/poller.yaml'], t)).toBe(2);
    expect(t.err()).toBe(
      '/nonexistent/poller.yaml: (config): cannot read /nonexistent/poller.yaml: no such file\n',
    );
  });

  it('environment variables reach the config (NAMESRV_ADDR is validated like the file)', async () => {
    const file = `${FIXTURES}bad-typos.yaml`;
    const t = fakeCliIo({ NAMESRV_ADDR: 'nohost' });
    expect(await main(['run', '--config', file], t)).toBe(2);
    expect(t.err()).toContain(`${file}: nameServer: "nohost" is not host:port\n`);
  });
});

describe('signalExitCode', () => {
  it('is 128 + the signal number', () => {
    expect(signalExitCode('SIGINT')).toBe(130);
    expect(signalExitCode('SIGTERM')).toBe(143);
  });
});
