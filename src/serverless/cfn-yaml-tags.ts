/**
 * CloudFormation's YAML short forms (`!Ref Name`, `!Sub '...'`, `!GetAtt Res.Attr`, `!Split [',', ...]`)
 * as tags of the `yaml` package, each read as the long form it stands for (`{ Ref: 'Name' }`,
 * `{ 'Fn::GetAtt': ['Res', 'Attr'] }`), so a stack file can be written as a CloudFormation template is.
 * Each tag is read on a scalar, a list or a mapping alike; whether the arguments fit the function is
 * CloudFormation's (and the compiler's schemas') to say. A tagged list or mapping stays a node of the
 * document, so aliases inside it are expanded (and counted) as everywhere else.
 */
import { Pair, Scalar, type Tags, YAMLMap } from 'yaml';

/**
 * Every short form and the function it stands for, in the order CloudFormation's documentation lists
 * the intrinsic functions.
 */
export const CFN_SHORT_FORMS: Readonly<Record<string, string>> = {
  '!Base64': 'Fn::Base64',
  '!Cidr': 'Fn::Cidr',
  '!FindInMap': 'Fn::FindInMap',
  '!GetAtt': 'Fn::GetAtt',
  '!GetAZs': 'Fn::GetAZs',
  '!ImportValue': 'Fn::ImportValue',
  '!Join': 'Fn::Join',
  '!Select': 'Fn::Select',
  '!Split': 'Fn::Split',
  '!Sub': 'Fn::Sub',
  '!And': 'Fn::And',
  '!Equals': 'Fn::Equals',
  '!If': 'Fn::If',
  '!Not': 'Fn::Not',
  '!Or': 'Fn::Or',
  '!Condition': 'Condition',
  '!Ref': 'Ref',
};

/** The short-form tags, as written in YAML (`!Ref`, `!Sub`, ...). */
export const CFN_YAML_TAG_NAMES: readonly string[] = Object.keys(CFN_SHORT_FORMS);

/**
 * The tags for the `yaml` package's `customTags` option (parse options, or the config parser's
 * `customTags`).
 *
 * @example
 * ```ts
 * parseYamlConfigText('subnets: !Ref SubnetIds', { customTags: cfnYamlTags() }); // => { subnets: { Ref: 'SubnetIds' } }
 * ```
 */
export function cfnYamlTags(): Tags {
  return Object.entries(CFN_SHORT_FORMS).flatMap(([tag, longForm]) => [
    {
      tag,
      resolve: (text: string): unknown => ({
        [longForm]: longForm === 'Fn::GetAtt' ? getAttParts(text) : text,
      }),
    },
    ...(['seq', 'map'] as const).map((collection) => ({
      tag,
      collection,
      resolve: (node: unknown): unknown => {
        const wrapped = new YAMLMap();
        wrapped.items.push(new Pair(new Scalar(longForm), node));
        return wrapped;
      },
    })),
  ]);
}

/** `!GetAtt Resource.Attribute`: the resource, then the attribute (which may hold dots). */
function getAttParts(text: string): string[] {
  const dot = text.indexOf('.');
  return dot < 0 ? [text] : [text.slice(0, dot), text.slice(dot + 1)];
}
