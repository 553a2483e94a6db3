/**
 * The one dispatch of the CLI (command-table.ts): a group picks its subcommand, loads only the leaf that
 * runs, and a command ends early by throwing a CliExit, turned into its exit code (and its stderr lines)
 * in one place.
 */
import { describe, expect, it } from 'vitest';
import { CliExit, cliCommand } from '../../../src/cli/cli-exit.js';
import { COMMANDS, type CommandGroup, dispatch } from '../../../src/cli/command-table.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

function group(loaded: string[]): CommandGroup<{ readonly seen: string[] }> {
  return {
    usage: 'Usage: rocketmq-lambda things <show|fail>\n',
    subcommands: {
      show: {
        load: async () => {
          loaded.push('show');
          return async (args, io, deps) => {
            deps?.seen.push(...args);
            io.stdout.write('shown\n');
            return 0;
          };
        },
      },
      fail: {
        load: async () => {
          loaded.push('fail');
          return cliCommand(async () => {
            throw new CliExit(3, 'rocketmq-lambda things fail: refused: no\n');
          });
        },
      },
      crash: {
        load: async () => async () => Promise.reject(new Error('a bug')),
      },
    },
  };
}

describe('dispatch', () => {
  it('runs the subcommand named first, with the rest of the words and the deps, loading only it', async () => {
    const loaded: string[] = [];
    const io = fakeCliIo();
    const seen: string[] = [];
    expect(await dispatch(['things'], group(loaded), ['show', '--json'], io, { seen })).toBe(0);
    expect(loaded).toEqual(['show']);
    expect(seen).toEqual(['--json']);
    expect(io.out()).toBe('shown\n');
  });

  it('turns a CliExit into its code and writes its lines on stderr', async () => {
    const io = fakeCliIo();
    expect(await dispatch(['things'], group([]), ['fail'], io)).toBe(3);
    expect(io.err()).toBe('rocketmq-lambda things fail: refused: no\n');
    // Thrown through a group without cliCommand around it, the dispatcher catches it the same way.
    const bare: CommandGroup = {
      usage: '',
      subcommands: { x: { load: async () => async () => Promise.reject(new CliExit(2)) } },
    };
    expect(await dispatch(['bare'], bare, ['x'], fakeCliIo())).toBe(2);
  });

  it('lets any other error through (main reports it, exit 1)', async () => {
    await expect(dispatch(['things'], group([]), ['crash'], fakeCliIo())).rejects.toThrow('a bug');
  });

  it('prints the usage for help, and with the problem for a missing or unknown subcommand', async () => {
    const help = fakeCliIo();
    expect(await dispatch(['things'], group([]), ['--help'], help)).toBe(0);
    expect(help.out()).toBe('Usage: rocketmq-lambda things <show|fail>\n');
    const missing = fakeCliIo();
    expect(await dispatch(['things'], group([]), [], missing)).toBe(2);
    expect(missing.err()).toBe(
      'rocketmq-lambda things: missing subcommand (show or fail or crash)\n\nUsage: rocketmq-lambda things <show|fail>\n',
    );
    const unknown = fakeCliIo();
    expect(await dispatch(['things'], group([]), ['toString'], unknown)).toBe(2);
    expect(unknown.err().split('\n')[0]).toBe('rocketmq-lambda things: unknown subcommand toString');
  });

  it('holds every command and subcommand in one table', () => {
    expect(Object.keys(COMMANDS)).toEqual([
      'run',
      'dev',
      'health',
      'send',
      'validate',
      'template',
      'dlq',
      'status',
      'offsets',
    ]);
    const subcommands = (name: string) => {
      const node = COMMANDS[name];
      return node !== undefined && 'subcommands' in node ? Object.keys(node.subcommands) : [];
    };
    expect(subcommands('dlq')).toEqual(['show', 'redrive']);
    expect(subcommands('offsets')).toEqual(['show', 'reset']);
  });
});
