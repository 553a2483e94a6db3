/**
 * The standalone CloudFormation template: a whole template built by the plugin's compiler
 * (compileRocketMQResources) from a "stack file", for deploying the poller without the Serverless
 * Framework or the CDK. The three faces then produce the same resources for the same mappings.
 *
 * A stack file (YAML with CloudFormation's short forms, or JSON) holds what a serverless.yml would:
 *
 * ```yaml
 * description: RocketMQ poller for the orders service
 * parameters:                     # the template's Parameters, as CloudFormation takes them
 *   SubnetIds: { Type: 'List<AWS::EC2::Subnet::Id>' }
 *   OrdersFunctionArn: { Type: String }
 * tags: { team: orders }          # on every resource that takes tags
 * custom:
 *   rocketmq:                     # the options of custom.rocketmq
 *     nameServers: '10.0.0.10:9876'
 *     vpc: { subnetIds: !Ref SubnetIds }
 * functions:                      # the functions, given by ARN, with their timeouts and events
 *   orders:
 *     arn: !Ref OrdersFunctionArn
 *     timeout: 30
 *     events:
 *       - rocketmq: { topic: Orders, consumerGroup: orders-lambda }
 * ```
 *
 * Problems (of the stack file, and the compiler's, which name the same keys) are one
 * {@link ConfigError} listing them all.
 */
import path from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';
import { readConfigFileText } from '../config/config-file-text.js';
import { problemLine } from '../config/config-problem.js';
import { parseJsonConfigText, parseYamlConfigText } from '../config/config-syntax.js';
import { type CfnOutput, type CfnResource, cfnIntrinsicSchema } from './cfn-intrinsic.js';
import { cfnYamlTags } from './cfn-yaml-tags.js';
import { compileRocketMQResources, type RocketMQFunctionInput } from './compile-rocketmq-resources.js';
import { RocketMQOutputIds } from './logical-ids.js';
import { RocketMQPluginError } from './plugin-error.js';
import { validateWith } from './schema-problems.js';

/**
 * The stage the compiler is told: not a tolerant one, so placeholder values (example subnet ids, a
 * loopback name server) are refused.
 */
export const STANDALONE_STAGE = 'standalone';

/** CloudFormation's limit of parameters per template. */
export const MAX_STACK_PARAMETERS = 200;
/** The most tags a resource may have (AWS's limit per resource). */
export const MAX_STACK_TAGS = 50;
/** The longest timeout a Lambda function may have, in seconds. */
export const MAX_FUNCTION_TIMEOUT_SECONDS = 900;
/** The most functions a stack file may map (a poller config of 100 mappings is about 100 KB). */
export const MAX_STACK_FUNCTIONS = 100;
/** The longest template description CloudFormation takes. */
const MAX_DESCRIPTION_CHARS = 1024;

/** The outputs of the standalone template, under their names there. */
export const STANDALONE_OUTPUTS: Readonly<Record<string, string>> = {
  [RocketMQOutputIds.offsetsTableName]: 'OffsetsTableName',
  [RocketMQOutputIds.pollerServiceName]: 'PollerServiceName',
  [RocketMQOutputIds.pollerLogGroupName]: 'PollerLogGroupName',
};

/** The resource types that take `Tags` as a list of `{ Key, Value }`. */
const TAGGABLE_TYPES: ReadonlySet<string> = new Set([
  'AWS::DynamoDB::Table',
  'AWS::ECS::Cluster',
  'AWS::ECS::Service',
  'AWS::ECS::TaskDefinition',
  'AWS::ECR::Repository',
  'AWS::IAM::Role',
  'AWS::Logs::LogGroup',
  'AWS::CloudWatch::Alarm',
]);

const DEFAULT_DESCRIPTION =
  'rocketmq-lambda: a poller service turning RocketMQ topics into Lambda invocations';

/** A logical id: letters and digits (CloudFormation's rule for parameter and condition names). */
const logicalName = z.string().regex(/^[A-Za-z0-9]{1,255}$/, { error: 'must be letters and digits only' });

const stackFunctionSchema = z.strictObject({
  arn: z.union([z.string().trim().min(1), cfnIntrinsicSchema], {
    error: 'must be a Lambda function ARN, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join',
  }),
  invokeArn: z
    .union([z.string().trim().min(1), cfnIntrinsicSchema], {
      error: 'must be a qualified function ARN (alias or version), or an intrinsic',
    })
    .optional(),
  timeout: z
    .number({ error: 'must be the function timeout in seconds (the poller lets one invoke run this long)' })
    .int()
    .min(1)
    .max(MAX_FUNCTION_TIMEOUT_SECONDS),
  events: z.array(z.unknown()).min(1),
});

/**
 * The schema of a stack file (the `rocketmq` events and `custom.rocketmq` are the compiler's to check).
 */
export const stackFileSchema = z.strictObject({
  description: z.string().trim().min(1).max(MAX_DESCRIPTION_CHARS).optional(),
  parameters: z
    .record(logicalName, z.looseObject({ Type: z.string().min(1) }))
    .refine((value) => Object.keys(value).length <= MAX_STACK_PARAMETERS, {
      error: `at most ${MAX_STACK_PARAMETERS} parameters (CloudFormation's limit)`,
    })
    .optional(),
  conditions: z.record(logicalName, z.unknown()).optional(),
  tags: z
    .record(
      z
        .string()
        .min(1)
        .max(128)
        .refine((key) => !key.startsWith('aws:'), { error: 'the aws: prefix is reserved' }),
      z.string().max(256),
    )
    .refine((value) => Object.keys(value).length <= MAX_STACK_TAGS, {
      error: `at most ${MAX_STACK_TAGS} tags (AWS's limit per resource)`,
    })
    .optional(),
  custom: z.strictObject({ rocketmq: z.unknown() }),
  functions: z
    .record(
      z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be letters, digits, - or _' }),
      stackFunctionSchema,
    )
    .refine((value) => Object.keys(value).length >= 1, { error: 'at least one function' })
    .refine((value) => Object.keys(value).length <= MAX_STACK_FUNCTIONS, {
      error: `at most ${MAX_STACK_FUNCTIONS} functions`,
    }),
});

/** A stack file as {@link stackFileSchema} accepts it. */
export type StackFile = z.output<typeof stackFileSchema>;

/** A whole CloudFormation template. */
export interface CfnTemplateDocument {
  readonly AWSTemplateFormatVersion: '2010-09-09';
  readonly Description: string;
  readonly Parameters?: Readonly<Record<string, unknown>>;
  readonly Conditions?: Readonly<Record<string, unknown>>;
  readonly Resources: Readonly<Record<string, CfnResource>>;
  readonly Outputs: Readonly<Record<string, CfnOutput>>;
}

/** What {@link standaloneTemplate} built. */
export interface StandaloneTemplate {
  readonly template: CfnTemplateDocument;
  /** The compiler's warnings (scaling decisions and the like), one line each. */
  readonly warnings: readonly string[];
}

/**
 * Reads a stack file: JSON when its name ends in `.json`, else YAML with CloudFormation's short forms.
 * Bounded as every config is: {@link MAX_CONFIG_BYTES} (1 MiB), 100 alias expansions, 64 levels,
 * 50,000 YAML tokens or 25,000 JSON values. Throws {@link ConfigError} naming the limit or the place.
 *
 * @example
 * ```ts
 * const stack = await readStackFile('infra/cloudformation/rocketmq-poller.stack.yml');
 * ```
 */
export async function readStackFile(file: string): Promise<unknown> {
  const options = { source: file, label: '(stack file)' };
  const text = await readConfigFileText(file, options);
  return parseStackFileText(text, /\.json$/i.test(file) ? 'json' : 'yaml', options);
}

/**
 * Parses the text of a stack file (see {@link readStackFile}; the caller keeps to the size limit).
 */
export function parseStackFileText(
  text: string,
  format: 'yaml' | 'json',
  options: { source?: string; label?: string } = {},
): unknown {
  const syntax = { label: '(stack file)', ...options };
  return format === 'json'
    ? parseJsonConfigText(text, syntax)
    : parseYamlConfigText(text, { ...syntax, customTags: cfnYamlTags() });
}

/**
 * The template of a stack file (as read by {@link readStackFile}): its parameters and conditions, the
 * compiler's resources (tagged with its `tags`) and the outputs `OffsetsTableName`, `PollerServiceName`
 * and `PollerLogGroupName`. Throws {@link ConfigError} listing every problem, each naming its key.
 *
 * @example
 * ```ts
 * const { template } = standaloneTemplate(await readStackFile('rocketmq-poller.stack.yml'));
 * ```
 */
export function standaloneTemplate(
  stackFile: unknown,
  options: { source?: string } = {},
): StandaloneTemplate {
  const refuse = (problems: readonly string[]) => new ConfigError(problems, { source: options.source });
  const checked = validateWith(stackFileSchema, stackFile, []);
  if (!checked.ok) throw refuse(checked.problems);
  const stack = checked.value;

  const problems: string[] = [];
  const functions: RocketMQFunctionInput[] = Object.entries(stack.functions).map(([key, fn]) => {
    fn.events.forEach((event, index) => {
      if (typeof event !== 'object' || event === null || Object.keys(event).join() !== 'rocketmq') {
        problems.push(
          problemLine({
            path: ['functions', key, 'events', index],
            message: 'must be { rocketmq: { ... } } (a stack file maps only rocketmq events)',
          }),
        );
      }
    });
    return { key, arn: fn.arn, invokeArn: fn.invokeArn, timeoutSeconds: fn.timeout, events: fn.events };
  });
  if (problems.length > 0) throw refuse(problems);

  let compiled: ReturnType<typeof compileRocketMQResources>;
  try {
    compiled = compileRocketMQResources({
      functions,
      custom: stack.custom.rocketmq,
      stage: STANDALONE_STAGE,
    });
  } catch (error) {
    if (error instanceof RocketMQPluginError) throw refuse(error.problems);
    throw error;
  }
  if (compiled.imageBuild !== undefined) {
    throw refuse([
      problemLine({
        path: ['custom', 'rocketmq', 'image', 'build'],
        message:
          'a standalone template cannot build an image (nothing runs Docker at deploy): give an image URI, or leave image out for the published one',
      }),
    ]);
  }

  const resources = tagged(compiled.resources, stack.tags);
  const outputs: Record<string, CfnOutput> = {};
  for (const [id, output] of Object.entries(compiled.outputs)) outputs[STANDALONE_OUTPUTS[id] ?? id] = output;
  const parameters = stack.parameters ?? {};
  const conditions = stack.conditions ?? {};
  problems.push(...referenceProblems({ resources, outputs, conditions }, parameters));
  if (problems.length > 0) throw refuse(problems);

  return {
    template: {
      AWSTemplateFormatVersion: '2010-09-09',
      Description: stack.description ?? DEFAULT_DESCRIPTION,
      ...(Object.keys(parameters).length > 0 ? { Parameters: parameters } : {}),
      ...(Object.keys(conditions).length > 0 ? { Conditions: conditions } : {}),
      Resources: resources,
      Outputs: outputs,
    },
    warnings: compiled.warnings,
  };
}

/**
 * The template as text: YAML (long forms, `Fn::Sub:`; no anchors; `header` lines as `#` comments on
 * top) or JSON (two-space indent).
 *
 * @example
 * ```ts
 * writeFileSync('rocketmq-poller.yml', renderTemplate(template, 'yaml', ['Generated: do not edit']));
 * ```
 */
export function renderTemplate(
  template: CfnTemplateDocument,
  format: 'yaml' | 'json',
  header: readonly string[] = [],
): string {
  if (format === 'json') return `${JSON.stringify(template, null, 2)}\n`;
  const comment = header.map((line) => (line === '' ? '#' : `# ${line}`)).join('\n');
  // YAML 1.1 rules for quoting: a string that a 1.1 reader (PyYAML: moto, cfn-lint) would take for a
  // date, a boolean or a number (`Version: 2012-10-17`, `on`) is quoted.
  const body = stringify(template, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
  return header.length > 0 ? `${comment}\n${body}` : body;
}

/** The format a file name implies: `.json` is JSON, anything else YAML. */
export function templateFormatOf(file: string): 'yaml' | 'json' {
  return path.extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

/** The resources, the taggable ones with `tags` added to the tags they have. */
function tagged(
  resources: Readonly<Record<string, CfnResource>>,
  tags: Readonly<Record<string, string>> | undefined,
): Record<string, CfnResource> {
  const entries = Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
  if (entries.length === 0) return { ...resources };
  return Object.fromEntries(
    Object.entries(resources).map(([id, resource]) => {
      if (!TAGGABLE_TYPES.has(resource.Type)) return [id, resource];
      const own = Array.isArray(resource.Properties.Tags) ? (resource.Properties.Tags as unknown[]) : [];
      return [id, { ...resource, Properties: { ...resource.Properties, Tags: [...own, ...entries] } }];
    }),
  );
}

/**
 * Every `Ref` (and `${Name}` of an `Fn::Sub`) names a parameter, a resource
 * or a pseudo parameter; every parameter is used (CloudFormation deploys an unused one, cfn-lint warns).
 */
function referenceProblems(
  template: { resources: object; outputs: object; conditions: object },
  parameters: Readonly<Record<string, unknown>>,
): string[] {
  const names = new Set<string>();
  const pending: unknown[] = [template];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'Ref' && typeof value === 'string') names.add(value);
      if (key === 'Fn::Sub') {
        const text = Array.isArray(value) ? value[0] : value;
        const variables =
          Array.isArray(value) && typeof value[1] === 'object' ? Object.keys(value[1] ?? {}) : [];
        if (typeof text === 'string') {
          for (const match of text.matchAll(/\$\{([^!}][^}]*)\}/g)) {
            const name = (match[1] as string).split('.')[0] as string;
            if (!variables.includes(name)) names.add(name);
          }
        }
      }
      pending.push(value);
    }
  }
  const resources = new Set(Object.keys(template.resources));
  const problems: string[] = [];
  for (const name of [...names].sort()) {
    if (name.startsWith('AWS::') || resources.has(name) || Object.hasOwn(parameters, name)) continue;
    problems.push(
      `${name}: referenced (Ref or \${${name}}) but neither a parameter of parameters nor a resource`,
    );
  }
  for (const name of Object.keys(parameters)) {
    if (!names.has(name)) {
      problems.push(
        problemLine({
          path: ['parameters', name],
          message: 'not referenced by any option (remove it, or !Ref it)',
        }),
      );
    }
  }
  return problems;
}
