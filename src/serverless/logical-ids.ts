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
  pullThroughCacheRule: 'RocketMQPollerPullThroughCacheRule',
  dashboard: 'RocketMQPollerDashboard',
} as const;

/**
 * Logical id prefixes of the alarms, one of each per consumer group ({@link groupLogicalIds} gives the
 * group's part).
 */
export const RocketMQAlarmIdPrefixes = {
  deadLetters: 'RocketMQDeadLettersAlarm',
  messageAge: 'RocketMQMessageAgeAlarm',
  unhealthy: 'RocketMQUnhealthyAlarm',
  cannotConsume: 'RocketMQCannotConsumeAlarm',
} as const;

/** Room left for a group's part after the longest prefix (logical ids are at most 255 characters). */
const GROUP_ID_MAX_LENGTH = 200;

/**
 * The logical id part of each consumer group: its letters and digits in PascalCase (`orders-fn` →
 * `OrdersFn`), so an id stays the same when groups are added or removed. Groups whose parts would be
 * equal (`orders-fn`, `orders_fn`), or that are too long, get a short hash of the full name appended.
 */
export function groupLogicalIds(groups: readonly string[]): ReadonlyMap<string, string> {
  const plain = new Map(groups.map((group) => [group, pascalCase(group)]));
  const uses = new Map<string, number>();
  for (const part of plain.values()) uses.set(part, (uses.get(part) ?? 0) + 1);
  const ids = new Map<string, string>();
  for (const [group, part] of plain) {
    const unique = (uses.get(part) ?? 0) === 1 && part.length > 0 && part.length <= GROUP_ID_MAX_LENGTH;
    ids.set(group, unique ? part : `${part.slice(0, GROUP_ID_MAX_LENGTH)}${fnv1aHex(group)}`);
  }
  return ids;
}

function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** FNV-1a, 32 bits, as 8 hex digits: stable across runs and platforms (not for security). */
function fnv1aHex(text: string): string {
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

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
