/**
 * The stack file and the standalone template built from it (src/serverless/standalone-template.ts):
 * parsing with CloudFormation's short forms, the bounds of the file, the problems named by key, list
 * intrinsics for the network, several mappings, ACL keys from SSM.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { CFN_YAML_TAG_NAMES } from '../../../src/serverless/cfn-yaml-tags.js';
import { RocketMQLogicalIds as Ids } from '../../../src/serverless/logical-ids.js';
import {
  parseStackFileText,
  readStackFile,
  renderTemplate,
  standaloneTemplate,
} from '../../../src/serverless/standalone-template.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'stack-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BASE = `
parameters:
  SubnetIds: { Type: 'List<AWS::EC2::Subnet::Id>' }
  OrdersFunctionArn: { Type: String }
custom:
  rocketmq:
    nameServers: '10.0.0.10:9876'
    vpc: { subnetIds: !Ref SubnetIds }
functions:
  orders:
    arn: !Ref OrdersFunctionArn
    timeout: 30
    events:
      - rocketmq: { topic: Orders, consumerGroup: orders-lambda }
`;

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('no ConfigError');
}

function build(text: string) {
  return standaloneTemplate(parseStackFileText(text, 'yaml'));
}

function properties(text: string, id: string): Record<string, unknown> {
  const resource = build(text).template.Resources[id];
  if (resource === undefined) throw new Error(`no ${id}`);
  return resource.Properties as Record<string, unknown>;
}

describe('parsing a stack file', () => {
  it('reads every CloudFormation short form as its long form, on scalars, lists and mappings', () => {
    expect(CFN_YAML_TAG_NAMES).toHaveLength(17);
    const value = parseStackFileText(
      [
        'a: !Ref X',
        'b: !GetAtt Res.Attr.Sub',
        'c: !Split [",", !ImportValue shared-subnets]',
        `d: !Sub ["\${A}-x", { A: !Select [0, !GetAZs ""] }]`,
        'e: !If [Cond, !Join ["", [a, b]], !Base64 { Ref: Z }]',
        'f: !And [!Equals [a, b], !Not [!Condition C], !Or [!Condition D, !Condition E]]',
        'g: !FindInMap [M, K, V]',
        'h: !Cidr [10.0.0.0/16, 4, 8]',
      ].join('\n'),
      'yaml',
    );
    expect(value).toEqual({
      a: { Ref: 'X' },
      b: { 'Fn::GetAtt': ['Res', 'Attr.Sub'] },
      c: { 'Fn::Split': [',', { 'Fn::ImportValue': 'shared-subnets' }] },
      d: { 'Fn::Sub': [`\${A}-x`, { A: { 'Fn::Select': [0, { 'Fn::GetAZs': '' }] } }] },
      e: { 'Fn::If': ['Cond', { 'Fn::Join': ['', ['a', 'b']] }, { 'Fn::Base64': { Ref: 'Z' } }] },
      f: {
        'Fn::And': [
          { 'Fn::Equals': ['a', 'b'] },
          { 'Fn::Not': [{ Condition: 'C' }] },
          { 'Fn::Or': [{ Condition: 'D' }, { Condition: 'E' }] },
        ],
      },
      g: { 'Fn::FindInMap': ['M', 'K', 'V'] },
      h: { 'Fn::Cidr': ['10.0.0.0/16', 4, 8] },
    });
  });

  it('refuses an unknown tag, naming its place', () => {
    expect(problemsOf(() => parseStackFileText('a: !Reff X\n', 'yaml'))).toEqual([
      'line 1, column 4: invalid YAML: an unknown ! tag',
    ]);
  });

  it('reads JSON by the file name, and refuses a file over 1 MiB naming the limit', async () => {
    const json = path.join(dir, 'stack.json');
    await writeFile(json, JSON.stringify({ functions: {} }));
    expect(await readStackFile(json)).toEqual({ functions: {} });
    const big = path.join(dir, 'big.yml');
    await writeFile(big, `a: "${'x'.repeat(1024 * 1024)}"\n`);
    await expect(readStackFile(big)).rejects.toThrow(/1 MiB|1048576|larger than/);
  });

  it('refuses alias bombs, deep nesting and too many tokens or values, naming each limit', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
    ].join('\n');
    expect(problemsOf(() => parseStackFileText(bomb, 'yaml')).join()).toMatch(/more than 100 times/);
    expect(problemsOf(() => parseStackFileText(`${'['.repeat(70)}${']'.repeat(70)}`, 'yaml')).join()).toMatch(
      /more than 64 levels/,
    );
    expect(problemsOf(() => parseStackFileText('- x\n'.repeat(30_000), 'yaml')).join()).toMatch(
      /more than 50000 tokens/,
    );
    expect(problemsOf(() => parseStackFileText(`[${'1,'.repeat(30_000)}1]`, 'json')).join()).toMatch(/25000/);
  });
});

describe('the template of a stack file', () => {
  it('has the parameters, the compiler resources and the three outputs', () => {
    const { template } = build(BASE);
    expect(Object.keys(template.Parameters ?? {})).toEqual(['SubnetIds', 'OrdersFunctionArn']);
    expect(Object.keys(template.Outputs)).toEqual([
      'OffsetsTableName',
      'PollerServiceName',
      'PollerLogGroupName',
    ]);
    expect(template.Resources[Ids.taskDefinition]?.Type).toBe('AWS::ECS::TaskDefinition');
    const yaml = renderTemplate(template, 'yaml', ['top']);
    // Quoted as YAML 1.1 readers (PyYAML: moto, cfn-lint) need, or they read a date.
    expect(yaml.startsWith('# top\nAWSTemplateFormatVersion: "2010-09-09"\n')).toBe(true);
    expect(yaml).toContain('Version: "2012-10-17"');
    expect(yaml).not.toMatch(/[&*]a\d/);
    expect(JSON.parse(renderTemplate(template, 'json'))).toEqual(JSON.parse(JSON.stringify(template)));
  });

  it('takes the subnets and security groups as a Ref to a list parameter or an Fn::Split', () => {
    const split = BASE.replace(
      'vpc: { subnetIds: !Ref SubnetIds }',
      'vpc: { subnetIds: !Ref SubnetIds, securityGroupIds: !Split [",", !Ref Groups] }',
    ).replace('parameters:\n', 'parameters:\n  Groups: { Type: String }\n');
    const network = properties(split, Ids.service).NetworkConfiguration;
    expect(network).toEqual({
      AwsvpcConfiguration: {
        Subnets: { Ref: 'SubnetIds' },
        SecurityGroups: { 'Fn::Split': [',', { Ref: 'Groups' }] },
        AssignPublicIp: 'DISABLED',
      },
    });
    expect(problemsOf(() => build(BASE.replace('!Ref SubnetIds', '!GetAtt Vpc.Subnets')))).toEqual([
      'custom.rocketmq.vpc.subnetIds: must be a list of subnet ids, or one Ref to a list parameter / Fn::Split, got an object',
    ]);
  });

  it('maps several functions, each with its own timeout and alarm threshold; ACL keys from SSM', () => {
    const several = `${BASE.replace(
      "nameServers: '10.0.0.10:9876'",
      "nameServers: '10.0.0.10:9876'\n    acl: { accessKeyParameter: /rocketmq/access-key, secretKeyParameter: /rocketmq/secret-key }",
    )}  audit:
    arn: arn:aws:lambda:eu-west-1:123456789012:function:audit
    timeout: 600
    events:
      - rocketmq: { topic: Audit, consumerGroup: audit-lambda, consumeMode: POP }
      - rocketmq: { topic: Old, consumerGroup: old-lambda, enabled: false }
`;
    const { template } = build(several);
    const config = JSON.stringify(template.Resources[Ids.taskDefinition]);
    expect(config).toContain('orders-lambda');
    expect(config).toContain('audit-lambda');
    expect(config).not.toContain('old-lambda');
    expect(config).toContain('/rocketmq/access-key');
    const threshold = (id: string) =>
      (template.Resources[id]?.Properties as { Threshold?: number } | undefined)?.Threshold;
    expect(threshold('RocketMQMessageAgeAlarmOrdersLambda')).toBe(300);
    expect(threshold('RocketMQMessageAgeAlarmAuditLambda')).toBe(720);
    expect(JSON.stringify(template.Resources[Ids.executionRole])).toContain('ssm:GetParameters');
  });

  it('puts its tags on every resource that takes tags', () => {
    const { template } = build(`tags: { team: orders }\n${BASE}`);
    expect(template.Resources[Ids.offsetsTable]?.Properties.Tags).toEqual([{ Key: 'team', Value: 'orders' }]);
    expect(template.Resources[Ids.dashboard]?.Properties.Tags).toBeUndefined();
  });

  it('names every problem by its key: the stack file, the compiler, references, image builds', () => {
    expect(problemsOf(() => build('functions: {}\n'))).toEqual([
      'custom: required',
      'functions: at least one function',
    ]);
    expect(problemsOf(() => build(BASE.replace('timeout: 30', 'timeout: 901')))).toEqual([
      expect.stringMatching(/^functions\.orders\.timeout: /),
    ]);
    expect(problemsOf(() => build(BASE.replace('- rocketmq:', '- sqs:')))).toEqual([
      'functions.orders.events[0]: must be { rocketmq: { ... } } (a stack file maps only rocketmq events)',
    ]);
    expect(problemsOf(() => build(BASE.replace('topic: Orders, ', '')))).toEqual([
      expect.stringMatching(/^functions\.orders\.events\[0\]\.rocketmq\.topic: /),
    ]);
    expect(problemsOf(() => build(BASE.replace('!Ref OrdersFunctionArn', '!Ref Missing')))).toEqual([
      `Missing: referenced (Ref or \${Missing}) but neither a parameter of parameters nor a resource`,
      'parameters.OrdersFunctionArn: not referenced by any option (remove it, or !Ref it)',
    ]);
    expect(
      problemsOf(() =>
        build(
          BASE.replace(
            "nameServers: '10.0.0.10:9876'",
            "nameServers: '10.0.0.10:9876'\n    image: { build: true }",
          ),
        ),
      ),
    ).toEqual([expect.stringMatching(/^custom\.rocketmq\.image\.build: a standalone template cannot build/)]);
    expect(problemsOf(() => build(BASE.replace('10.0.0.10:9876', '127.0.0.1:9876')))).toEqual([
      expect.stringMatching(/^custom\.rocketmq\.nameServers: 127\.0\.0\.1:9876 is a loopback address/),
    ]);
  });
});
