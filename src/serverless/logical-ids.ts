/**
 * The logical ids of everything the plugin adds to a stack. One place, so tests, outputs and references
 * agree; all start with `RocketMQ` to stay clear of the framework's own names.
 */

/**
 * Logical ids of the plugin's resources.
 *
 * @example
 * ```ts
 * template.Resources[RocketMQLogicalIds.offsetsTable].Type; // => 'AWS::DynamoDB::Table'
 * ```
 */
export const RocketMQLogicalIds = {
  offsetsTable: 'RocketMQOffsetsTable',
  cluster: 'RocketMQPollerCluster',
  logGroup: 'RocketMQPollerLogGroup',
  executionRole: 'RocketMQPollerExecutionRole',
  taskRole: 'RocketMQPollerTaskRole',
  taskDefinition: 'RocketMQPollerTaskDefinition',
  service: 'RocketMQPollerService',
  scalableTarget: 'RocketMQPollerScalableTarget',
  scalingPolicy: 'RocketMQPollerLagScalingPolicy',
  imageRepository: 'RocketMQPollerImageRepository',
} as const;

/**
 * Logical ids of the plugin's outputs.
 *
 * @example
 * ```ts
 * template.Outputs[RocketMQOutputIds.offsetsTableName].Value; // => { Ref: 'RocketMQOffsetsTable' }
 * ```
 */
export const RocketMQOutputIds = {
  offsetsTableName: 'RocketMQOffsetsTableName',
  pollerServiceName: 'RocketMQPollerServiceName',
  pollerLogGroupName: 'RocketMQPollerLogGroupName',
} as const;

/** The name of the poller's container in the task definition. */
export const POLLER_CONTAINER_NAME = 'poller';
