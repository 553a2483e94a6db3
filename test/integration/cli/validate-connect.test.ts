/**
 * `rocketmq-lambda validate --connect` against the real broker: the checks a poller meets when it starts
 * (mapping-broker-checks.ts), run on their own, one line each. A topic with a route passes; a topic
 * without one is named, with exit 1; an SQL92 filter goes to the broker's CHECK_CLIENT_CONFIG. The broker
 * compiles every filter our local checker accepts (test/integration/client/sql92-filter.test.ts: it
 * accepts a superset), so the filter case here is one the broker accepts, and one on a missing topic,
 * which is reported once, for the topic, before any broker could be asked.
 *
 * Then the offsets store and the functions (validate-connect.ts), against the real dynalite and the HTTP
 * Invoke API test server, from a child process WITHOUT AWS credentials: both endpoints are on loopback,
 * so no credentials are needed (src/util/local-endpoint-credentials.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateCommand } from '../../../src/cli/validate-command.js';
import type { ConnectCheck } from '../../../src/cli/validate-connect.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { ensureOffsetTable } from '../../../src/offsets/ensure-offset-table.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { spawnCliWithoutCredentials } from '../../support/credential-free-cli.js';
import { DYNALITE_CLIENT_CONFIG, type DynaliteHandle, startDynalite } from '../../support/dynalite.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';
import { createTopic, newClient } from '../client/helpers.js';

let client: RocketMQClient;
let dir: string;
let existing: string;

beforeAll(async () => {
  client = newClient();
  dir = await mkdtemp(path.join(tmpdir(), 'validate-connect-'));
  await writeFile(path.join(dir, 'h.js'), 'export const handler = async () => ({});\n');
  existing = uniqueTopic('Validate');
  await createTopic(client, existing, 1);
});
afterAll(async () => {
  await client.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes a poller config with one mapping `orders` of `topic` (and `filter`, when given). */
async function pollerConfig(topic: string, filter?: { sql: string }): Promise<string> {
  const file = path.join(dir, `${topic}.json`);
  await writeFile(
    file,
    JSON.stringify({
      nameServer: testBroker().namesrvAddr,
      offsets: { store: 'memory' },
      mappings: [
        {
          name: 'orders',
          topic,
          consumerGroup: uniqueGroup('Validate'),
          function: 'local:./h.js',
          ...(filter === undefined ? {} : { filter }),
        },
      ],
    }),
  );
  return file;
}

function validate(args: string[]) {
  return runCaptured((io) => validateCommand(args, io));
}

describe('rocketmq-lambda validate --connect', () => {
  it('passes a mapping whose topic exists (exit 0)', async () => {
    const file = await pollerConfig(existing);
    expect(await validate(['--config', file, '--connect'])).toEqual({
      code: 0,
      out:
        `ok   mappings.orders.topic: ${existing}: route on the name servers\n` +
        'ok   mappings.orders.function: local:./h.js: the handler module loads and exports handler\n' +
        'ok: 1 mapping\n',
      err: '',
    });
  });

  it('names a topic that does not exist on the name servers (exit 1)', async () => {
    const missing = uniqueTopic('Missing');
    const file = await pollerConfig(missing);
    // Without --connect the config alone is valid: only the broker knows the topic is missing.
    expect((await validate(['--config', file])).code).toBe(0);

    const result = await validate(['--config', file, '--connect']);
    expect(result.code).toBe(1);
    expect(result.err).toBe('');
    // One check per line (the name server's remark ends with a line break and a FAQ link).
    const lines = result.out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(
        `^FAIL mappings\\.orders\\.topic: ${missing}: no route on the name servers: .*TOPIC_NOT_EXIST`,
      ),
    );
    expect(lines[1]).toMatch(/^ok {3}mappings\.orders\.function: /);
    expect(lines[2]).toBe('valid: 1 mapping, but 1 --connect check failed');
  });

  it('has the broker compile an SQL92 filter: one it accepts passes (exit 0)', async () => {
    const file = await pollerConfig(existing, { sql: "region = 'eu' AND amount BETWEEN 1 AND 100" });
    expect(await validate(['--config', file, '--connect', '--json'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('"ok":true'),
      err: '',
    });
  });

  it('reports an SQL92 filter on a missing topic once, for the topic (exit 1)', async () => {
    const missing = uniqueTopic('Missing');
    const file = await pollerConfig(missing, { sql: 'amount > 10' });
    const result = await validate(['--config', file, '--connect', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as {
      ok: boolean;
      problems: string[];
      connectProblems: string[];
      checks: ConnectCheck[];
    };
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([]);
    expect(report.connectProblems).toHaveLength(1);
    expect(report.connectProblems[0]).toContain(`mappings.orders.topic: ${missing}: no route`);
    expect(report.checks.map(({ check, ok }) => ({ check, ok }))).toEqual([
      { check: 'mappings.orders.topic', ok: false },
      { check: 'mappings.orders.function', ok: true },
    ]);
  });
});

describe('rocketmq-lambda validate --connect: the offsets table and the Lambda functions, without AWS credentials', () => {
  const TABLE = 'validate_offsets';
  let db: DynaliteHandle;
  let lambda: LambdaApiServer;

  beforeAll(async () => {
    db = await startDynalite();
    const dynamo = new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint: db.endpoint });
    try {
      await ensureOffsetTable(dynamo, TABLE);
    } finally {
      dynamo.destroy();
    }
    lambda = await LambdaApiServer.start();
    lambda.register('orders-fn', () => ({ batchItemFailures: [] }));
  });
  afterAll(async () => {
    await lambda?.close();
    await db?.close();
  });

  /** A poller config whose offsets are in dynalite and whose function is on the Invoke API server. */
  async function awsConfig(name: string, table: string, functionName: string): Promise<string> {
    const file = path.join(dir, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify({
        nameServer: testBroker().namesrvAddr,
        // No region anywhere: a loopback endpoint needs none.
        offsets: { store: 'dynamodb', table, endpoint: db.endpoint },
        lambda: { endpoint: lambda.endpoint },
        mappings: [
          { name: 'orders', topic: existing, consumerGroup: uniqueGroup('Validate'), function: functionName },
        ],
      }),
    );
    return file;
  }

  it('passes when the table and the function exist, one line each, and runs no function (DryRun)', async () => {
    const file = await awsConfig('present', TABLE, 'orders-fn');
    const cli = spawnCliWithoutCredentials(['validate', '--config', file, '--connect']);
    const code = await cli.exited;
    expect(code, cli.stderr()).toBe(0);
    const host = (endpoint: string) => new URL(endpoint).host;
    expect(cli.stdout().trimEnd().split('\n')).toEqual([
      `ok   mappings.orders.topic: ${existing}: route on the name servers`,
      `ok   offsets: DynamoDB table ${TABLE} at ${host(db.endpoint)}: exists, readable`,
      `ok   mappings.orders.function: Lambda function orders-fn at ${host(lambda.endpoint)}: exists, invocable (DryRun)`,
      'ok: 1 mapping',
    ]);
    expect(cli.stderr()).not.toContain('credentials');
    const calls = lambda.calls('orders-fn');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.invocationType === 'DryRun')).toBe(true);
  });

  it('names the missing table and the missing function, each on its line (exit 1, --json too)', async () => {
    const file = await awsConfig('missing', 'no_such_offsets', 'no-such-fn');
    const cli = spawnCliWithoutCredentials(['validate', '--config', file, '--connect']);
    expect(await cli.exited, cli.stderr()).toBe(1);
    const lines = cli.stdout().trimEnd().split('\n');
    expect(lines[0]).toBe(`ok   mappings.orders.topic: ${existing}: route on the name servers`);
    expect(lines[1]).toMatch(/^FAIL offsets: the offsets table no_such_offsets does not exist/);
    expect(lines[2]).toMatch(
      /^FAIL mappings\.orders\.function: Lambda function "no-such-fn" does not exist: /,
    );
    expect(lines[2]).toContain('ResourceNotFoundException');
    expect(lines[3]).toBe('valid: 1 mapping, but 2 --connect checks failed');
    expect(lines).toHaveLength(4);
    expect(cli.stdout() + cli.stderr()).not.toContain('Could not load credentials');

    const json = spawnCliWithoutCredentials(['validate', '--config', file, '--connect', '--json']);
    expect(await json.exited, json.stderr()).toBe(1);
    const report = JSON.parse(json.stdout()) as {
      ok: boolean;
      checks: ConnectCheck[];
      connectProblems: string[];
    };
    expect(report.ok).toBe(false);
    expect(report.checks.map(({ check, ok }) => [check, ok])).toEqual([
      ['mappings.orders.topic', true],
      ['offsets', false],
      ['mappings.orders.function', false],
    ]);
    expect(report.connectProblems).toEqual([
      expect.stringMatching(/^offsets: the offsets table no_such_offsets does not exist/),
      expect.stringMatching(/^mappings\.orders\.function: Lambda function "no-such-fn" does not exist/),
    ]);
  });
});
