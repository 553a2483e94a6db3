/**
 * One consistent command line: walks the help of every command and subcommand of the command table
 * (command-table.ts) and checks the rules every command keeps, so that a new command or option cannot
 * break them unnoticed:
 *
 * - every help has its usage line, examples that start with the command, and an exit-code section whose
 *   codes are all in the one table (exit-codes.ts), 0, 1 and 2 always;
 * - every command that prints a result takes --json, every command that prints a document (a template)
 *   takes --format and --out (the lists below say which do; a new command must be put on one of the
 *   three lists);
 * - the name server is `--name-server` wherever it is taken, and no command gives `-n` a meaning
 *   (mqadmin users read `-n` as the name server); `--config`, `--mapping`, `--yes` have the same short
 *   forms everywhere;
 * - a command that asks for confirmation ends with exit 2 when nobody can confirm and --yes is missing,
 *   before it connects anywhere.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, type CommandNode } from '../../../src/cli/command-table.js';
import { EXIT_CODE_TABLE, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../../src/cli/exit-codes.js';
import { main, USAGE } from '../../../src/cli/main.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

/** Commands that print a result: each must take --json (one JSON document on stdout). */
const RESULT_COMMANDS = [
  'health',
  'send',
  'validate',
  'status',
  'offsets show',
  'offsets reset',
  'dlq show',
  'dlq redrive',
];

/** Commands that print a document (a template): each takes --format and --out. */
const DOCUMENT_COMMANDS = ['template'];

/** Commands that run until stopped and print no result (logs, a live view). */
const LONG_RUNNING_COMMANDS = ['run', 'dev'];

/** Every command that runs (leaves of the table), as typed after `rocketmq-lambda`. */
function leaves(tree: Readonly<Record<string, CommandNode>>, prefix: readonly string[] = []): string[][] {
  return Object.entries(tree).flatMap(([name, node]) =>
    'load' in node ? [[...prefix, name]] : leaves(node.subcommands, [...prefix, name]),
  );
}

/** Every group of the table. */
function groups(tree: Readonly<Record<string, CommandNode>>): string[] {
  return Object.entries(tree).flatMap(([name, node]) => ('load' in node ? [] : [name]));
}

async function helpOf(argv: readonly string[]): Promise<string> {
  const io = fakeCliIo();
  const code = await main([...argv, '--help'], io);
  expect(code, `${argv.join(' ')} --help`).toBe(EXIT_OK);
  expect(io.err(), `${argv.join(' ')} --help`).toBe('');
  return io.out();
}

/** The lines of `section` (up to the next blank line followed by a heading, or the end). */
function section(help: string, heading: string): string[] {
  const start = help.indexOf(`\n${heading}\n`);
  if (start < 0) return [];
  const rest = help.slice(start + heading.length + 2);
  const end = rest.search(/\n\n[A-Z][A-Za-z ()]*:\n/);
  return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((line) => line.trim() !== '');
}

/** The exit codes a help lists. */
function exitCodes(help: string, heading = 'Exit codes:'): number[] {
  return section(help, heading).flatMap((line) => {
    const match = /^ {2}(\d+)\s/.exec(line);
    return match === null ? [] : [Number(match[1])];
  });
}

/** The option lines of a help: its flags, e.g. ['-c, --config <file>', '--json']. */
function optionFlags(help: string): string[] {
  return section(help, 'Options:').flatMap((line) => {
    const match = /^ {2}(-[^ ].*?)(?: {2,}|$)/.exec(line);
    return match === null ? [] : [match[1] as string];
  });
}

const ALL = leaves(COMMANDS);
const helps = new Map<string, string>();

beforeAll(async () => {
  for (const argv of ALL) helps.set(argv.join(' '), await helpOf(argv));
  for (const name of groups(COMMANDS)) helps.set(name, await helpOf([name]));
  // Loads every command module once (dev's included).
}, 120_000);

describe('every command', () => {
  it('is on exactly one list: prints a result (--json), prints a document, or runs until stopped', () => {
    const names = ALL.map((argv) => argv.join(' '));
    const listed = [...RESULT_COMMANDS, ...DOCUMENT_COMMANDS, ...LONG_RUNNING_COMMANDS];
    const unlisted = names.filter((name) => !listed.includes(name));
    expect(
      unlisted,
      'put new commands on RESULT_COMMANDS, DOCUMENT_COMMANDS or LONG_RUNNING_COMMANDS',
    ).toEqual([]);
    expect([...listed].sort()).toEqual([...names].sort());
  });

  it('that prints a document takes --format and --out', () => {
    for (const name of DOCUMENT_COMMANDS) {
      const flags = optionFlags(helps.get(name) ?? '');
      expect(flags, name).toContain('--format <format>');
      expect(flags, name).toContain('-o, --out <file>');
    }
  });

  it('has its usage line, examples of itself and an exit-code section', () => {
    for (const argv of ALL) {
      const name = argv.join(' ');
      const help = helps.get(name) as string;
      expect(help.split('\n')[0], name).toBe(`Usage: rocketmq-lambda ${name} [options]`);
      const examples = section(help, 'Examples:');
      expect(examples.length, `${name}: examples`).toBeGreaterThan(0);
      for (const example of examples) {
        // A command line (after an environment assignment or a pipe, at times) that runs this command.
        expect(example, `${name}: example`).toMatch(new RegExp(`^ {2}\\$ .*rocketmq-lambda ${name}(?: |$)`));
      }
    }
  });

  it('lists only exit codes of the one table, and 0, 1 and 2 always', () => {
    const known = Object.keys(EXIT_CODE_TABLE).map(Number);
    for (const [name, help] of helps) {
      const codes = exitCodes(help);
      expect(codes, name).toEqual(expect.arrayContaining([EXIT_OK, EXIT_FAILURE, EXIT_USAGE]));
      expect(
        codes.filter((code) => !known.includes(code)),
        `${name}: codes not in exit-codes.ts`,
      ).toEqual([]);
    }
    // The top-level help prints the table itself.
    expect(exitCodes(USAGE, 'Exit codes (every command):')).toEqual(known);
  });

  it('that prints a result takes --json', () => {
    const missing = RESULT_COMMANDS.filter((name) => !optionFlags(helps.get(name) ?? '').includes('--json'));
    expect(missing, 'commands that print a result without --json').toEqual([]);
  });

  it('spells the name server --name-server and gives -n no meaning', () => {
    for (const [name, help] of helps) {
      const flags = optionFlags(help);
      expect(
        flags.filter((flag) => /^-n\b/.test(flag)),
        `${name}: -n is the name server to mqadmin users`,
      ).toEqual([]);
      for (const flag of flags.filter((f) => /name-?s(erve)?r|namesrv/i.test(f))) {
        expect(flag, name).toBe('--name-server <addr>');
      }
    }
  });

  it('gives the shared options the same short forms', () => {
    const expected: Record<string, string> = {
      '--config': '-c, --config <file>',
      '--mapping': '-m, --mapping <name>',
      '--yes': '-y, --yes',
      '--group': '-g, --group <consumerGroup>',
      '--topic': '-t, --topic <topic>',
      '--json': '--json',
    };
    for (const [name, help] of helps) {
      for (const flag of optionFlags(help)) {
        const long = /--[a-z-]+/.exec(flag)?.[0] ?? '';
        if (long in expected) expect(flag, name).toBe(expected[long]);
      }
    }
  });

  it('the operator commands take the ad hoc target options', () => {
    for (const name of ['status', 'offsets show', 'offsets reset', 'dlq show', 'dlq redrive']) {
      const flags = optionFlags(helps.get(name) ?? '');
      for (const flag of ['--name-server <addr>', '-g, --group <consumerGroup>', '-t, --topic <topic>']) {
        expect(flags, name).toContain(flag);
      }
    }
  });
});

describe('a missing --yes when nobody can confirm', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rl-consistency-'));
    config = path.join(dir, 'poller.json');
    // A name server nobody listens on: a command that connected before checking --yes fails with 1.
    await writeFile(
      config,
      JSON.stringify({
        nameServer: '127.0.0.1:1',
        offsets: { store: 'file', path: path.join(dir, 'offsets') },
        mappings: [{ name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn', function: 'orders-fn' }],
      }),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is a usage problem (exit 2) in every command that asks, found before connecting', async () => {
    const withYes = ALL.filter((argv) => optionFlags(helps.get(argv.join(' ')) ?? '').includes('-y, --yes'));
    expect(withYes.map((argv) => argv.join(' ')).sort()).toEqual(['dlq redrive', 'offsets reset']);
    expect(process.stdin.isTTY, 'the test runs without a terminal on stdin').not.toBe(true);
    const extra: Record<string, string[]> = { 'offsets reset': ['--to', 'earliest'] };
    for (const argv of withYes) {
      const name = argv.join(' ');
      const io = fakeCliIo();
      const code = await main([...argv, '--config', config, ...(extra[name] ?? [])], io);
      expect(code, `${name}: ${io.err()}`).toBe(EXIT_USAGE);
      expect(io.err(), name).toContain('--yes');
    }
  }, 60_000);
});
