/**
 * One infrastructure model, three faces: the Serverless plugin, the CDK constructs and the standalone
 * template give the same resources for the same mapping, the Orders example of docs/deploying.md (topic
 * `Orders`, group `orders-lambda`, batches of up to 100, a 30 s function, two private subnets, one
 * security group, ACL keys from Secrets Manager). Each face's output is normalized (every reference to a
 * poller resource becomes that resource's compiled logical id, every form of the function's ARN one
 * token, CDK's Fn::Join of a token-bearing string an Fn::Sub again) and then compared whole: resource
 * types, properties (IAM actions and resources, scaling, alarms, secrets, the run config), DependsOn,
 * deletion policies.
 */
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_NETWORK } from '../../../infra/cdk/rocketmq-orders-stack.js';
import { RocketMQLogicalIds } from '../../../src/cdk/index.js';
import { compileRocketMQResources } from '../../../src/serverless/compile-rocketmq-resources.js';
import { standaloneTemplate } from '../../../src/serverless/standalone-template.js';
import { synthesizeExample } from '../../support/cdk-example.js';

/** The example mapping as the `rocketmq` event and `custom.rocketmq` of a serverless.yml write it. */
const SERVERLESS_EXAMPLE = {
  custom: {
    nameServers: EXAMPLE_NETWORK.nameServers,
    vpc: {
      subnetIds: [...EXAMPLE_NETWORK.subnetIds],
      securityGroupIds: [EXAMPLE_NETWORK.securityGroupId],
    },
    acl: { secretArn: EXAMPLE_NETWORK.aclSecretArn },
  },
  event: { topic: 'Orders', consumerGroup: 'orders-lambda', batchSize: 100 },
  timeoutSeconds: 30,
};

/** The token every face's reference to the mapped function's ARN becomes. */
const FUNCTION_ARN = '<orders function ARN>';

/** The function's ARN as a stack file gives it (a function outside the template). */
const LITERAL_FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:orders';

interface Resource {
  readonly Type: string;
  readonly Properties?: object;
  readonly DependsOn?: unknown;
  readonly DeletionPolicy?: unknown;
  readonly UpdateReplacePolicy?: unknown;
}

/**
 * `value` with references renamed by `ids` (a face's logical id → the compiled id) and the function's
 * ARN (`functionArn(value)` true) replaced by {@link FUNCTION_ARN}.
 */
function normalized(
  value: unknown,
  ids: ReadonlyMap<string, string>,
  isFunctionArn: (value: unknown) => boolean,
): unknown {
  if (isFunctionArn(value)) return FUNCTION_ARN;
  if (Array.isArray(value)) return value.map((item) => normalized(item, ids, isFunctionArn));
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]?.[0] === 'Ref' && typeof entries[0][1] === 'string')
    return { Ref: ids.get(entries[0][1]) ?? entries[0][1] };
  if (entries.length === 1 && entries[0]?.[0] === 'Fn::Sub' && Array.isArray(entries[0][1]))
    return inlinedSub(entries[0][1] as [string, Record<string, unknown>], ids, isFunctionArn);
  return Object.fromEntries(entries.map(([key, item]) => [key, normalized(item, ids, isFunctionArn)]));
}

/** `resource` without an empty Properties (CDK leaves it out, CloudFormation reads both alike). */
function withoutEmptyProperties(resource: Resource): Resource {
  const { Properties, ...rest } = resource;
  return Properties !== undefined && Object.keys(Properties).length > 0 ? resource : rest;
}

/**
 * An `Fn::Sub` with its variables normalized, and those that became plain strings (the function's ARN
 * given as a literal, or its token) written into the text: `${Function0}` with `Function0: arn` and the
 * ARN in the text are one value.
 */
function inlinedSub(
  [text, variables]: [string, Record<string, unknown>],
  ids: ReadonlyMap<string, string>,
  isFunctionArn: (value: unknown) => boolean,
): unknown {
  let inlined = text;
  const kept: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(variables)) {
    const value = normalized(variable, ids, isFunctionArn);
    if (typeof value === 'string') inlined = inlined.replaceAll(`\${${name}}`, value);
    else kept[name] = value;
  }
  // A face that has the ARN as a literal has it in the text already.
  if (isFunctionArn(LITERAL_FUNCTION_ARN)) inlined = inlined.replaceAll(LITERAL_FUNCTION_ARN, FUNCTION_ARN);
  return { 'Fn::Sub': [inlined, kept] };
}

/** The plugin's face: the compiler's resources for the example service. */
function pluginResources(): Record<string, Resource> {
  const compiled = compileRocketMQResources({
    stage: 'prod',
    custom: SERVERLESS_EXAMPLE.custom,
    functions: [
      {
        key: 'orders',
        logicalId: 'OrdersLambdaFunction',
        timeoutSeconds: SERVERLESS_EXAMPLE.timeoutSeconds,
        events: [{ rocketmq: SERVERLESS_EXAMPLE.event }],
      },
    ],
  });
  const isFunctionArn = (value: unknown): boolean =>
    JSON.stringify(value) === JSON.stringify({ 'Fn::GetAtt': ['OrdersLambdaFunction', 'Arn'] });
  const ids = new Map(Object.keys(compiled.resources).map((id) => [id, id]));
  return Object.fromEntries(
    Object.entries(compiled.resources).map(([id, resource]) => [
      id,
      withoutEmptyProperties(normalized(resource, ids, isFunctionArn) as Resource),
    ]),
  );
}

/**
 * The standalone template's face: `rocketmq-lambda template` of a stack file with the example's values
 * (infra/cloudformation/rocketmq-poller.stack.yml has the same mapping with parameters for the network).
 */
function standaloneResources(): Record<string, Resource> {
  const { template } = standaloneTemplate({
    custom: { rocketmq: SERVERLESS_EXAMPLE.custom },
    functions: {
      orders: {
        arn: LITERAL_FUNCTION_ARN,
        timeout: SERVERLESS_EXAMPLE.timeoutSeconds,
        events: [{ rocketmq: SERVERLESS_EXAMPLE.event }],
      },
    },
  });
  const resources = template.Resources as Record<string, Resource>;
  const ids = new Map(Object.keys(resources).map((id) => [id, id]));
  const isFunctionArn = (value: unknown): boolean => value === LITERAL_FUNCTION_ARN;
  return Object.fromEntries(
    Object.entries(resources).map(([id, resource]) => [
      id,
      withoutEmptyProperties(normalized(resource, ids, isFunctionArn) as Resource),
    ]),
  );
}

/** The CDK face: the example stack's resources that the poller rendered, by compiled id. */
function cdkResources(): Record<string, Resource> {
  const { stack, template } = synthesizeExample();
  const { poller, orders } = stack;
  const ids = new Map(
    poller.compiledIds.map((compiledId) => {
      const resource = poller.resource(compiledId);
      if (resource === undefined) throw new Error(`the poller has no ${compiledId}`);
      return [Stack.of(poller).resolve(resource.logicalId) as string, compiledId];
    }),
  );
  const functionId = Stack.of(orders).resolve(
    (orders.node.defaultChild as import('aws-cdk-lib').CfnResource).logicalId,
  ) as string;
  const isFunctionArn = (value: unknown): boolean =>
    JSON.stringify(value) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] });
  const resources = template.toJSON().Resources as Record<string, Resource>;
  return Object.fromEntries(
    [...ids].map(([logicalId, compiledId]) => {
      const resource = resources[logicalId];
      if (resource === undefined) throw new Error(`the template has no ${logicalId}`);
      const { Metadata: _cdkPath, ...rest } = resource as Resource & { Metadata?: unknown };
      return [compiledId, normalized(rest, ids, isFunctionArn) as Resource];
    }),
  );
}

describe('one model, three faces: the Orders example', { timeout: 60_000 }, () => {
  it('the plugin and the standalone template give the same resources, property for property', () => {
    expect(standaloneResources()).toEqual(pluginResources());
  });

  it('the plugin and the CDK constructs give the same resources, property for property', () => {
    const plugin = pluginResources();
    const cdk = cdkResources();
    expect(Object.keys(cdk).sort()).toEqual(Object.keys(plugin).sort());
    expect(cdk).toEqual(plugin);
    // The comparison covers what the issue names: the service, its roles, scaling, alarms, the secret.
    expect(Object.keys(plugin)).toEqual(
      expect.arrayContaining([
        RocketMQLogicalIds.service,
        RocketMQLogicalIds.executionRole,
        RocketMQLogicalIds.taskRole,
        RocketMQLogicalIds.scalingPolicy,
        RocketMQLogicalIds.dashboard,
      ]),
    );
  });
});
