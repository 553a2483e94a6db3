import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CfnLintFinding, cfnLint, formatFindings } from '../../support/cfn-lint.js';
import {
  type FixtureRunOptions,
  type PackageResult,
  packageFixture,
  pathWithout,
  REPO_ROOT,
  type Template,
  zipEntryNames,
} from './package-fixture.js';

const FIXTURES = [
  'minimal',
  'all-options',
  'no-events',
  'event-typo',
  'bad-options',
  'built-image',
  'pull-through-cache',
  'placeholders',
  'custom-typo',
  'deploy-without-docker',
] as const;
type Fixture = (typeof FIXTURES)[number];

/** Runs that are not a plain `package --stage test` of the fixture of the same name. */
const RUNS: Partial<Record<Fixture, { fixture: string; options: FixtureRunOptions }>> = {
  // dev state in the service directory, as `rocketmq-lambda dev` leaves it
  minimal: {
    fixture: 'minimal',
    options: {
      files: { '.rocketmq-lambda/dynamodb/offsets.json': '{}', '.rocketmq-lambda/broker/broker.log': 'x' },
    },
  },
  // a deploy on a machine without Docker: refused before anything touches AWS
  'deploy-without-docker': {
    fixture: 'built-image',
    options: { args: ['deploy', '--stage', 'test'], path: pathWithout('docker') },
  },
};

const VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

const results = new Map<Fixture, PackageResult>();

/** The run config the task definition passes the poller (its `Fn::Sub` text; variables left as `${...}`). */
function pollerConfigOf(template: Template): { mappings: Record<string, unknown>[] } {
  const definition = template.Resources.RocketMQPollerTaskDefinition?.Properties as {
    ContainerDefinitions: { Environment: { Name: string; Value: { 'Fn::Sub': [string, unknown] } }[] }[];
  };
  const variable = definition.ContainerDefinitions[0]?.Environment.find(
    (e) => e.Name === 'ROCKETMQ_LAMBDA_CONFIG',
  );
  if (variable === undefined) throw new Error('no ROCKETMQ_LAMBDA_CONFIG');
  return JSON.parse(variable.Value['Fn::Sub'][0]) as { mappings: Record<string, unknown>[] };
}

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

/** The templates of infra/cloudformation (a stack file, *.stack.yml, is the input of a template, not one). */
function standaloneTemplates(): string[] {
  const dir = path.join(REPO_ROOT, 'infra/cloudformation');
  return readdirSync(dir)
    .filter((file) => /\.ya?ml$/.test(file) && !/\.stack\.ya?ml$/.test(file))
    .map((file) => path.join(dir, file));
}

/** A cfn-lint run started in beforeAll, its outcome awaited by its test. */
type LintRun = Promise<{ findings: CfnLintFinding[] } | { error: unknown }>;

function lintRun(files: readonly string[]): LintRun {
  return cfnLint(files).then(
    (findings) => ({ findings }),
    (error: unknown) => ({ error }),
  );
}

async function lintFindings(run: LintRun | undefined): Promise<CfnLintFinding[]> {
  if (run === undefined) throw new Error('cfn-lint was not started (beforeAll failed)');
  const outcome = await run;
  if ('error' in outcome) throw outcome.error;
  return outcome.findings;
}

let standaloneLint: LintRun | undefined;

beforeAll(async () => {
  // Two at a time: each osls run is one busy node process for ~10 s. cfn-lint of the standalone templates
  // (it needs no package) is one more job of the same queue, so it no longer runs alone after the others.
  const queue: (Fixture | 'standalone-lint')[] = ['standalone-lint', ...FIXTURES];
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      if (job === 'standalone-lint') {
        standaloneLint = lintRun(standaloneTemplates());
        await standaloneLint;
        continue;
      }
      const run = RUNS[job];
      results.set(job, await packageFixture(run?.fixture ?? job, run?.options));
    }
  };
  await Promise.all([worker(), worker()]);
  const timings = FIXTURES.map((f) => `${f} ${result(f).durationMs} ms (exit ${result(f).exitCode})`);
  process.stdout.write(`[serverless package] ${timings.join(', ')}\n`);
}, 420_000);

afterAll(async () => {
  await Promise.all([...results.values()].map((r) => r.cleanup()));
});

describe('serverless package with the rocketmq plugin (osls)', () => {
  it('minimal: the poller service wired to the framework-named function, the published image, scaling', async () => {
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
      RocketMQPollerScalableTarget: 'AWS::ApplicationAutoScaling::ScalableTarget',
      RocketMQPollerLagScalingPolicy: 'AWS::ApplicationAutoScaling::ScalingPolicy',
      RocketMQDeadLettersAlarmOrdersFn: 'AWS::CloudWatch::Alarm',
      RocketMQMessageAgeAlarmOrdersFn: 'AWS::CloudWatch::Alarm',
      RocketMQUnhealthyAlarmOrdersFn: 'AWS::CloudWatch::Alarm',
      RocketMQCannotConsumeAlarmOrdersFn: 'AWS::CloudWatch::Alarm',
      RocketMQPollerDashboard: 'AWS::CloudWatch::Dashboard',
    });
    expect(Resources.RocketMQPollerService?.Properties).not.toHaveProperty('DesiredCount');
    expect(Resources.RocketMQPollerScalableTarget?.Properties).toMatchObject({
      MinCapacity: 1,
      MaxCapacity: 8,
    });
    expect(JSON.stringify(Resources.RocketMQPollerTaskDefinition)).toContain(
      `"Image":"ghcr.io/rocketmq-lambda/rocketmq-lambda:${VERSION}"`,
    );
    expect(pollerConfigOf(packaged('minimal')).mappings).toMatchObject([{ functionTimeoutMs: 6000 }]);
    // `rocketmq-lambda dev`'s state stays out of the function's zip.
    const zipped = await zipEntryNames(path.join(result('minimal').dir, '.serverless', 'rmq-minimal.zip'));
    expect(zipped).toContain('handler.js');
    expect(zipped.filter((name) => name.startsWith('.rocketmq-lambda'))).toEqual([]);
    expect(Resources.OrdersLambdaFunction?.Type).toBe('AWS::Lambda::Function');
    const taskRole = JSON.stringify(Resources.RocketMQPollerTaskRole);
    expect(taskRole).toContain('{"Fn::GetAtt":["OrdersLambdaFunction","Arn"]}');
    const taskDefinition = JSON.stringify(Resources.RocketMQPollerTaskDefinition);
    expect(taskDefinition).toContain('"Name":"ROCKETMQ_LAMBDA_CONFIG"');
    expect(taskDefinition).toContain('"Function0":{"Fn::GetAtt":["OrdersLambdaFunction","Arn"]}');
    expect(Outputs?.RocketMQOffsetsTableName?.Value).toEqual({ Ref: 'RocketMQOffsetsTable' });
  });

  it('all options: scaling without DesiredCount, timeouts, secrets, failure destinations, the user resources kept', () => {
    const { Resources } = packaged('all-options');
    expect(Resources.FailuresQueue?.Type).toBe('AWS::SQS::Queue');
    expect(Resources.PaymentsLambdaFunction?.Type).toBe('AWS::Lambda::Function');
    expect(Resources.RocketMQPollerScalableTarget?.Properties).toMatchObject({
      MinCapacity: 1,
      MaxCapacity: 6,
    });
    expect(Resources.RocketMQPollerLagScalingPolicy?.Type).toBe('AWS::ApplicationAutoScaling::ScalingPolicy');
    expect(Resources.RocketMQPollerService?.Properties).not.toHaveProperty('DesiredCount');
    expect(Resources.RocketMQOffsetsTable?.Properties?.TableName).toBe('rmq-all-options-offsets');
    const taskDefinition = JSON.stringify(Resources.RocketMQPollerTaskDefinition);
    expect(taskDefinition).toContain(
      '"ValueFrom":"arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf:accessKey::"',
    );
    // orders sets timeout: 120, payments inherits provider.timeout: 30.
    expect(pollerConfigOf(packaged('all-options')).mappings).toMatchObject([
      { consumerGroup: 'orders-fn', functionTimeoutMs: 120_000 },
      { consumerGroup: 'payments-fn', functionTimeoutMs: 30_000 },
    ]);
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

  it('a typo in the event or in custom.rocketmq: the plugin stops first, naming it with a suggestion', () => {
    for (const [fixture, line] of [
      ['event-typo', 'functions.orders.events[0].rocketmq.batchsize: unknown key (did you mean batchSize?)'],
      ['custom-typo', 'custom.rocketmq.maxCont: unknown key (did you mean maxCount?)'],
    ] as const) {
      const { exitCode, output, template } = result(fixture);
      expect(exitCode, output).not.toBe(0);
      expect(template).toBeUndefined();
      expect(output).toContain(`Invalid rocketmq configuration: ${line}`);
    }
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
    expect(output).toContain(
      'custom.rocketmq.acl.secretArn: must be a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>, without a JSON key), got "arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl:accessKey::"',
    );
    expect(output).toContain(
      'custom.rocketmq.desiredCount: only used with scaling: false (scaling sets the task count, between minCount and maxCount)',
    );
  });

  it('placeholder values in stage test: refused at package time, each naming its key', () => {
    const { exitCode, output, template } = result('placeholders');
    expect(exitCode).not.toBe(0);
    expect(template).toBeUndefined();
    for (const key of ['image', 'nameServers', 'vpc.subnetIds[0]', 'vpc.securityGroupIds[0]']) {
      expect(output).toMatch(
        new RegExp(
          `custom\\.rocketmq\\.${key.replace(/[.[\]]/g, '\\$&')}: .*\\(stage "test"; only local and dev allow it\\)`,
        ),
      );
    }
  });

  it('image.build: the repository in the template and the core template, the image by tag until pushed, the partial secret ARN normalised', () => {
    const { Resources } = packaged('built-image');
    const repository = Resources.RocketMQPollerImageRepository;
    expect(repository?.Type).toBe('AWS::ECR::Repository');
    const core = JSON.parse(
      readFileSync(
        path.join(result('built-image').dir, '.serverless', 'cloudformation-template-create-stack.json'),
        'utf8',
      ),
    ) as Template;
    expect(core.Resources.RocketMQPollerImageRepository).toEqual(repository);
    const taskDefinition = JSON.stringify(Resources.RocketMQPollerTaskDefinition);
    expect(taskDefinition).toContain(
      `"Image":{"Fn::Sub":"\${RocketMQPollerImageRepository.RepositoryUri}:${VERSION}"}`,
    );
    expect(taskDefinition).toContain('"CpuArchitecture":"ARM64"');
    expect(taskDefinition).toContain(
      '"ValueFrom":"arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq/acl:accessKey::"',
    );
    const executionRole = JSON.stringify(Resources.RocketMQPollerExecutionRole);
    expect(executionRole).toContain(
      '"Resource":["arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq/acl-??????"]',
    );
    expect(executionRole).toContain('"Resource":{"Fn::GetAtt":["RocketMQPollerImageRepository","Arn"]}');
    expect(Resources.RocketMQPollerScalableTarget?.Properties).toMatchObject({
      MinCapacity: 1,
      MaxCapacity: 16,
    });
  });

  it('image.pullThroughCache: the rule, the task definition after it, the image from the account registry, rights on the cached repository', () => {
    const { Resources } = packaged('pull-through-cache');
    expect(Resources.RocketMQPollerPullThroughCacheRule).toEqual({
      Type: 'AWS::ECR::PullThroughCacheRule',
      Properties: {
        EcrRepositoryPrefix: 'rmq-cache',
        UpstreamRegistry: 'github-container-registry',
        UpstreamRegistryUrl: 'ghcr.io',
        CredentialArn:
          'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ecr-pullthroughcache/ghcr-AbCdEf',
      },
    });
    expect(Resources.RocketMQPollerTaskDefinition?.DependsOn).toEqual(['RocketMQPollerPullThroughCacheRule']);
    expect(JSON.stringify(Resources.RocketMQPollerTaskDefinition)).toContain(
      `"Image":{"Fn::Sub":"\${AWS::AccountId}.dkr.ecr.\${AWS::Region}.\${AWS::URLSuffix}/rmq-cache/rocketmq-lambda/rocketmq-lambda:${VERSION}"}`,
    );
    const executionRole = JSON.stringify(Resources.RocketMQPollerExecutionRole);
    expect(executionRole).toContain(
      `{"Sid":"PullThroughCache","Effect":"Allow","Action":["ecr:BatchImportUpstreamImage","ecr:CreateRepository"],"Resource":{"Fn::Sub":"arn:\${AWS::Partition}:ecr:\${AWS::Region}:\${AWS::AccountId}:repository/rmq-cache/rocketmq-lambda/rocketmq-lambda"}}`,
    );
    expect(Resources.RocketMQPollerImageRepository).toBeUndefined();
  });

  it('image.build on a machine without Docker: deploy stops before touching AWS, naming docker', () => {
    const { exitCode, output } = result('deploy-without-docker');
    expect(exitCode).not.toBe(0);
    expect(output).toContain(
      'custom.rocketmq.image.build: `docker` was not found on PATH; install Docker (with buildx) to build the poller image, or leave image.build out to run the published image',
    );
  });
});

describe('cfn-lint', () => {
  it('passes the templates serverless package generated', async () => {
    const files = (['minimal', 'all-options', 'no-events', 'built-image', 'pull-through-cache'] as const).map(
      (f) => {
        const file = result(f).templateFile;
        if (file === undefined) throw new Error(`no template for ${f}:\n${result(f).output}`);
        return file;
      },
    );
    // Two cfn-lint processes at once (two cores), each on part of the templates; their findings together.
    const half = Math.ceil(files.length / 2);
    const parts = await Promise.all([cfnLint(files.slice(0, half)), cfnLint(files.slice(half))]);
    const findings = parts.flat();
    expect(findings, formatFindings(findings)).toEqual([]);
  }, 600_000);

  it('passes the standalone templates of infra/cloudformation', async () => {
    expect(standaloneTemplates().length).toBeGreaterThan(0);
    // Linted in beforeAll, beside the packaging.
    const findings = await lintFindings(standaloneLint);
    expect(findings, formatFindings(findings)).toEqual([]);
  }, 600_000);
});
