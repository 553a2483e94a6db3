/**
 * cfn-lint on standalone templates: the committed one (infra/cloudformation/rocketmq-poller.yml) and one
 * generated from a stack file with every kind of option the standalone template adds or passes through
 * (several mappings, one disabled, POP, ACL keys from SSM with a KMS key, TLS material from secrets,
 * an image in a private ECR repository, list parameters for the network, tags): 0 errors,
 * 0 warnings, as for the plugin's templates (serverless-package.test.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseStackFileText,
  renderTemplate,
  standaloneTemplate,
} from '../../../src/serverless/standalone-template.js';
import { cfnLint, formatFindings } from '../../support/cfn-lint.js';
import { STANDALONE_TEMPLATE_PATH } from '../../support/standalone-template-file.js';

const RICH_STACK = `
description: Every option kind of a stack file
parameters:
  SubnetIds: { Type: 'List<AWS::EC2::Subnet::Id>' }
  SecurityGroups: { Type: CommaDelimitedList }
  OrdersFunctionArn: { Type: String }
  AlarmTopicArn: { Type: String }
tags:
  team: orders
  cost-center: '4711'
custom:
  rocketmq:
    nameServers: 'rocketmq-ns.internal:9876'
    image: 123456789012.dkr.ecr.eu-west-1.amazonaws.com/platform/rocketmq-lambda:0.1.0
    vpc:
      subnetIds: !Ref SubnetIds
      securityGroupIds: !Split [',', !Join [',', !Ref SecurityGroups]]
    acl:
      accessKeyParameter: /rocketmq/access-key
      secretKeyParameter: /rocketmq/secret-key
      kmsKeyArn: arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab
    tls:
      serverName: rocketmq.internal
      caSecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-tls-AbCdEf:ca
      certSecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-tls-AbCdEf:cert
      keySecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-tls-AbCdEf:key
      keyPassphraseSecret: /rocketmq/tls/key-passphrase
    alarms:
      topicArn: !Ref AlarmTopicArn
functions:
  orders:
    arn: !Ref OrdersFunctionArn
    timeout: 30
    events:
      - rocketmq: { topic: Orders, consumerGroup: orders-lambda, batchSize: 100 }
  audit:
    arn: arn:aws:lambda:eu-west-1:123456789012:function:audit
    invokeArn: arn:aws:lambda:eu-west-1:123456789012:function:audit:live
    timeout: 600
    events:
      - rocketmq: { topic: Audit, consumerGroup: audit-lambda, consumeMode: POP }
      - rocketmq: { topic: Old, consumerGroup: old-lambda, enabled: false }
`;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'standalone-lint-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cfn-lint on standalone templates', () => {
  it('passes the committed template and a template of every option kind, YAML and JSON', async () => {
    const { template } = standaloneTemplate(parseStackFileText(RICH_STACK, 'yaml'));
    const yaml = path.join(dir, 'rich.yml');
    const json = path.join(dir, 'rich.json');
    await writeFile(yaml, renderTemplate(template, 'yaml'));
    await writeFile(json, renderTemplate(template, 'json'));
    const findings = await cfnLint([STANDALONE_TEMPLATE_PATH, yaml, json]);
    expect(findings, formatFindings(findings)).toEqual([]);
  }, 180_000);
});
