/**
 * The policy statements every poller task role has, the same from the plugin and from the standalone
 * template (the deploy tests compare the deployed roles with them).
 */
import { LAG_METRIC } from '../../../src/metrics/lag-metric.js';
import type { PolicyStatement } from './role-policy.js';

/**
 * The lag metric: PutMetricData in the poller's namespace only.
 *
 * @example
 * ```ts
 * expect(statements).toContainEqual(PUBLISH_LAG_METRIC);
 * ```
 */
export const PUBLISH_LAG_METRIC: PolicyStatement = {
  Sid: 'PublishLagMetric',
  Effect: 'Allow',
  Action: 'cloudwatch:PutMetricData',
  Resource: '*',
  Condition: { StringEquals: { 'cloudwatch:namespace': LAG_METRIC.namespace } },
};

/**
 * What the poller does with its offsets table.
 *
 * @example
 * ```ts
 * expect(statement(statements, 'Offsets').Action).toEqual(OFFSETS_ACTIONS);
 * ```
 */
export const OFFSETS_ACTIONS: readonly string[] = [
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:Query',
];
