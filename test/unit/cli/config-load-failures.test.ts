/**
 * `rocketmq-lambda run` and `validate` as processes, given configs that cannot be loaded: each ends with
 * exit 2 and one line per problem on stderr, no stack trace, nothing of a secret in the config on
 * stdout or stderr, and no output of the size of the input.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_JSON, BROKEN_YAML, SECRETS, shownPart } from '../config/broken-configs.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
/** tsx's loader by URL: the CLI runs in a temporary directory, where `--import tsx` would not resolve. */
const TSX = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const SECRET = SECRETS[0];

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in `cwd` with only `env` of ours (no config variables of the test's environment). */
function runCli(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ROCKETMQ_|NAMESRV_ADDR$|VITEST)/.test(name)),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX, MAIN, ...args],
      { cwd, env: { ...base, ...env }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const broken = (documents: typeof BROKEN_JSON, name: string): string => {
  const document = documents.find((candidate) => candidate.name === name);
  if (document === undefined) throw new Error(`no broken document ${name}`);
  return document.text(SECRET);
};

/** Exit 2, `lines` lines on stderr each naming the source, nothing on stdout, no stack, no secret. */
function expectRefused(run: CliRun, source: string, lines = 1): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  const stderr = run.stderr.trimEnd().split('\n');
  expect(stderr, run.stderr).toHaveLength(lines);
  for (const line of stderr) expect(line.startsWith(`${source}: `), line).toBe(true);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(shownPart(`${run.stdout}\n${run.stderr}`, SECRET)).toBeUndefined();
}

// Each case starts a Node process (about half a second alone); on two busy cores they queue.
describe.concurrent('loader failures of run and validate, as processes', { timeout: 60_000 }, () => {
  let dir: string;
  const file = (name: string): string => path.join(dir, name);
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rl-cli-config-'));
    await writeFile(file('unquoted.json'), broken(BROKEN_JSON, 'unquoted value'));
    await writeFile(file('unterminated.json'), broken(BROKEN_JSON, 'unterminated string, line break'));
    await writeFile(file('header.yaml'), broken(BROKEN_YAML, 'block scalar header'));
    await writeFile(file('escape.yaml'), broken(BROKEN_YAML, 'bad escape'));
    await writeFile(file('bomb.yaml'), broken(BROKEN_YAML, 'alias bomb'));
    await writeFile(file('deep.yaml'), broken(BROKEN_YAML, 'nested too deeply (flow)'));
    await mkdir(file('service'));
    await writeFile(file('service/serverless.yml'), broken(BROKEN_YAML, 'block scalar header'));
    await mkdir(file('bomb-service'));
    await writeFile(file('bomb-service/serverless.yml'), broken(BROKEN_YAML, 'alias bomb'));
    await writeFile(file('huge.yaml'), '');
    await truncate(file('huge.yaml'), 50 * 1024 * 1024);
    await mkdir(file('conf.d'));
    await writeFile(file('latin1.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
    await writeFile(file('list.yaml'), '- a\n- b\n');
    await writeFile(file('empty.yaml'), '\n');
    await writeFile(
      file('long-name-server.yaml'),
      `nameServer: ${'x'.repeat(900_000)}\noffsets: { store: memory }\nmappings: [{ topic: T, consumerGroup: G, function: f }]\n`,
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['run', 'unquoted.json', 1],
    ['validate', 'unquoted.json', 1],
    ['validate', 'unterminated.json', 1],
    ['run', 'header.yaml', 3],
    ['validate', 'header.yaml', 3],
    ['validate', 'escape.yaml', 1],
    ['run', 'bomb.yaml', 1],
    ['validate', 'bomb.yaml', 1],
    ['run', 'deep.yaml', 1],
    ['run', 'huge.yaml', 1],
    ['validate', 'huge.yaml', 1],
    ['run', 'conf.d', 1],
    ['validate', 'latin1.yaml', 1],
    ['validate', 'list.yaml', 1],
    ['run', 'empty.yaml', 1],
  ] as const)('%s --config %s: exit 2, %i line(s)', async (command, name, lines) => {
    expectRefused(await runCli([command, '--config', file(name)], dir), file(name), lines);
  });

  it.each(['run', 'validate'])(
    '%s with a broken ROCKETMQ_LAMBDA_CONFIG: exit 2, one line',
    async (command) => {
      const run = await runCli([command], dir, {
        ROCKETMQ_LAMBDA_CONFIG: broken(BROKEN_JSON, 'unquoted value'),
      });
      expectRefused(run, 'ROCKETMQ_LAMBDA_CONFIG');
    },
  );

  it('validate of a serverless.yml with a syntax error or an alias bomb: exit 2, a line per problem', async () => {
    for (const [service, lines] of [
      ['service', 3],
      ['bomb-service', 1],
    ] as const) {
      const config = file(`${service}/serverless.yml`);
      expectRefused(await runCli(['validate', '--config', config], dir), config, lines);
    }
  });

  it('validate --config /dev/zero stops reading at the cap', async () => {
    if (!existsSync('/dev/zero')) return;
    expectRefused(await runCli(['validate', '--config', '/dev/zero'], dir), '/dev/zero');
  });

  it('a 900 KB nameServer is echoed in 100 characters, from a file and from NAMESRV_ADDR', async () => {
    const run = await runCli(['validate', '--config', file('long-name-server.yaml')], dir);
    expect(run.code).toBe(2);
    expect(run.stderr.length).toBeLessThan(500);
    expect(run.stderr).toContain('(900000 characters) is not host:port');
    const config = JSON.stringify({ offsets: { store: 'memory' }, mappings: [] });
    // One environment variable holds at most 128 KiB on Linux.
    const fromEnv = await runCli(['run'], dir, {
      ROCKETMQ_LAMBDA_CONFIG: config,
      NAMESRV_ADDR: 'y'.repeat(100_000),
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('(100000 characters) is not host:port');
    expect(fromEnv.stderr.length).toBeLessThan(1000);
  });
});
