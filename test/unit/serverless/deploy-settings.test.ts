/**
 * What the deployed poller gets from the service beyond its events: the function's timeout
 * as `functionTimeoutMs`, secret ARNs that the execution role really matches, TLS settings, and the
 * placeholder values refused outside the dev stages.
 */
import { describe, expect, it } from 'vitest';
import {
  type CfnResource,
  type CompileRocketMQInput,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
  RocketMQPluginError,
} from '../../../src/serverless/index.js';
import { checkSecretArn } from '../../../src/serverless/secret-arn.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';
import { checkPollerConfig } from './config-check.js';
import { fixtureInput } from './fixture-input.js';

const CUSTOM = { nameServers: '10.0.0.10:9876', vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] } };
const ORDERS = { topic: 'Orders', consumerGroup: 'orders-fn' };

function input(
  custom: Record<string, unknown> = {},
  more: Partial<CompileRocketMQInput> = {},
): CompileRocketMQInput {
  return {
    custom: { ...CUSTOM, ...custom },
    stage: 'prod',
    functions: [{ key: 'orders', logicalId: 'OrdersLambdaFunction', events: [{ rocketmq: ORDERS }] }],
    ...more,
  };
}

const problemsOf = (input: CompileRocketMQInput): readonly string[] =>
  problemsThrownBy(() => compileRocketMQResources(input), RocketMQPluginError);

function secretStatement(resources: Readonly<Record<string, CfnResource>>): unknown {
  const policies = resources[Ids.executionRole]?.Properties.Policies as {
    PolicyDocument: { Statement: { Sid: string; Resource: unknown }[] };
  }[];
  return policies[0]?.PolicyDocument.Statement.find((s) => s.Sid === 'ReadAclSecret')?.Resource;
}

function containerSecrets(resources: Readonly<Record<string, CfnResource>>): unknown {
  const [container] = (resources[Ids.taskDefinition]?.Properties.ContainerDefinitions ?? []) as {
    Secrets?: unknown;
  }[];
  return container?.Secrets;
}

describe("the function's timeout reaches the poller as functionTimeoutMs", () => {
  it('function-level timeout, else provider-level, else the Framework default of 6 s (all-options fixture)', () => {
    const { pollerConfig } = compileRocketMQResources(fixtureInput('all-options'));
    if (pollerConfig === undefined) throw new Error('no poller config');
    const { raw } = checkPollerConfig(pollerConfig);
    const mappings = raw.mappings as { consumerGroup: string; functionTimeoutMs: number }[];
    // orders: timeout 120; payments: provider.timeout 30.
    expect(mappings.map((m) => [m.consumerGroup, m.functionTimeoutMs])).toEqual([
      ['orders-fn', 120_000],
      ['payments-fn', 30_000],
    ]);
    const minimal = compileRocketMQResources(fixtureInput('minimal')).pollerConfig;
    if (minimal === undefined) throw new Error('no poller config');
    expect(checkPollerConfig(minimal).raw.mappings).toMatchObject([{ functionTimeoutMs: 6000 }]);
  });

  it("the poller's own parser takes it (an invoke then counts as failed after 30 s + 10 s, not 15 min)", () => {
    const { pollerConfig } = compileRocketMQResources(
      input(
        {},
        {
          functions: [
            {
              key: 'orders',
              logicalId: 'OrdersLambdaFunction',
              timeoutSeconds: 30,
              events: [{ rocketmq: ORDERS }],
            },
          ],
        },
      ),
    );
    if (pollerConfig === undefined) throw new Error('no poller config');
    const { config, unexpected } = checkPollerConfig(pollerConfig);
    expect(unexpected).toEqual([]);
    expect(config?.mappings[0]).toMatchObject({ functionTimeoutMs: 30_000 });
  });
});

describe('secret ARNs', () => {
  const partial = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq/acl';
  const full = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf';

  it('a partial ARN: the policy names <name>-?????? (what AWS advises), ECS reads the ARN as given (built-image fixture)', () => {
    const { resources } = compileRocketMQResources(fixtureInput('built-image'));
    expect(secretStatement(resources)).toEqual([`${partial}-??????`]);
    expect(containerSecrets(resources)).toEqual([
      { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: `${partial}:accessKey::` },
      { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: `${partial}:secretKey::` },
    ]);
  });

  it('a full ARN (with its random suffix) is used as is (all-options fixture)', () => {
    const { resources } = compileRocketMQResources(fixtureInput('all-options'));
    expect(secretStatement(resources)).toEqual([full]);
  });

  it('an intrinsic may be either: the policy allows both forms', () => {
    expect(checkSecretArn({ Ref: 'AclSecret' })).toEqual({
      ok: true,
      valueFrom: { Ref: 'AclSecret' },
      policyResources: [{ Ref: 'AclSecret' }, { 'Fn::Join': ['', [{ Ref: 'AclSecret' }, '-??????']] }],
    });
  });

  it('a malformed ARN is refused, naming the key', () => {
    for (const secretArn of [
      `${full}:accessKey::`,
      'rocketmq-acl',
      'arn:aws:ssm:eu-west-1:123456789012:parameter/x',
    ]) {
      expect(problemsOf(input({ acl: { secretArn } }))).toEqual([
        `custom.rocketmq.acl.secretArn: must be a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>, without a JSON key), got ${JSON.stringify(secretArn)}`,
      ]);
    }
  });
});

describe('TLS settings', () => {
  it("pass through to the run config's tls (the files are paths in the image)", () => {
    const tls = { caFile: '/app/certs/ca.pem', serverName: 'rocketmq.internal', verifyServer: true };
    const { pollerConfig } = compileRocketMQResources(input({ tls }));
    if (pollerConfig === undefined) throw new Error('no poller config');
    expect(checkPollerConfig(pollerConfig).raw.tls).toEqual(tls);
    const plain = compileRocketMQResources(input({ tls: { serverName: 'rocketmq.internal' } })).pollerConfig;
    if (plain === undefined) throw new Error('no poller config');
    const { config, unexpected } = checkPollerConfig(plain);
    expect(unexpected).toEqual([]);
    expect(config?.tls).toMatchObject({ serverName: 'rocketmq.internal', verifyServer: true });
  });

  it('a client certificate needs its key, and the other way round', () => {
    expect(problemsOf(input({ tls: { certFile: '/app/certs/client.pem' } }))).toEqual([
      'custom.rocketmq.tls.keyFile: required with certFile',
    ]);
  });
});

describe('placeholder values', () => {
  const placeholders = fixtureInput('placeholders');
  const lines = [
    'custom.rocketmq.image: "public.ecr.aws/example/rocketmq-lambda:0.1.0" is a placeholder, not a published image (leave image out for the default)',
    'custom.rocketmq.nameServers: 127.0.0.1:9876 is a loopback address: the poller tasks run in your VPC and cannot reach it (give addresses the VPC reaches)',
    'custom.rocketmq.vpc.subnetIds[0]: "subnet-0123456789abcdef0" looks like a placeholder, not an id from your VPC',
    'custom.rocketmq.vpc.securityGroupIds[0]: "sg-xxxxxxxx" looks like a placeholder, not an id from your VPC',
  ];

  it('are refused outside the stages local and dev, each naming its key', () => {
    expect(problemsOf(placeholders)).toEqual(
      lines.map((line) => `${line} (stage "test"; only local and dev allow it)`),
    );
  });

  it('only warn in the stages local and dev (the example service and `dev` use a local broker)', () => {
    for (const stage of ['dev', 'local']) {
      const compiled = compileRocketMQResources({ ...placeholders, stage });
      expect(compiled.warnings).toEqual(lines.map((line) => `${line} (allowed in stage "${stage}" only)`));
    }
  });

  it('leave real-looking values alone', () => {
    const compiled = compileRocketMQResources(
      input({
        nameServers: ['10.0.0.10:9876', 'rocketmq.internal:9876'],
        image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0',
        vpc: {
          subnetIds: ['subnet-0a1b2c3d', { Ref: 'Subnet' }],
          securityGroupIds: ['sg-0c1d2e3f4a5b69788'],
        },
      }),
    );
    expect(compiled.warnings).toEqual([]);
  });
});
