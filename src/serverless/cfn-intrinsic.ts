/**
 * CloudFormation values as the plugin reads and writes them: literals, and the intrinsic functions a
 * serverless.yml may use where the plugin takes an ARN or a name (`Ref`, `Fn::GetAtt`, `Fn::ImportValue`,
 * `Fn::Sub`, `Fn::Join`).
 */
import { z } from 'zod';

/**
 * A CloudFormation intrinsic function call.
 *
 * @example
 * ```ts
 * const queueArn: CfnIntrinsic = { 'Fn::GetAtt': ['FailuresQueue', 'Arn'] };
 * ```
 */
export type CfnIntrinsic =
  | { readonly Ref: string }
  | { readonly 'Fn::GetAtt': readonly [string, string] | string }
  | { readonly 'Fn::ImportValue': unknown }
  | { readonly 'Fn::Sub': unknown }
  | { readonly 'Fn::Join': unknown };

/**
 * A string, or an intrinsic that yields one at deploy time.
 *
 * @example
 * ```ts
 * const image: CfnString = { 'Fn::Sub': '${AWS::AccountId}.dkr.ecr.${AWS::Region}.amazonaws.com/poller:1' };
 * ```
 */
export type CfnString = string | CfnIntrinsic;

/**
 * An intrinsic that yields a list of strings at deploy time: a `Ref` to a list parameter
 * (`List<AWS::EC2::Subnet::Id>`, `CommaDelimitedList`) or an `Fn::Split`.
 *
 * @example
 * ```ts
 * const subnets: CfnListIntrinsic = { Ref: 'SubnetIds' };
 * ```
 */
export type CfnListIntrinsic = { readonly Ref: string } | { readonly 'Fn::Split': unknown };

/**
 * A list of strings: written out (each a string or an intrinsic), or one intrinsic that yields the list.
 *
 * @example
 * ```ts
 * const subnets: CfnStringList = ['subnet-0a1b2c3d4e5f67890', { Ref: 'SecondSubnet' }];
 * ```
 */
export type CfnStringList = readonly CfnString[] | CfnListIntrinsic;

/**
 * A resource of a template.
 *
 * @example
 * ```ts
 * const cluster: CfnResource = { Type: 'AWS::ECS::Cluster', Properties: {} };
 * ```
 */
export interface CfnResource {
  readonly Type: string;
  readonly Properties: Readonly<Record<string, unknown>>;
  readonly DependsOn?: string | readonly string[];
  readonly DeletionPolicy?: 'Retain' | 'Delete' | 'Snapshot';
  readonly UpdateReplacePolicy?: 'Retain' | 'Delete' | 'Snapshot';
}

/**
 * An output of a template.
 *
 * @example
 * ```ts
 * const output: CfnOutput = { Description: 'The offsets table', Value: { Ref: 'RocketMQOffsetsTable' } };
 * ```
 */
export interface CfnOutput {
  readonly Description: string;
  readonly Value: unknown;
}

/**
 * The zod schema of the intrinsics accepted in place of a string: one key, one of the five functions.
 * Their arguments are CloudFormation's to check.
 */
export const cfnIntrinsicSchema = z.union(
  [
    z.strictObject({ Ref: z.string().min(1) }),
    z.strictObject({
      'Fn::GetAtt': z.union([z.tuple([z.string().min(1), z.string().min(1)]), z.string().min(3)]),
    }),
    z.strictObject({ 'Fn::ImportValue': z.unknown() }),
    z.strictObject({ 'Fn::Sub': z.unknown() }),
    z.strictObject({ 'Fn::Join': z.unknown() }),
  ],
  { error: 'must be a string or one of Ref, Fn::GetAtt, Fn::ImportValue, Fn::Sub, Fn::Join' },
);

/**
 * The zod schema of the intrinsics accepted in place of a list: a `Ref` (to a list parameter) or an
 * `Fn::Split`. Whether the `Ref` names a list parameter is CloudFormation's to check.
 */
export const cfnListIntrinsicSchema = z.union(
  [z.strictObject({ Ref: z.string().min(1) }), z.strictObject({ 'Fn::Split': z.unknown() })],
  { error: 'must be a list, a Ref to a list parameter, or Fn::Split' },
);

/**
 * A list written out, or a list intrinsic ({@link cfnListIntrinsicSchema}): the schema of a key such as
 * `vpc.subnetIds`, whose items are checked by `item`.
 */
export function cfnStringListSchema<Item extends z.ZodType<CfnString>>(item: Item, error: string) {
  return z.union([z.array(item).min(1), cfnListIntrinsicSchema], {
    error: `${error}, or one Ref to a list parameter / Fn::Split`,
  });
}

/**
 * Whether `value` is an intrinsic function call (a one-key object naming `Ref` or an `Fn::` function).
 */
export function isCfnIntrinsic(value: unknown): value is CfnIntrinsic {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || (keys[0]?.startsWith('Fn::') ?? false));
}

/**
 * `Fn::Sub` text for a literal: `${` is written `${!` so CloudFormation leaves it alone.
 */
export function escapeSubText(text: string): string {
  return text.replaceAll('${', '${!');
}

/**
 * An ARN built from the deploying stack's partition, region and account: `arn:<partition>:<service>:<region>:<account>:<resource>`.
 */
export function stackArn(service: string, resource: string): CfnIntrinsic {
  return {
    'Fn::Sub': `arn:\${AWS::Partition}:${service}:\${AWS::Region}:\${AWS::AccountId}:${escapeSubText(resource)}`,
  };
}

/**
 * The values once each, in first-seen order, compared by their JSON: literal strings and equal
 * intrinsics (`{ Ref: 'Queue' }` twice) collapse, so IAM resource lists and role inputs stay short.
 */
export function uniqueByJson<T>(values: readonly T[]): T[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
