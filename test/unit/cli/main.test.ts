import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo, StopSignal } from '../../../src/cli/cli-io.js';
import { signalExitCode } from '../../../src/cli/cli-io.js';
import { main, USAGE } from '../../../src/cli/main.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/config/', import.meta.url));

function fakeIo(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const handlers: ((signal: StopSignal) => void)[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    onStopSignal(handler) {
      handlers.push(handler);
      return () => handlers.splice(handlers.indexOf(handler), 1);
    },
    exitNow(code) {
      throw new Error(`exitNow(${code}) in a test`);
    },
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join(''), handlers };
}

describe('rocketmq-lambda', () => {
  it('--help and help print the usage on stdout', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const t = fakeIo();
      expect(await main(argv, t.io)).toBe(0);
      expect(t.stdout()).toBe(USAGE);
      expect(t.stderr()).toBe('');
    }
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const argv of [['--version'], ['-v']]) {
      const t = fakeIo();
      expect(await main(argv, t.io)).toBe(0);
      expect(t.stdout()).toBe(`${version}\n`);
    }
  });

  it('no command, an unknown command or an unknown option: usage on stderr, exit 2', async () => {
    const none = fakeIo();
    expect(await main([], none.io)).toBe(2);
    expect(none.stderr()).toBe(USAGE);

    const unknown = fakeIo();
    expect(await main(['serve'], unknown.io)).toBe(2);
    expect(unknown.stderr()).toBe(`rocketmq-lambda: unknown command serve\n\n${USAGE}`);

    const flag = fakeIo();
    expect(await main(['--verbose'], flag.io)).toBe(2);
    expect(flag.stderr().split('\n')[0]).toBe('rocketmq-lambda: unknown option --verbose');
  });
});

describe('rocketmq-lambda run', () => {
  it('--help prints the usage, the options, examples, exit codes and environment', async () => {
    const t = fakeIo();
    expect(await main(['run', '--help'], t.io)).toBe(0);
    const help = t.stdout();
    expect(help.split('\n')[0]).toBe('Usage: rocketmq-lambda run [options]');
    for (const section of ['Options:', 'Examples:', 'Exit codes:', 'Environment:']) {
      expect(help).toContain(`\n${section}\n`);
    }
    expect(help).toContain('-c, --config <file>');
    expect(help).toContain('$ rocketmq-lambda run --config poller.yaml');
    expect(help).toMatch(/\n {2}2 {3}bad arguments or an invalid config/);
    expect(t.stderr()).toBe('');
  });

  it('every command answers --help with examples and exit codes, without starting anything', async () => {
    const commands = USAGE.split('Commands:\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const line of commands) {
      const name = line.trim().split(/\s+/)[0] ?? '';
      const t = fakeIo();
      expect(await main([name, '--help'], t.io), name).toBe(0);
      expect(t.stdout().split('\n')[0]).toBe(`Usage: rocketmq-lambda ${name} [options]`);
      expect(t.stdout()).toContain('\nExamples:\n  $ rocketmq-lambda ');
      expect(t.stdout()).toContain('\nExit codes:\n');
    }
  });

  it('wants --config', async () => {
    const t = fakeIo();
    expect(await main(['run'], t.io)).toBe(2);
    expect(t.stderr()).toBe(
      'rocketmq-lambda run: --config <file> is required (or the config as JSON in ROCKETMQ_LAMBDA_CONFIG)\n' +
        '(rocketmq-lambda run --help shows the options)\n',
    );
    const blank = fakeIo({ ROCKETMQ_LAMBDA_CONFIG: '  ' });
    expect(await main(['run'], blank.io)).toBe(2);
    expect(blank.stderr()).toContain('--config <file> is required');
    const empty = fakeIo();
    expect(await main(['run', '--config'], empty.io)).toBe(2);
    expect(empty.stderr().split('\n')[0]).toMatch(
      /^rocketmq-lambda run: option '-c, --config <file>' argument missing/,
    );
  });

  it('rejects unknown options and stray arguments with the usage', async () => {
    const t = fakeIo();
    expect(await main(['run', '--config', 'x.yaml', '--dry-run'], t.io)).toBe(2);
    expect(t.stderr()).toBe(
      "rocketmq-lambda run: unknown option '--dry-run'\n(rocketmq-lambda run --help shows the options)\n",
    );
    const stray = fakeIo();
    expect(await main(['run', 'x.yaml'], stray.io)).toBe(2);
    expect(stray.stderr()).toContain(
      'rocketmq-lambda run: too many arguments. Expected 0 arguments but got 1.',
    );
    expect(stray.stderr()).toContain('(rocketmq-lambda run --help shows the options)');
  });

  it('a bad config: one stderr line per problem, prefixed with the file, exit 2, no signal handler left', async () => {
    const file = `${FIXTURES}bad-ranges.yaml`;
    const t = fakeIo();
    expect(await main(['run', '-c', file], t.io)).toBe(2);
    const lines = t.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(`${file}: mappings[0].batchSize: must be ≤ 10000, got 10001`);
    for (const line of lines) expect(line.startsWith(`${file}: mappings[`)).toBe(true);
    expect(t.stdout()).toBe('');
    expect(t.handlers).toHaveLength(0);
  });

  it('a missing config file: one line, exit 2', async () => {
    const t = fakeIo();
    expect(await main(['run', '--config', '/nonexistent/poller.yaml'], t.io)).toBe(2);
    expect(t.stderr()).toBe(
      '/nonexistent/poller.yaml: (config): cannot read /nonexistent/poller.yaml: no such file\n',
    );
  });

  it('without --config, reads the config as JSON from ROCKETMQ_LAMBDA_CONFIG; problems name the variable', async () => {
    const config = {
      nameServer: 'nohost',
      offsets: { store: 'memory' },
      mappings: [{ topic: 'T', consumerGroup: 'G', function: 'orders', batchSize: 0 }],
    };
    const t = fakeIo({ ROCKETMQ_LAMBDA_CONFIG: JSON.stringify(config) });
    expect(await main(['run'], t.io)).toBe(2);
    expect(t.stderr()).toBe(
      [
        'ROCKETMQ_LAMBDA_CONFIG: nameServer: "nohost" is not host:port',
        'ROCKETMQ_LAMBDA_CONFIG: mappings[0].batchSize: must be ≥ 1, got 0',
        '',
      ].join('\n'),
    );
    const notJson = fakeIo({ ROCKETMQ_LAMBDA_CONFIG: 'nameServer: a:1' });
    expect(await main(['run'], notJson.io)).toBe(2);
    expect(notJson.stderr()).toMatch(/^ROCKETMQ_LAMBDA_CONFIG: (line \d+, column \d+: )?invalid JSON: /);
  });

  it('--config wins over ROCKETMQ_LAMBDA_CONFIG', async () => {
    const t = fakeIo({ ROCKETMQ_LAMBDA_CONFIG: '{' });
    expect(await main(['run', '--config', '/nonexistent/poller.yaml'], t.io)).toBe(2);
    expect(t.stderr()).toBe(
      '/nonexistent/poller.yaml: (config): cannot read /nonexistent/poller.yaml: no such file\n',
    );
  });

  it('environment variables reach the config (NAMESRV_ADDR is validated like the file)', async () => {
    const file = `${FIXTURES}bad-typos.yaml`;
    const t = fakeIo({ NAMESRV_ADDR: 'nohost' });
    expect(await main(['run', '--config', file], t.io)).toBe(2);
    expect(t.stderr()).toContain(`${file}: nameServer: "nohost" is not host:port\n`);
  });
});

describe('signalExitCode', () => {
  it('is 128 + the signal number', () => {
    expect(signalExitCode('SIGINT')).toBe(130);
    expect(signalExitCode('SIGTERM')).toBe(143);
  });
});
