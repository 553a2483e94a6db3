/**
 * What the command table (command-table.ts) answers for a word it does not know: the command or
 * subcommand a typo most likely meant, `help <command> [<subcommand>]` with that command's own help, and
 * options typed before a group's subcommand answered with where they go. All usage problems: exit 2.
 */
import { describe, expect, it } from 'vitest';
import { main, USAGE } from '../../../src/cli/main.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeCliIo();
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('did you mean', () => {
  it('names the command a typo meant, then prints the usage', async () => {
    const { code, out, err } = await run(['stauts']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`rocketmq-lambda: unknown command stauts (did you mean status?)\n\n${USAGE}`);
  });

  it('names the subcommand a typo meant', async () => {
    const reset = await run(['offsets', 'rest']);
    expect(reset.code).toBe(2);
    expect(reset.err.split('\n')[0]).toBe(
      'rocketmq-lambda offsets: unknown subcommand rest (did you mean reset?)',
    );
    const redrive = await run(['dlq', 'redirve', '--mapping', 'orders']);
    expect(redrive.code).toBe(2);
    expect(redrive.err.split('\n')[0]).toBe(
      'rocketmq-lambda dlq: unknown subcommand redirve (did you mean redrive?)',
    );
    expect((await run(['dlq', 'SHOW'])).err.split('\n')[0]).toBe(
      'rocketmq-lambda dlq: unknown subcommand SHOW (did you mean show?)',
    );
  });

  it('suggests nothing for a word far from every command', async () => {
    const { code, err } = await run(['deploy']);
    expect(code).toBe(2);
    expect(err.split('\n')[0]).toBe('rocketmq-lambda: unknown command deploy');
  });

  it('lists the subcommands when one is missing', async () => {
    const { code, err } = await run(['offsets']);
    expect(code).toBe(2);
    expect(err.split('\n')[0]).toBe('rocketmq-lambda offsets: missing subcommand (show or reset)');
  });
});

describe('options before the subcommand', () => {
  it('says a subcommand comes first, with the command lines that take the options', async () => {
    const { code, err } = await run(['offsets', '--config', 'x']);
    expect(code).toBe(2);
    expect(err.split('\n')[0]).toBe(
      'rocketmq-lambda offsets: offsets needs a subcommand first: rocketmq-lambda offsets show --config x, or rocketmq-lambda offsets reset --config x',
    );
    expect(err).not.toContain('unknown subcommand');
  });
});

describe('help <command> [<subcommand>]', () => {
  it("prints the command's own help, as <command> --help does", async () => {
    for (const argv of [['status'], ['offsets', 'reset'], ['dlq', 'show'], ['offsets'], ['send']]) {
      const viaHelp = await run(['help', ...argv]);
      const viaFlag = await run([...argv, '--help']);
      expect(viaHelp.code, argv.join(' ')).toBe(0);
      expect(viaHelp.out, argv.join(' ')).toBe(viaFlag.out);
      expect(viaHelp.out.split('\n')[0], argv.join(' ')).toBe(
        `Usage: rocketmq-lambda ${argv.join(' ')} [options]`,
      );
      expect(viaHelp.err).toBe('');
    }
  }, 60_000);

  it('also works inside a group, and plain help still prints the top-level usage', async () => {
    const inGroup = await run(['offsets', 'help', 'show']);
    expect(inGroup.code).toBe(0);
    expect(inGroup.out.split('\n')[0]).toBe('Usage: rocketmq-lambda offsets show [options]');
    const plain = await run(['help']);
    expect(plain.code).toBe(0);
    expect(plain.out).toBe(USAGE);
  });

  it('an unknown command after help is a usage error with the did-you-mean', async () => {
    const { code, out, err } = await run(['help', 'stauts']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.split('\n')[0]).toBe('rocketmq-lambda: unknown command stauts (did you mean status?)');
  });
});
