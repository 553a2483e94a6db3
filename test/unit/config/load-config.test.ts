import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import {
  CONFIG_ENV_VARIABLE,
  configFormatOf,
  loadConfig,
  loadConfigFromEnv,
  parseConfigText,
} from '../../../src/config/load-config.js';
import { RocketMQError } from '../../../src/errors.js';
import { problemsRejectedBy } from '../../support/problems-thrown-by.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/config/', import.meta.url));
const fixture = (name: string): string => path.join(FIXTURES, name);

/** The `# expect: <line>` comments of a fixture, `<dir>` standing for the fixture directory. */
async function expectedLines(name: string): Promise<string[]> {
  const text = await readFile(fixture(name), 'utf8');
  return [...text.matchAll(/^# expect: (.*)$/gm)].map((match) =>
    (match[1] ?? '').replaceAll('<dir>', FIXTURES.replace(/\/$/, '')),
  );
}

const problemsOf = (file: string, env: Record<string, string> = {}): Promise<readonly string[]> =>
  problemsRejectedBy(() => loadConfig(file, { env }));

describe('loadConfig fixtures', () => {
  it.each(['bad-ranges.yaml', 'bad-typos.yaml', 'bad-rules.yaml'])(
    '%s gives exactly the expected lines, in order',
    async (name) => {
      const expected = await expectedLines(name);
      expect(expected.length).toBeGreaterThan(0);
      expect(await problemsOf(fixture(name))).toEqual(expected);
    },
  );

  // Syntax errors are written at test time: broken files in the tree would break the formatter.
  it('reports YAML and JSON syntax errors with line and column', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-config-'));
    try {
      const yaml = path.join(dir, 'bad.yaml');
      await writeFile(yaml, 'nameServer: 127.0.0.1:9876\noffsets: { store: memory\nmappings: []\n');
      expect(await problemsOf(yaml)).toEqual([
        'line 3, column 1: invalid YAML: an unclosed { or [ (or the next line is not indented enough)',
      ]);
      const json = path.join(dir, 'bad.json');
      await writeFile(
        json,
        '{\n  "nameServer": "127.0.0.1:9876",\n  "offsets": { "store": "memory" },,\n}\n',
      );
      expect(await problemsOf(json)).toEqual([
        'line 3, column 36: invalid JSON: a , where a key in double quotes should be',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a ConfigError is a non-retriable RocketMQError naming the file and the count', async () => {
    const error = await loadConfig(fixture('bad-ranges.yaml'), { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(RocketMQError);
    const configError = error as ConfigError;
    expect(configError.retriable).toBe(false);
    expect(configError.source).toBe(fixture('bad-ranges.yaml'));
    expect(configError.message.split('\n')[0]).toBe(
      `invalid config ${fixture('bad-ranges.yaml')} (7 problems):`,
    );
  });

  it('a missing file is one problem', async () => {
    expect(await problemsOf(fixture('nope.yaml'))).toEqual([
      `(config): cannot read ${fixture('nope.yaml')}: no such file`,
    ]);
  });

  it('an empty file is one problem', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-config-'));
    try {
      await writeFile(path.join(dir, 'empty.yaml'), '\n  \n');
      expect(await problemsOf(path.join(dir, 'empty.yaml'))).toEqual(['(config): the file is empty']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('loadConfig: YAML, JSON and paths', () => {
  it('minimal.yaml resolves every default', async () => {
    const config = await loadConfig(fixture('minimal.yaml'), { env: {} });
    expect(config).toEqual({
      source: fixture('minimal.yaml'),
      baseDir: FIXTURES.replace(/\/$/, ''),
      nameServerAddresses: ['127.0.0.1:9876'],
      acl: undefined,
      tls: undefined,
      zone: undefined,
      shutdownTimeoutMs: 30_000,
      offsets: {
        store: 'memory',
        path: path.join(FIXTURES, '.rocketmq-lambda/offsets'),
        persistIntervalMs: 5000,
      },
      lambda: { region: undefined, endpoint: undefined },
      destinations: { sqsEndpoint: undefined, snsEndpoint: undefined, s3Endpoint: undefined },
      metrics: { emf: undefined, prometheus: undefined, cloudwatch: undefined },
      mappings: [
        {
          name: 'orders-fn',
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          filter: { type: 'TAG', expression: '*' },
          functionRef: 'local:./handlers/noop.mjs',
          batchSize: 100,
          maximumBatchingWindowMs: 500,
          maxConcurrency: 10,
          orderly: false,
          orderlyFailure: 'skip',
          maxReconsumeTimes: 16,
          messageModel: 'CLUSTERING',
          consumeMode: 'PUSH',
          allocateStrategy: 'AVG',
          allocateVirtualNodes: 10,
          zoneNearby: undefined,
          startingPosition: 'LATEST',
          startingPositionTimestampMs: undefined,
          pullThresholdForQueue: 1000,
          pullThresholdSizeForQueue: 100 * 1024 * 1024,
          pullThresholdSizeForTopic: 128 * 1024 * 1024,
          maxDecompressedBodyBytes: 6 * 1024 * 1024,
          maxDecompressedPullBytes: 32 * 1024 * 1024,
          consumeConcurrentlyMaxSpan: 2000,
          consumeTimeoutMs: 900_000,
          functionTimeoutMs: 900_000,
          bisectBatchOnError: false,
          maxRecordAgeSeconds: -1,
          onFailure: undefined,
        },
      ],
    });
  });

  it('full.yaml keeps every value it sets', async () => {
    const config = await loadConfig(fixture('full.yaml'), { env: {} });
    expect(config.nameServerAddresses).toEqual(['10.0.0.1:9876', '[::1]:9876']);
    expect(config.acl).toEqual({ accessKey: 'rocketmq2', secretKey: '12345678', securityToken: 'token-1' });
    expect(config.tls).toEqual({ verifyServer: true });
    expect(config.shutdownTimeoutMs).toBe(20_000);
    expect(config.offsets).toEqual({
      store: 'dynamodb',
      table: 'rocketmq-offsets',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:8000',
      createTable: true,
      path: path.join(FIXTURES, 'state/offsets'),
      persistIntervalMs: 5000,
    });
    expect(config.lambda).toEqual({ region: 'eu-west-1', endpoint: 'http://127.0.0.1:3002' });
    expect(config.destinations).toEqual({
      sqsEndpoint: 'http://127.0.0.1:4566',
      snsEndpoint: 'http://127.0.0.1:4566',
      s3Endpoint: 'http://127.0.0.1:4566',
    });
    const [orders, audit, payments] = config.mappings;
    expect(orders).toMatchObject({
      name: 'orders',
      filter: { type: 'TAG', expression: 'TagA || TagB' },
      functionRef: 'local:./handlers/noop.mjs#handler',
      batchSize: 500,
      maximumBatchingWindowMs: 1000,
      maxConcurrency: 4,
      orderly: true,
      orderlyFailure: 'block',
      maxReconsumeTimes: 3,
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestampMs: Date.UTC(2025, 0, 31, 12),
      pullThresholdForQueue: 200,
      pullThresholdSizeForQueue: 1_048_576,
      consumeConcurrentlyMaxSpan: 500,
      consumeTimeoutMs: 60_000,
    });
    expect(audit).toMatchObject({
      name: 'audit',
      filter: { type: 'SQL92', expression: "region = 'eu' AND amount > 100" },
      messageModel: 'BROADCASTING',
      startingPosition: 'TRIM_HORIZON',
      startingPositionTimestampMs: undefined,
    });
    expect(payments).toMatchObject({
      functionRef: 'arn:aws:lambda:eu-west-1:123456789012:function:payments:live',
      functionTimeoutMs: 60_000,
      bisectBatchOnError: true,
      maxRecordAgeSeconds: 3600,
      onFailure: 'arn:aws:sqs:eu-west-1:123456789012:payments-failures',
    });
  });

  it('reads JSON, with Unix seconds as the timestamp and an absolute offsets path', async () => {
    const config = await loadConfig(fixture('full.json'), { env: {} });
    expect(config.nameServerAddresses).toEqual(['10.0.0.1:9876', '10.0.0.2:9876']);
    expect(config.offsets).toEqual({
      store: 'file',
      path: '/var/lib/rocketmq-lambda',
      persistIntervalMs: 5000,
    });
    expect(config.mappings[0]?.startingPositionTimestampMs).toBe(1_738_324_800_000);
  });

  it('sniffs JSON in a file with another extension', async () => {
    const config = await loadConfig(fixture('poller.conf'), { env: {} });
    expect(config.mappings[0]?.topic).toBe('Orders');
  });

  it('resolves local: modules and offsets.path against the config file, wherever the process runs', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-config-'));
    try {
      await writeFile(path.join(dir, 'h.mjs'), 'export const handler = async () => ({});\n');
      const file = path.join(dir, 'poller.yml');
      await writeFile(
        file,
        'offsets: { store: file, path: ./state }\nmappings: [{ topic: T, consumerGroup: G, function: "local:./h.mjs" }]\n',
      );
      const config = await loadConfig(path.relative(process.cwd(), file), {
        env: { NAMESRV_ADDR: '127.0.0.1:9876' },
      });
      expect(config.baseDir).toBe(dir);
      expect(config.offsets.path).toBe(path.join(dir, 'state'));
      expect(config.mappings[0]?.functionRef).toBe('local:./h.mjs');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accepts a .js reference whose TypeScript twin exists (tsx, vitest)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-config-'));
    try {
      await writeFile(path.join(dir, 'h.ts'), 'export const handler = async () => ({});\n');
      const file = path.join(dir, 'poller.yaml');
      await writeFile(
        file,
        'nameServer: 127.0.0.1:9876\noffsets: { store: memory }\nmappings: [{ topic: T, consumerGroup: G, function: "local:./h.js" }]\n',
      );
      await expect(loadConfig(file, { env: {} })).resolves.toBeDefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('configFormatOf and parseConfigText', () => {
  it('goes by extension, then by content', () => {
    expect(configFormatOf('a.json', 'x: 1')).toBe('json');
    expect(configFormatOf('a.YAML', '{}')).toBe('yaml');
    expect(configFormatOf('a.yml', '{}')).toBe('yaml');
    expect(configFormatOf('a.conf', '  {"a": 1}')).toBe('json');
    expect(configFormatOf('a', 'a: 1')).toBe('yaml');
  });

  it('rejects duplicate YAML keys', () => {
    expect(() => parseConfigText('a: 1\na: 2\n', 'yaml')).toThrow(ConfigError);
    try {
      parseConfigText('a: 1\na: 2\n', 'yaml');
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'line 2, column 1: invalid YAML: a duplicate key (each key may appear once)',
      ]);
    }
  });

  it('reads YAML 1.2: yes/on stay strings, timestamps stay strings', () => {
    expect(parseConfigText('a: yes\nb: 2025-01-31T12:00:00Z\n', 'yaml')).toEqual({
      a: 'yes',
      b: '2025-01-31T12:00:00Z',
    });
  });
});

describe('loadConfigFromEnv (ROCKETMQ_LAMBDA_CONFIG)', () => {
  const json = (mapping: Record<string, unknown>) =>
    JSON.stringify({
      nameServer: '127.0.0.1:9876',
      offsets: { store: 'file', path: 'state' },
      mappings: [{ topic: 'Orders', consumerGroup: 'orders-fn', ...mapping }],
    });

  it('parses the JSON; relative paths are relative to the working directory; the source is the variable', () => {
    expect(CONFIG_ENV_VARIABLE).toBe('ROCKETMQ_LAMBDA_CONFIG');
    const config = loadConfigFromEnv({
      env: { ROCKETMQ_LAMBDA_CONFIG: json({ function: 'local:./handlers/noop.mjs' }) },
      baseDir: FIXTURES,
    });
    expect(config.source).toBe('ROCKETMQ_LAMBDA_CONFIG');
    expect(config.baseDir).toBe(FIXTURES.replace(/\/$/, ''));
    expect(config.offsets).toEqual({
      store: 'file',
      path: path.join(FIXTURES, 'state'),
      persistIntervalMs: 5000,
    });
    const lambda = loadConfigFromEnv({
      env: { ROCKETMQ_LAMBDA_CONFIG: json({ function: 'orders:live' }), AWS_REGION: 'eu-west-1' },
    });
    expect(lambda.baseDir).toBe(process.cwd());
    expect(lambda.lambda.region).toBe('eu-west-1');
  });

  it('checks local: modules, and reports an unset variable or bad JSON as one line', () => {
    const problems = (env: Record<string, string>): readonly string[] => {
      try {
        loadConfigFromEnv({ env, baseDir: FIXTURES });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(problems({ ROCKETMQ_LAMBDA_CONFIG: json({ function: 'local:./nope.mjs' }) })).toEqual([
      `mappings[0].function: module ./nope.mjs not found (looked for ${path.join(FIXTURES, 'nope.mjs')})`,
    ]);
    expect(problems({})).toEqual(['(config): ROCKETMQ_LAMBDA_CONFIG is not set']);
    expect(problems({ ROCKETMQ_LAMBDA_CONFIG: '{"nameServer": ' })).toEqual([
      expect.stringMatching(/invalid JSON: /),
    ]);
  });
});
