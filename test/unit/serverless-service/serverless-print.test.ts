/**
 * Finding the service's Framework, running its `print`, and reading what it says; and loadServerlessService's
 * choice between the file as it is and the Framework. The Framework here is a fake CLI script in a temp
 * service's node_modules that echoes how it was run (the real osls is run by
 * test/integration/dev/dev-variables.test.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServerlessService } from '../../../src/serverless-service/load-serverless-service.js';
import {
  DEV_PLACEHOLDER_CREDENTIAL,
  findServerlessFramework,
  frameworkErrorText,
  parsePrintOutput,
  printResolvedService,
  ServerlessPrintError,
} from '../../../src/serverless-service/serverless-print.js';
import { problemsRejectedBy } from '../../support/problems-thrown-by.js';

/** A CLI that prints, as its "service", how it was run; FAKE_ERROR makes it fail as osls does. */
const FAKE_CLI = `
if (process.env.FAKE_HANG) setTimeout(() => {}, 60_000);
else if (process.env.FAKE_ERROR) {
  process.stderr.write('Environment: linux, node 20, osls 9.9.9 (local)\\nDocs:        github.com/oss-serverless/osls\\n\\n');
  process.stdout.write('Error:\\n' + process.env.FAKE_ERROR + '\\n');
  process.exitCode = 1;
} else {
  process.stdout.write(JSON.stringify({
    service: 'fake',
    argv: process.argv.slice(2),
    cwd: process.cwd(),
    env: { id: process.env.AWS_ACCESS_KEY_ID ?? null, nodePath: process.env.NODE_PATH ?? null,
      telemetry: process.env.SLS_TELEMETRY_DISABLED ?? null },
  }, null, 2) + '\\n');
}
`;

/** A temp service dir; `frameworks` are installed in its parent's node_modules (found by walking up). */
function serviceWith(frameworks: { dir: string; name: string; version: string }[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'dev-print-'));
  for (const framework of frameworks) {
    const packageDir = path.join(root, 'node_modules', framework.dir);
    mkdirSync(path.join(packageDir, 'bin'), { recursive: true });
    writeFileSync(
      path.join(packageDir, 'package.json'),
      JSON.stringify({ name: framework.name, version: framework.version, bin: { serverless: 'bin/cli.js' } }),
    );
    writeFileSync(path.join(packageDir, 'bin', 'cli.js'), FAKE_CLI);
  }
  const serviceDir = path.join(root, 'service');
  mkdirSync(serviceDir);
  return serviceDir;
}

const OSLS = { dir: 'serverless', name: 'osls', version: '9.9.9' };

describe('findServerlessFramework', () => {
  it('finds the Framework in a node_modules above the service, serverless before osls', () => {
    const serviceDir = serviceWith([OSLS, { dir: 'osls', name: 'osls', version: '1.0.0' }]);
    expect(findServerlessFramework(serviceDir)).toEqual({
      packageName: 'osls',
      version: '9.9.9',
      bin: path.join(path.dirname(serviceDir), 'node_modules', 'serverless', 'bin', 'cli.js'),
    });
    const oslsOnly = serviceWith([{ dir: 'osls', name: 'osls', version: '1.0.0' }]);
    expect(findServerlessFramework(oslsOnly)?.version).toBe('1.0.0');
    expect(findServerlessFramework(serviceWith([]))).toBeUndefined();
  });
});

describe('printResolvedService', () => {
  it("runs print in the service's directory with its flags, without dev's placeholder credentials", async () => {
    const serviceDir = serviceWith([OSLS]);
    const framework = findServerlessFramework(serviceDir);
    if (framework === undefined) throw new Error('no fake framework');
    const run = (env: Record<string, string>) =>
      printResolvedService(framework, {
        configFile: path.join(serviceDir, 'dev.yml'),
        stage: 'qa',
        region: 'eu-west-3',
        params: ['ns=10.0.0.1:9876', 'tag=a=b'],
        env,
        pluginPath: '/plugins',
      });
    const placeholder = await run({
      AWS_ACCESS_KEY_ID: DEV_PLACEHOLDER_CREDENTIAL,
      AWS_SECRET_ACCESS_KEY: DEV_PLACEHOLDER_CREDENTIAL,
      NODE_PATH: '/theirs',
    });
    expect(placeholder).toEqual({
      ok: true,
      service: {
        service: 'fake',
        argv: [
          'print',
          '--format',
          'json',
          '--config',
          'dev.yml',
          '--stage',
          'qa',
          '--region',
          'eu-west-3',
          '--param',
          'ns=10.0.0.1:9876',
          '--param',
          'tag=a=b',
        ],
        cwd: serviceDir,
        env: { id: null, nodePath: `/plugins${path.delimiter}/theirs`, telemetry: '1' },
      },
    });
    const real = await run({ AWS_ACCESS_KEY_ID: 'AKIAREAL', AWS_SECRET_ACCESS_KEY: 'secret' });
    expect(real.ok && (real.service as { env: { id: string } }).env.id).toBe('AKIAREAL');
  });

  it("returns the Framework's error message when it refuses, and throws when it does not finish", async () => {
    const serviceDir = serviceWith([OSLS]);
    const framework = findServerlessFramework(serviceDir);
    if (framework === undefined) throw new Error('no fake framework');
    const configFile = path.join(serviceDir, 'serverless.yml');
    expect(
      await printResolvedService(framework, {
        configFile,
        env: { FAKE_ERROR: 'Cannot resolve serverless.yml' },
      }),
    ).toEqual({ ok: false, message: 'Cannot resolve serverless.yml' });
    await expect(
      printResolvedService(framework, { configFile, env: { FAKE_HANG: '1' }, timeoutMs: 300 }),
    ).rejects.toThrow(ServerlessPrintError);
  });
});

describe('reading what the Framework prints', () => {
  it('takes the message after "Error:", else the last lines', () => {
    expect(
      frameworkErrorText(
        'Error:\nCannot resolve serverless.yml: Variables resolution errored with:\n  - x\n',
        'Environment: linux, node 20.20.2, osls 4.3.1 (local)\nDocs:        github.com/oss-serverless/osls\n',
      ),
    ).toBe('Cannot resolve serverless.yml: Variables resolution errored with:\n  - x');
    expect(frameworkErrorText('', '\u001b[31mError:\u001b[39m plugin "x" not found\n')).toBe(
      'plugin "x" not found',
    );
    expect(frameworkErrorText('', 'Segmentation fault\n')).toBe('Segmentation fault');
  });

  it('parses the JSON service, skipping lines before it, and refuses anything else', () => {
    const framework = { packageName: 'osls' };
    expect(
      parsePrintOutput('Running "serverless" from node_modules\n{\n  "service": "s"\n}\n', framework),
    ).toEqual({
      service: 's',
    });
    expect(() => parsePrintOutput('service: s\n', framework)).toThrow(/printed no JSON service/);
  });
});

describe('loadServerlessService', () => {
  const write = (dir: string, text: string): string => {
    const file = path.join(dir, 'serverless.yml');
    writeFileSync(file, text);
    return file;
  };
  const problemsOf = problemsRejectedBy;

  it('reads a file without variables as it is, with no Framework', async () => {
    const dir = serviceWith([]);
    const file = write(dir, `service: plain\ncustom:\n  sub: "arn:\${AWS::Region}"\n`);
    expect(
      await loadServerlessService(file, { env: {}, stateDir: path.join(dir, '.state'), framework: null }),
    ).toEqual({
      document: { service: 'plain', custom: { sub: `arn:\${AWS::Region}` } },
      resolvedBy: undefined,
    });
    expect(existsSync(path.join(dir, '.state'))).toBe(false);
  });

  it('names the variable, its key and the package to install when the service has no Framework', async () => {
    const dir = serviceWith([]);
    const file = write(dir, `service: s\ncustom:\n  ns: \${self:custom.other}\n  b: \${sls:stage}\n`);
    expect(
      await problemsOf(() => loadServerlessService(file, { env: {}, stateDir: dir, framework: null })),
    ).toEqual([
      expect.stringMatching(
        /^custom\.ns: \$\{self:custom\.other\} \(and 1 more\): dev resolves variables as `serverless print` does, .* has none: npm install --save-dev serverless@3 \(or osls\)$/,
      ),
    ]);
  });

  it('takes the service from the Framework, with the plugin fallback on its NODE_PATH', async () => {
    const dir = serviceWith([OSLS]);
    const file = write(dir, `service: s\ncustom:\n  ns: \${file(./ns.yml):ns}\n`);
    const stateDir = path.join(dir, '.state');
    const loaded = await loadServerlessService(file, { env: {}, stage: 'qa', stateDir });
    expect(loaded.resolvedBy).toBe('osls 9.9.9');
    const service = loaded.document as { argv: string[]; env: { nodePath: string } };
    expect(service.argv).toContain('qa');
    expect(service.env.nodePath).toBe(path.join(stateDir, 'framework-plugins'));
    const fallback = JSON.parse(
      readFileSync(path.join(stateDir, 'framework-plugins', 'rocketmq-lambda', 'package.json'), 'utf8'),
    ) as { name: string; exports: Record<string, unknown> };
    expect(fallback.name).toBe('rocketmq-lambda');
    expect(Object.keys(fallback.exports)).toEqual(['./serverless']);
  });

  it('resolves env, opt, sls and self variables itself, without the Framework', async () => {
    const dir = serviceWith([]);
    const file = write(
      dir,
      `service: s\nprovider:\n  stage: \${opt:stage, 'dev'}\ncustom:\n  ns: \${env:NS, '127.0.0.1:9876'}\n  topic: t_\${sls:stage}\n  copy: \${self:custom.ns}\n`,
    );
    const loaded = await loadServerlessService(file, {
      env: { NS: '10.0.0.1:9876' },
      stage: 'qa',
      stateDir: path.join(dir, '.state'),
      framework: null,
    });
    expect(loaded).toEqual({
      document: {
        service: 's',
        provider: { stage: 'qa' },
        custom: { ns: '10.0.0.1:9876', topic: 't_qa', copy: '10.0.0.1:9876' },
      },
      resolvedBy: 'rocketmq-lambda (env, opt, self, sls)',
    });
    expect(existsSync(path.join(dir, '.state'))).toBe(false);
  });

  it('leaves an env variable without a value or fallback to the Framework, whose error names it', async () => {
    const dir = serviceWith([OSLS]);
    const file = write(dir, `service: s\ncustom:\n  ns: \${env:NS}\n`);
    const env = {
      FAKE_ERROR:
        'Cannot resolve serverless.yml: Variables resolution errored with:\n' +
        '  - Cannot resolve variable at "custom.ns": Value not found at "env" source',
    };
    expect(await problemsOf(() => loadServerlessService(file, { env, stateDir: dir }))).toEqual([
      `custom.ns: \${env:NS}: Value not found at "env" source`,
    ]);
  });

  it("turns the Framework's refusal into problems naming each variable and key", async () => {
    const dir = serviceWith([OSLS]);
    const file = write(dir, `service: s\ncustom:\n  ns: \${self:custom.nameServer}\n`);
    const env = {
      FAKE_ERROR:
        'Cannot resolve serverless.yml: Variables resolution errored with:\n' +
        '  - Cannot resolve variable at "custom.ns": Value not found at "self" source',
    };
    expect(await problemsOf(() => loadServerlessService(file, { env, stateDir: dir }))).toEqual([
      `custom.ns: \${self:custom.nameServer}: Value not found at "self" source`,
    ]);
    const other = { FAKE_ERROR: "Configuration error at 'functions.f.events.0': unsupported function event" };
    expect(await problemsOf(() => loadServerlessService(file, { env: other, stateDir: dir }))).toEqual([
      "(osls 9.9.9 print): Configuration error at 'functions.f.events.0': unsupported function event (is rocketmq-lambda/serverless in the service's plugins?)",
    ]);
  });
});
