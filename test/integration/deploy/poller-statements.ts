/**
 * The policy statements every poller task role has, the same from the plugin and from the standalone
 * template (the deploy tests compare the deployed roles with them). None for CloudWatch: the poller's
 * metrics are Embedded Metric Format lines its log driver ships.
 */

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
