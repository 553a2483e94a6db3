/**
 * `validate` of a serverless.yml whose Serverless Framework cannot print the service (prints no JSON,
 * prints broken JSON, dies): one problem line and exit 2, like any problem of the input, never a stack
 * trace, and none of the Framework's output beyond what is already quoted, bounded.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { validateCommand } from '../../../src/cli/validate-command.js';
import { runCaptured } from '../../support/fake-cli-io.js';

/** A secret the fake Framework prints: no part of it may be shown. */
const SECRET = 'Zq7xKp9wVt3mRb8y';

/**
 * A service whose serverless.yml needs the Framework (it holds a variable), with a fake Framework in
 * its node_modules that runs `script`. Returns the serverless.yml.
 */
function serviceWithFramework(script: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'validate-print-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const packageDir = path.join(dir, 'node_modules', 'serverless');
  mkdirSync(path.join(packageDir, 'bin'), { recursive: true });
  writeFileSync(
    path.join(packageDir, 'package.json'),
    JSON.stringify({ name: 'serverless', version: '3.0.0', bin: { serverless: 'bin/cli.js' } }),
  );
  writeFileSync(path.join(packageDir, 'bin', 'cli.js'), script);
  const file = path.join(dir, 'serverless.yml');
  // A param: variable: one dev leaves to the Framework (it resolves opt:, env:, sls:, self: itself).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Serverless variable, as written in serverless.yml.
  writeFileSync(file, "service: s\nprovider:\n  name: aws\n  stage: ${param:stage, 'dev'}\n");
  return file;
}

async function validateService(script: string) {
  const file = serviceWithFramework(script);
  return { file, result: await runCaptured((io) => validateCommand(['--config', file], io)) };
}

describe('validate: a Framework that cannot print the service', () => {
  it('prints no JSON: one line, exit 2', async () => {
    const { file, result } = await validateService(
      `process.stdout.write('garbage ${SECRET} '.repeat(1000)); process.exit(0);`,
    );
    expect(result).toEqual({
      code: 2,
      out: '',
      err: `${file}: (serverless.yml): cannot resolve the service: serverless print --format json printed no JSON service (${`garbage ${SECRET} `.length * 1000} characters of output, none of them a JSON object)\n`,
    });
  });

  it('prints broken JSON: one line naming the place, not the text', async () => {
    const { file, result } = await validateService(
      `process.stdout.write('{\\n  "secret": ${SECRET}\\n}\\n'); process.exit(0);`,
    );
    expect(result.code).toBe(2);
    expect(result.err).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\(serverless.yml\\): cannot resolve the service: serverless print --format json printed no valid JSON service \\(a letter where a value should be .* at offset \\d+\\)\\n$`,
      ),
    );
    expect(result.err).not.toContain(SECRET.slice(0, 4));
  });

  it('dies by a signal after printing the service: no part of what it printed is shown', async () => {
    const { result } = await validateService(
      `process.stdout.write('{\\n  "custom": {"acl": {"secretKey": "${SECRET}"}}\\n'); process.stderr.write('out of memory\\n'); process.kill(process.pid, 'SIGKILL');`,
    );
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/cannot run .*cli\.js: killed by SIGKILL: \| out of memory\n$/);
    expect(result.err).not.toContain(SECRET.slice(0, 4));
  });

  it('dies by a signal after a flood on stderr: one bounded line, no stack', async () => {
    const { file, result } = await validateService(
      `process.stderr.write('${'E'.repeat(1000)}\\n'.repeat(200)); process.kill(process.pid, 'SIGKILL');`,
    );
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    const lines = result.err.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^.*: \(serverless.yml\): cannot resolve the service: cannot run .*cli\.js: /);
    expect(lines[0]?.startsWith(`${file}: `)).toBe(true);
    expect(lines[0]?.length).toBeLessThan(9000);
    expect(result.err).not.toMatch(/\n\s+at /);
  });
});
