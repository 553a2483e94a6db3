/**
 * A deployed stack as CloudFormation gives it back: its status and history, outputs and resources (with
 * the entries moto lists for resources it skipped).
 */
import {
  DescribeStackEventsCommand,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  ListStacksCommand,
} from '@aws-sdk/client-cloudformation';
import type { AwsClients } from './aws-clients.js';

/**
 * One resource of a stack as CloudFormation lists it.
 *
 * @example
 * ```ts
 * const resource: StackResource = { logicalId: 'RocketMQOffsetsTable', type: 'AWS::DynamoDB::Table', physicalId: 'stack-RocketMQOffsetsTable-X' };
 * ```
 */
export interface StackResource {
  readonly logicalId: string;
  readonly type: string;
  readonly physicalId: string | undefined;
}

/**
 * A stack as DescribeStacks and DescribeStackResources give it.
 *
 * @example
 * ```ts
 * const stack = await describeStack(aws, 'rocketmq-lambda-example-e2e');
 * stack.resource('RocketMQOffsetsTable').physicalId;
 * ```
 */
export interface DeployedStack {
  readonly name: string;
  readonly status: string | undefined;
  /** The statuses the stack itself went through, oldest first (its own events). */
  readonly history: readonly string[];
  readonly outputs: Readonly<Record<string, string>>;
  /** The resources listed with a logical id. */
  readonly resources: readonly StackResource[];
  /**
   * Entries listed without logical id or type: moto lists a resource it skipped (a type its CloudFormation
   * does not implement) this way.
   */
  readonly unnamedEntries: number;
  /** The resource `logicalId`; throws when the stack lists none. */
  resource(logicalId: string): StackResource & { readonly physicalId: string };
}

/**
 * Reads stack `name` back.
 *
 * @example
 * ```ts
 * const { status } = await describeStack(aws, 'standalone'); // => 'CREATE_COMPLETE'
 * ```
 */
export async function describeStack(aws: AwsClients, name: string): Promise<DeployedStack> {
  const { Stacks = [] } = await aws.cloudformation.send(new DescribeStacksCommand({ StackName: name }));
  const [stack] = Stacks;
  const { StackResources = [] } = await aws.cloudformation.send(
    new DescribeStackResourcesCommand({ StackName: name }),
  );
  const resources: StackResource[] = [];
  let unnamedEntries = 0;
  for (const entry of StackResources) {
    if (entry.LogicalResourceId === undefined || entry.ResourceType === undefined) unnamedEntries++;
    else
      resources.push({
        logicalId: entry.LogicalResourceId,
        type: entry.ResourceType,
        physicalId: entry.PhysicalResourceId,
      });
  }
  const { StackEvents = [] } = await aws.cloudformation.send(
    new DescribeStackEventsCommand({ StackName: name }),
  );
  const history = StackEvents.filter((event) => event.ResourceType === 'AWS::CloudFormation::Stack')
    .flatMap((event) => (event.ResourceStatus === undefined ? [] : [event.ResourceStatus]))
    .reverse();
  const outputs: Record<string, string> = {};
  for (const output of stack?.Outputs ?? []) {
    if (output.OutputKey !== undefined && output.OutputValue !== undefined)
      outputs[output.OutputKey] = output.OutputValue;
  }
  return {
    name,
    status: stack?.StackStatus,
    history,
    outputs,
    resources,
    unnamedEntries,
    resource(logicalId) {
      const found = resources.find((r) => r.logicalId === logicalId);
      if (found?.physicalId === undefined) {
        throw new Error(`stack ${name} lists no ${logicalId} with a physical id`);
      }
      return { ...found, physicalId: found.physicalId };
    },
  };
}

/**
 * The status of the newest stack named `name`, deleted ones included (ListStacks keeps them; DescribeStacks
 * by name answers only for live ones); undefined when there never was one.
 *
 * @example
 * ```ts
 * await stackStatus(aws, 'rocketmq-lambda-example-e2e'); // => 'DELETE_COMPLETE' after `serverless remove`
 * ```
 */
export async function stackStatus(aws: AwsClients, name: string): Promise<string | undefined> {
  const { StackSummaries = [] } = await aws.cloudformation.send(new ListStacksCommand({}));
  const newest = StackSummaries.filter((summary) => summary.StackName === name).sort(
    (a, b) => (b.CreationTime?.getTime() ?? 0) - (a.CreationTime?.getTime() ?? 0),
  )[0];
  return newest?.StackStatus;
}
