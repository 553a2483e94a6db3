import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cfnLint, formatFindings } from '../../support/cfn-lint.js';
import { type PackageResult, packageFixture, REPO_ROOT } from './package-fixture.js';

const FIXTURES = ['minimal', 'all-options', 'no-events', 'event-typo', 'bad-options'] as const;
type Fixture = (typeof FIXTURES)[number];

const results = new Map<Fixture, PackageResult>();

function result(fixture: Fixture): PackageResult {
  const found = results.get(fixture);
  if (found === undefined) throw new Error(`fixture ${fixture} was not packaged`);
  return found;
}

function packaged(fixture: Fixture): NonNullable<PackageResult['template']> {
  const { exitCode, output, template } = result(fixture);
  if (exitCode !== 0 || template === undefined) {
    throw new Error(`serverless package of ${fixture} failed (exit ${exitCode}):\n${output}`);
  }
  return template;
}

beforeAll(async () => {
  // Two at a time: each osls run is one busy node process for ~10 s.
  const queue = [...FIXTURES];
  const worker = async () => {
    for (let fixture = queue.shift(); fixture !== undefined; fixture = queue.shift()) {
      results.set(fixture, await packageFixture(fixture));
    }
  };
  await Promise.all([worker(), worker()]);
  const timings = FIXTURES.map((f) => `${f} ${result(f).durationMs} ms (exit ${result(f).exitCode})`);
  process.stdout.write(`[serverless package] ${timings.join(', ')}\n`);
}, 300_000);

afterAll(async () => {
  await Promise.all([...results.values()].map((r) => r.cleanup()));
});

describe('serverless package with the rocketmq plugin (osls)', () => {
  it('minimal: the poller service wired to the framework-named function', () => {
    const { Resources, Outputs } = packaged('minimal');
    const rocketmq = Object.entries(Resources)
      .filter(([id]) => id.startsWith('RocketMQ'))
      .map(([id, resource]) => [id, resource.Type]);
    expect(Object.fromEntries(rocketmq)).toEqual({
      RocketMQOffsetsTable: 'AWS::DynamoDB::Table',
      RocketMQPollerCluster: 'AWS::ECS::Cluster',
      RocketMQPollerLogGroup: 'AWS::Logs::LogGroup',
      RocketMQPollerExecutionRole: 'AWS::IAM::Role',
      RocketMQPollerTaskRole: 'AWS::IAM::Role',
      RocketMQPollerTaskDefinition: 'AWS::ECS::TaskDefinition',
      RocketMQPollerService: 'AWS::ECS::Service',
    });
    expect(Resources.OrdersLambdaFunction?.Type).toBe('AWS::Lambda::Function');
    const taskRole = JSON.stringify(Resources.RocketMQPollerTaskRole);
    expect(taskRole).toContain('{"Fn::GetAtt":["OrdersLambdaFunction","Arn"]}');
    const taskDefinition = JSON.stringify(Resources.RocketMQPollerTaskDefinition);
    expect(taskDefinition).toContain('"Name":"ROCKETMQ_LAMBDA_CONFIG"');
    expect(taskDefinition).toContain('"Function0":{"Fn::GetAtt":["OrdersLambdaFunction","Arn"]}');
    expect(Outputs?.RocketMQOffsetsTableName?.Value).toEqual({ Ref: 'RocketMQOffsetsTable' });
  });

  it('all options: scaling, secrets, failure destinations, the user resources kept', () => {
    const { Resources } = packaged('all-options');
    expect(Resources.FailuresQueue?.Type).toBe('AWS::SQS::Queue');
    expect(Resources.PaymentsLambdaFunction?.Type).toBe('AWS::Lambda::Function');
    expect(Resources.RocketMQPollerScalableTarget?.Properties).toMatchObject({
      MinCapacity: 1,
      MaxCapacity: 6,
    });
    expect(Resources.RocketMQPollerLagScalingPolicy?.Type).toBe('AWS::ApplicationAutoScaling::ScalingPolicy');
    expect(Resources.RocketMQOffsetsTable?.Properties?.TableName).toBe('rmq-all-options-offsets');
    const taskDefinition = JSON.stringify(Resources.RocketMQPollerTaskDefinition);
    expect(taskDefinition).toContain(
      '"ValueFrom":"arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf:accessKey::"',
    );
    const taskRole = JSON.stringify(Resources.RocketMQPollerTaskRole);
    expect(taskRole).toContain('"sqs:SendMessage"');
    expect(taskRole).toContain('arn:aws:sns:eu-west-1:123456789012:payment-failures');
    expect(taskRole).not.toContain('AuditLambdaFunction');
  });

  it('no rocketmq events: nothing added', () => {
    const { Resources, Outputs } = packaged('no-events');
    expect(Object.keys(Resources).filter((id) => id.startsWith('RocketMQ'))).toEqual([]);
    expect(Object.keys(Outputs ?? {}).filter((id) => id.startsWith('RocketMQ'))).toEqual([]);
    expect(Resources.HelloLambdaFunction?.Type).toBe('AWS::Lambda::Function');
  });

  it('a typo in the event: the framework stops with a schema error naming it', () => {
    const { exitCode, output, template } = result('event-typo');
    expect(exitCode).not.toBe(0);
    expect(template).toBeUndefined();
    expect(output).toContain(
      "Configuration error at 'functions.orders.events.0.rocketmq': unrecognized property 'batchsize'",
    );
  });

  it('options the schema allows but the rules do not: the plugin stops with every problem, each naming its key', () => {
    const { exitCode, output, template } = result('bad-options');
    expect(exitCode).not.toBe(0);
    expect(template).toBeUndefined();
    expect(output).toContain('Invalid rocketmq configuration:');
    expect(output).toContain(
      'functions.orders.events[0].rocketmq.startingPositionTimestamp: required when startingPosition is AT_TIMESTAMP',
    );
    expect(output).toContain(
      'functions.refunds.events[0].rocketmq.consumerGroup: "orders-fn" is already the group of functions.orders.events[0].rocketmq (one event per consumer group)',
    );
    expect(output).toContain(
      'custom.rocketmq.memory: with cpu 256 must be 512, 1024 or 2048 (MiB), got 4096',
    );
  });
});

describe('cfn-lint', () => {
  it('passes the templates serverless package generated', async () => {
    const files = (['minimal', 'all-options', 'no-events'] as const).map((f) => {
      const file = result(f).templateFile;
      if (file === undefined) throw new Error(`no template for ${f}:\n${result(f).output}`);
      return file;
    });
    const findings = await cfnLint(files);
    expect(findings, formatFindings(findings)).toEqual([]);
  }, 600_000);

  it('passes the standalone templates of infra/cloudformation', async () => {
    const dir = path.join(REPO_ROOT, 'infra/cloudformation');
    const files = readdirSync(dir)
      .filter((file) => /\.ya?ml$/.test(file))
      .map((file) => path.join(dir, file));
    expect(files.length).toBeGreaterThan(0);
    const findings = await cfnLint(files);
    expect(findings, formatFindings(findings)).toEqual([]);
  }, 600_000);
});
