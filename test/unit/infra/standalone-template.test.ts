/**
 * The standalone template (infra/cloudformation/rocketmq-poller.yml) is generated from the example stack
 * file (rocketmq-poller.stack.yml) by the plugin's compiler: these tests keep the committed file equal to
 * a fresh generation, and evaluate it as CloudFormation would for a set of parameters, feeding the
 * container's ROCKETMQ_LAMBDA_CONFIG to the poller's own config parser.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../src/config/load-config.js';
import { RocketMQLogicalIds as Ids } from '../../../src/serverless/logical-ids.js';
import { publishedImage } from '../../../src/serverless/published-image.js';
import { generatedTemplateText, STANDALONE_TEMPLATE_PATH } from '../../support/standalone-template-file.js';
import { CfnEvaluator, type CfnTemplate, parseCfnTemplate, TEST_PSEUDO_PARAMETERS } from './cfn-evaluate.js';

const TEXT = readFileSync(STANDALONE_TEMPLATE_PATH, 'utf8');
const template: CfnTemplate = parseCfnTemplate(TEXT);
const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:orders-handler';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl';
const PARAMETERS = {
  OrdersFunctionArn: FUNCTION_ARN,
  SubnetIds: 'subnet-0a1b2c3d4e5f67890,subnet-0f3e2d1c4b5a69788',
  SecurityGroupIds: 'sg-0c1d2e3f4a5b69788',
  AclSecretArn: SECRET_ARN,
};

const containerSchema = z.looseObject({
  Name: z.string(),
  Image: z.string(),
  ReadonlyRootFilesystem: z.boolean(),
  Environment: z.array(z.object({ Name: z.string(), Value: z.string() })),
  Secrets: z.array(z.object({ Name: z.string(), ValueFrom: z.string() })),
});

describe('infra/cloudformation/rocketmq-poller.yml', () => {
  it('is what npm run template:standalone generates from rocketmq-poller.stack.yml (run it after a change)', () => {
    expect(TEXT).toBe(generatedTemplateText());
  });

  it('has the parameters a deploy fills in, the outputs, and the compiler resources', () => {
    expect(Object.keys(template.Parameters)).toEqual([
      'OrdersFunctionArn',
      'SubnetIds',
      'SecurityGroupIds',
      'AclSecretArn',
    ]);
    expect(template.Parameters.SubnetIds).toMatchObject({ Type: 'List<AWS::EC2::Subnet::Id>' });
    expect(Object.keys(template.Resources).sort()).toEqual(
      [
        Ids.offsetsTable,
        Ids.cluster,
        Ids.logGroup,
        Ids.executionRole,
        Ids.taskRole,
        Ids.taskDefinition,
        Ids.service,
        Ids.scalableTarget,
        Ids.scalingPolicy,
        Ids.dashboard,
        'RocketMQDeadLettersAlarmOrdersLambda',
        'RocketMQMessageAgeAlarmOrdersLambda',
        'RocketMQUnhealthyAlarmOrdersLambda',
        'RocketMQCannotConsumeAlarmOrdersLambda',
      ].sort(),
    );
    const outputs = z.record(z.string(), z.unknown()).parse(parseCfnOutputs(TEXT));
    expect(Object.keys(outputs)).toEqual(['OffsetsTableName', 'PollerServiceName', 'PollerLogGroupName']);
  });

  it('evaluated for a deploy: the poller accepts its config; read-only root, ACL from the secret, published image', () => {
    const evaluator = new CfnEvaluator(template, { parameters: PARAMETERS });
    const [container] = z
      .array(containerSchema)
      .parse(evaluator.evaluateAt('Resources', Ids.taskDefinition, 'Properties', 'ContainerDefinitions'));
    if (container === undefined) throw new Error('no container');
    expect(container.Image).toBe(publishedImage());
    expect(container.ReadonlyRootFilesystem).toBe(true);
    expect(container.Secrets).toEqual([
      { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: `${SECRET_ARN}:accessKey::` },
      { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: `${SECRET_ARN}:secretKey::` },
    ]);
    const env: Record<string, string> = {};
    for (const { Name, Value } of container.Environment) env[Name] = Value;
    for (const { Name, ValueFrom } of container.Secrets) env[Name] = `<${ValueFrom}>`;
    const config = parseConfig(JSON.parse(env.ROCKETMQ_LAMBDA_CONFIG ?? ''), { baseDir: '/app', env });
    expect(config.nameServerAddresses).toEqual(['10.0.0.10:9876', '10.0.0.11:9876']);
    expect(config.mappings).toMatchObject([
      {
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
        batchSize: 100,
        functionRef: FUNCTION_ARN,
        functionTimeoutMs: 30_000,
      },
    ]);
    expect(env.AWS_REGION).toBe(TEST_PSEUDO_PARAMETERS['AWS::Region']);
    const service = evaluator.evaluateAt('Resources', Ids.service, 'Properties', 'NetworkConfiguration');
    expect(service).toMatchObject({
      AwsvpcConfiguration: {
        Subnets: ['subnet-0a1b2c3d4e5f67890', 'subnet-0f3e2d1c4b5a69788'],
        SecurityGroups: ['sg-0c1d2e3f4a5b69788'],
      },
    });
  });

  it('grants no ECR pull for the published image (ghcr.io), and the alarm threshold comes from the function timeout', () => {
    expect(TEXT).not.toMatch(/ecr:/);
    expect(TEXT).not.toMatch(/Resource: "?\*"?$/m);
    const age = z
      .object({ Properties: z.object({ Threshold: z.number() }) })
      .parse(template.Resources.RocketMQMessageAgeAlarmOrdersLambda);
    // 30 s timeout + 0.5 s window: under the 300 s floor.
    expect(age.Properties.Threshold).toBe(300);
  });
});

/** The Outputs section (the evaluator's template type has none). */
function parseCfnOutputs(text: string): unknown {
  const at = text.indexOf('\nOutputs:\n');
  if (at < 0) throw new Error('the template has no Outputs');
  const names = [...text.slice(at).matchAll(/^ {2}([A-Za-z0-9]+):$/gm)].map((match) => match[1] as string);
  return Object.fromEntries(names.map((name) => [name, true]));
}
