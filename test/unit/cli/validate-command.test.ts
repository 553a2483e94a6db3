import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type ValidationReport, validateCommand } from '../../../src/cli/validate-command.js';
import { isServiceFile } from '../../../src/serverless-service/service-file.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

function validate(args: string[], env: Record<string, string | undefined> = {}) {
  return runCaptured((io) => validateCommand(args, io), env);
}

describe('validate: poller configs', () => {
  it('prints ok with the number of mappings for a valid config (exit 0)', async () => {
    const result = await validate(['--config', `${FIXTURES}config/minimal.yaml`]);
    expect(result).toEqual({ code: 0, out: 'ok: 1 mapping\n', err: '' });
  });

  it("prints run's problems, one line each naming the file, and exits 2", async () => {
    const file = `${FIXTURES}config/bad-typos.yaml`;
    const result = await validate(['--config', file]);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    const lines = result.err.trim().split('\n');
    expect(lines).toContain(`${file}: offsets.tabel: unknown key (did you mean table?)`);
    expect(lines).toContain(`${file}: mappings[0].consumerGroup: required`);
    expect(lines).toHaveLength(8);
  });

  it('checks the config of ROCKETMQ_LAMBDA_CONFIG when no file is given and there is no serverless.yml', async () => {
    const config = {
      nameServer: '127.0.0.1:9876',
      offsets: { store: 'memory' },
      mappings: [
        { topic: 'T', consumerGroup: 'g', function: 'arn:aws:lambda:us-east-1:123456789012:function:f' },
      ],
    };
    const cwd = process.cwd();
    process.chdir(FIXTURES);
    try {
      expect(await validate([], { ROCKETMQ_LAMBDA_CONFIG: JSON.stringify(config) })).toEqual({
        code: 0,
        out: 'ok: 1 mapping\n',
        err: '',
      });
      const nothing = await validate([], {});
      expect(nothing.code).toBe(2);
      expect(nothing.err).toContain('nothing to validate');
    } finally {
      process.chdir(cwd);
    }
  });

  it('prints the report as JSON with --json', async () => {
    const result = await validate(['--config', `${FIXTURES}config/bad-typos.yaml`, '--json']);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.out) as ValidationReport;
    expect(report).toMatchObject({ ok: false, kind: 'poller-config', mappings: 0, connectProblems: [] });
    expect(report.problems).toContain('nameSever: unknown key (did you mean nameServer?)');
  });
});

describe("validate: run's checks at start (TLS key material, local: handlers)", () => {
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'validate-start-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  /** A poller config file in `dir` with `mappings` (topic and group filled in) and `extra` keys. */
  async function configFile(dir: string, mappings: Array<{ name: string; function: string }>, extra = {}) {
    const file = path.join(dir, 'poller.json');
    const config = {
      nameServer: '127.0.0.1:9876',
      offsets: { store: 'memory' },
      mappings: mappings.map((m, i) => ({ ...m, topic: `T${i}`, consumerGroup: `g${i}` })),
      ...extra,
    };
    await writeFile(file, JSON.stringify(config));
    return file;
  }

  it('loads every local: handler: one that does not load or lacks its export is a problem (exit 2)', async () => {
    const dir = await tempDir();
    const handlers = `${FIXTURES}handlers/`;
    await writeFile(path.join(dir, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    const file = await configFile(dir, [
      { name: 'fine', function: `local:${handlers}handlers.ts#success` },
      { name: 'passwd', function: 'local:./passwd#x' },
      { name: 'broken', function: `local:${handlers}broken.ts` },
      { name: 'typo', function: `local:${handlers}counted.ts#handlr` },
    ]);

    const result = await validate(['--config', file]);

    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    const lines = result.err.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}: mappings\\[1\\]\\.function: mapping passwd: cannot load handler module ${dir}/passwd \\(export x\\): \\S`,
        ),
      ),
      `${file}: mappings[2].function: mapping broken: cannot load handler module ${handlers}broken.ts (export handler): Error: broken at load`,
      `${file}: mappings[3].function: mapping typo: handler module ${handlers}counted.ts has no function export "handlr" (its exports: handler)`,
    ]);
    expect(result.err).not.toContain('root:x');
  });

  it('decrypts the TLS key: a wrong passphrase is a problem naming the settings, never the passphrase (exit 2)', async () => {
    const certs = await tlsTestCerts();
    const dir = await tempDir();
    const passphrase = 'Wrong-Passphrase-c0ffee';
    await writeFile(path.join(dir, 'client.key'), encryptedKeyPem(certs.client, 'Right-Passphrase-7e57'));
    const file = await configFile(
      dir,
      [{ name: 'fine', function: `local:${FIXTURES}handlers/handlers.ts` }],
      {
        tls: { certFile: certs.client.certPath, keyFile: 'client.key', keyPassphrase: passphrase },
      },
    );

    const result = await validate(['--config', file]);
    const json = await validate(['--config', file, '--json']);

    expect(result).toEqual({
      code: 2,
      out: '',
      err: `${file}: tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE): does not decrypt tls.keyFile (wrong passphrase)\n`,
    });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out) as ValidationReport).toMatchObject({ ok: false, mappings: 0 });
    expect(json.out).not.toContain(passphrase);
  });
});

describe('validate: serverless.yml', () => {
  it('passes a valid service with the number of mappings', async () => {
    expect(await validate(['--config', `${FIXTURES}serverless/minimal/serverless.yml`])).toEqual({
      code: 0,
      out: 'ok: 1 mapping\n',
      err: '',
    });
  });

  it("reports the plugin's unknown keys with a did-you-mean and its cross-key rules", async () => {
    const typo = await validate(['--config', `${FIXTURES}serverless/event-typo/serverless.yml`]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain(
      'functions.orders.events[0].rocketmq.batchsize: unknown key (did you mean batchSize?)',
    );
    const rules = await validate(['--config', `${FIXTURES}serverless/bad-options/serverless.yml`, '--json']);
    expect(rules.code).toBe(2);
    const report = JSON.parse(rules.out) as ValidationReport;
    expect(report.kind).toBe('serverless');
    expect(report.problems).toContain(
      'functions.orders.events[0].rocketmq.startingPositionTimestamp: required when startingPosition is AT_TIMESTAMP',
    );
    expect(report.problems.some((p) => p.startsWith('custom.rocketmq.memory:'))).toBe(true);
  });

  it('warns about placeholders in a dev stage and refuses them in another', async () => {
    const file = `${FIXTURES}serverless/placeholders/serverless.yml`;
    const dev = await validate(['--config', file]);
    expect(dev.code).toBe(0);
    expect(dev.out).toBe('ok: 1 mapping\n');
    expect(dev.err).toContain('warning: custom.rocketmq.vpc.securityGroupIds[0]');
    const prod = await validate(['--config', file, '--stage', 'prod']);
    expect(prod.code).toBe(2);
    expect(prod.err).toContain('custom.rocketmq.vpc.securityGroupIds[0]');
    expect(prod.err).not.toContain('warning: custom.rocketmq.vpc.securityGroupIds[0]');
  });

  it("reports dev's problems: a service without rocketmq events", async () => {
    const result = await validate(['--config', `${FIXTURES}serverless/no-events/serverless.yml`]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('functions: no function has a rocketmq event');
  });

  it('refuses an operand and a bad --param', async () => {
    expect((await validate(['a.yaml'])).code).toBe(2);
    expect((await validate(['--config', 'a.yaml', '--param', 'x'])).err).toContain(
      '--param must be key=value',
    );
  });

  it('tells a service file from a poller config by its name', () => {
    expect(isServiceFile('/app/serverless.yml')).toBe(true);
    expect(isServiceFile('serverless.prod.yaml')).toBe(true);
    expect(isServiceFile('serverless.ts')).toBe(true);
    expect(isServiceFile('poller.yaml')).toBe(false);
    expect(isServiceFile('my-serverless.yml')).toBe(false);
  });
});
