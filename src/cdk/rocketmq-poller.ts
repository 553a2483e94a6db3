/**
 * The poller of a CDK stack: one ECS service that runs every RocketMQ mapping of the stack, with its
 * offsets table, roles, scaling, alarms and dashboard. It does not describe any of them itself: it hands
 * its props and its mappings to the plugin's compiler (src/serverless/compile-rocketmq-resources.ts), the
 * same one `serverless package` and `rocketmq-lambda template` use, and renders what comes out as L1
 * resources (compiled-resources.ts). So the three ways in deploy the same resources for the same mapping.
 *
 * ```ts
 * const poller = new RocketMQPoller(this, 'Poller', { nameServers: '10.0.0.10:9876', vpc });
 * fn.addEventSource(new RocketMQEventSource({ poller, topic: 'Orders', consumerGroup: 'orders-fn' }));
 * ```
 *
 * The keys that are not CDK objects are `custom.rocketmq`'s own (rocketmq-custom-schema.ts): same names,
 * same defaults, same checks.
 */
import { type Duration, Names, Stack, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import type { z } from 'zod';
import type { CfnIntrinsic, CfnString } from '../serverless/cfn-intrinsic.js';
import { type CompiledRocketMQ, compileRocketMQResources } from '../serverless/compile-rocketmq-resources.js';
import { RocketMQLogicalIds as Ids } from '../serverless/logical-ids.js';
import { placeholderFindings } from '../serverless/placeholder-values.js';
import { RocketMQPluginError } from '../serverless/plugin-error.js';
import { rocketmqCustomSchema } from '../serverless/rocketmq-custom-schema.js';
import { customRuleProblems, validateWith } from '../serverless/schema-problems.js';
import { CompiledResources } from './compiled-resources.js';
import { cdkProblems } from './construct-problems.js';
import { TokenPlaceholders } from './token-placeholders.js';

type CustomInput = z.input<typeof rocketmqCustomSchema>;
type TlsSettingsInput = Exclude<NonNullable<CustomInput['tls']>, boolean>;
type TlsSecretKey = 'caSecret' | 'certSecret' | 'keySecret' | 'keyPassphraseSecret';

/**
 * Where a piece of TLS material or a credential comes from: a Secrets Manager secret, an SSM SecureString
 * parameter (imported by name: CloudFormation cannot create SecureString parameters), or a reference as
 * `custom.rocketmq` takes it (`<secret ARN>:<jsonKey>` for one key of a JSON secret, a parameter name).
 */
export type RocketMQSecretSource = secretsmanager.ISecret | ssm.IParameter | string;

/**
 * `tls` settings: `custom.rocketmq.tls`'s keys, the `*Secret` keys as {@link RocketMQSecretSource}s.
 */
export type RocketMQPollerTls = Omit<TlsSettingsInput, TlsSecretKey> & {
  readonly [K in TlsSecretKey]?: RocketMQSecretSource;
};

/**
 * The RocketMQ ACL credentials: one secret with the JSON keys `accessKey` and `secretKey`, or two SSM
 * SecureString parameters; `kmsKey` when a customer managed key encrypts them.
 */
export type RocketMQPollerAcl =
  | { readonly secret: secretsmanager.ISecret; readonly kmsKey?: kms.IKey }
  | {
      readonly accessKeyParameter: ssm.IParameter | string;
      readonly secretKeyParameter: ssm.IParameter | string;
      readonly kmsKey?: kms.IKey;
    };

/** The alarms: on, off, or where they go and the message age that fires one. */
export type RocketMQPollerAlarms =
  | boolean
  | { readonly topics?: readonly sns.ITopic[]; readonly messageAge?: Duration };

/** The image: a URI, or any other form `custom.rocketmq.image` takes but a build at deploy time. */
export type RocketMQPollerImage = Exclude<
  NonNullable<CustomInput['image']>,
  CfnIntrinsic | { build: unknown }
>;

/** Keys of `custom.rocketmq` that the props give as CDK objects instead. */
type CdkShapedKey = 'nameServers' | 'vpc' | 'acl' | 'tls' | 'cluster' | 'image' | 'alarms';

/**
 * The props of {@link RocketMQPoller}.
 */
export interface RocketMQPollerProps extends Omit<CustomInput, CdkShapedKey> {
  /** The name servers: `"host:port;host:port"` or a list; addresses the tasks reach from the VPC. */
  readonly nameServers: string | readonly string[];
  /** The VPC of the poller tasks. */
  readonly vpc: ec2.IVpc;
  /** Their subnets. Default: the VPC's private subnets (CDK's default selection). */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** Their security groups. Default: a new group of this construct, all outbound allowed, no inbound rule. */
  readonly securityGroups?: readonly ec2.ISecurityGroup[];
  /** Give tasks a public IP (public subnets without NAT). Default false. */
  readonly assignPublicIp?: boolean;
  /** An existing ECS cluster. Default: a new cluster. */
  readonly cluster?: ecs.ICluster;
  /** The image. Default: the published image of the installed package's version. */
  readonly image?: RocketMQPollerImage;
  /** RocketMQ ACL credentials. Default: none. */
  readonly acl?: RocketMQPollerAcl;
  /** TLS towards name servers and brokers. Default false. */
  readonly tls?: boolean | RocketMQPollerTls;
  /** Alarms per consumer group. Default true. */
  readonly alarms?: RocketMQPollerAlarms;
}

/** One `fn.addEventSource(new RocketMQEventSource(...))`, as the compiler takes it. */
export interface RocketMQPollerMapping {
  /** The function invoked (a function, an alias or a version). */
  readonly target: lambda.IFunction;
  /** Its timeout in seconds. */
  readonly timeoutSeconds: number;
  /** The `rocketmq` event as the serverless event takes it, CDK tokens held as placeholders. */
  readonly event: Record<string, unknown>;
  /** Where problems with it are reported (`RocketMQEventSource(<path of the function>)`). */
  readonly label: string;
}

/** The stage the compiler is told: not a tolerant one, so placeholder values are refused. */
const CDK_STAGE = 'cdk';

interface FunctionEntry {
  readonly key: string;
  readonly mapping: RocketMQPollerMapping;
}

/**
 * The poller service the RocketMQ event sources of a stack share. One per stack (its dashboard is named
 * after the stack). Its resources exist once a mapping is added; the getters of the escape hatches
 * ({@link service}, {@link taskRole}, …) throw until then.
 *
 * @example
 * ```ts
 * const poller = new RocketMQPoller(stack, 'Poller', {
 *   nameServers: '10.0.0.10:9876', vpc, acl: { secret: aclSecret }, maxCount: 4,
 * });
 * fn.addEventSource(new RocketMQEventSource({ poller, topic: 'Orders', consumerGroup: 'orders-fn' }));
 * ```
 */
export class RocketMQPoller extends Construct implements ec2.IConnectable {
  /** The network rules of the tasks: `broker.connections.allowFrom(poller, ec2.Port.tcp(10911))`. */
  readonly connections: ec2.Connections;

  readonly #tokens = new TokenPlaceholders();
  readonly #custom: Record<string, unknown>;
  readonly #rendered: CompiledResources;
  readonly #functions: FunctionEntry[] = [];
  readonly #hatches = new Map<string, unknown>();
  #compiled: CompiledRocketMQ | undefined;

  constructor(scope: Construct, id: string, props: RocketMQPollerProps) {
    super(scope, id);
    try {
      const checked = this.#checkedCustom(props);
      this.#custom = checked.custom;
      this.connections = checked.connections;
    } catch (error) {
      // A refused poller leaves no construct behind: the app may catch the error and go on.
      scope.node.tryRemoveChild(id);
      throw error;
    }
    this.#rendered = new CompiledResources(this);
    this.node.addValidation({
      validate: () =>
        this.#functions.length > 0
          ? []
          : [
              `${this.label}: no RocketMQEventSource uses this poller (fn.addEventSource(new RocketMQEventSource({ poller, ... })))`,
            ],
    });
  }

  /** The props as `custom.rocketmq`, checked as the plugin checks it; throws naming the props. */
  #checkedCustom(props: RocketMQPollerProps): {
    custom: Record<string, unknown>;
    connections: ec2.Connections;
  } {
    const stack = Stack.of(this);
    const other = stack.node.findAll().find((c) => c instanceof RocketMQPoller && c !== this);
    if (other !== undefined) {
      throw new RocketMQPluginError([
        `${this.label}: ${other.node.path} is already the RocketMQ poller of stack ${stack.stackName}; the event sources of a stack share one poller (pass it as \`poller\`)`,
      ]);
    }
    const securityGroups =
      props.securityGroups === undefined
        ? [
            new ec2.SecurityGroup(this, 'SecurityGroup', {
              vpc: props.vpc,
              description: 'RocketMQ poller tasks: out to the name servers, brokers and AWS APIs; nothing in',
              allowAllOutbound: true,
            }),
          ]
        : [...props.securityGroups];
    const custom = this.#customInput(props, securityGroups);
    if (typeof props.image === 'object' && 'build' in props.image) {
      throw new RocketMQPluginError([
        `${this.label}.image: an image built at deploy time needs \`serverless deploy\`; give an image URI (ecs.ContainerImage's registry, your ECR) or leave it out for the published image`,
      ]);
    }
    const path = ['custom', 'rocketmq'];
    const checked = validateWith(rocketmqCustomSchema, custom, path);
    const problems = checked.ok
      ? [
          ...customRuleProblems(checked.value, path),
          ...placeholderFindings(checked.value, CDK_STAGE, path).problems,
        ]
      : checked.problems;
    if (problems.length > 0) throw new RocketMQPluginError(cdkProblems(problems, this.label, []));
    return { custom, connections: new ec2.Connections({ securityGroups }) };
  }

  /**
   * Adds a mapping and compiles the stack's mappings again; throws {@link RocketMQPluginError} naming the
   * prop of whatever the compiler refuses (the event source calls this from `bind`).
   */
  addMapping(mapping: RocketMQPollerMapping): void {
    const held = {
      ...mapping,
      event: this.#tokens.holdTree(mapping.event, mapping.label) as Record<string, unknown>,
    };
    const entry: FunctionEntry = { key: this.#functionKey(mapping.target), mapping: held };
    const functions = [...this.#functions, entry];
    const compiled = this.#compile(functions);
    this.#functions.push(entry);
    this.#compiled = compiled;
    this.#rendered.render(compiled.resources, (tree) => this.#tokens.restore(tree));
  }

  /** The compiler's warnings of the latest compile (scaling decisions). */
  get warnings(): readonly string[] {
    return this.#compiled?.warnings ?? [];
  }

  /**
   * The L1 resource of a compiled logical id (`RocketMQLogicalIds.service`, an alarm's id), for overrides
   * (`addPropertyOverride`); undefined when the stack's mappings produce none.
   */
  resource(compiledId: string): import('aws-cdk-lib').CfnResource | undefined {
    return this.#rendered.get(compiledId);
  }

  /** The compiled logical ids of the resources this poller has now. */
  get compiledIds(): readonly string[] {
    return this.#rendered.ids();
  }

  /** The offsets table (the new one, or the existing one `offsetsTable.existing` names). */
  get offsetsTable(): dynamodb.ITable {
    return this.#hatch('OffsetsTableRef', () => {
      const table = this.#rendered.get(Ids.offsetsTable);
      const existing = (this.#custom.offsetsTable as { existing?: string } | undefined)?.existing;
      if (table === undefined && existing !== undefined) {
        return dynamodb.Table.fromTableName(this, 'OffsetsTableRef', existing);
      }
      const created = this.#required(Ids.offsetsTable);
      return dynamodb.Table.fromTableArn(this, 'OffsetsTableRef', created.getAtt('Arn').toString());
    });
  }

  /** The task role (invokes the functions, writes offsets, sends failures): add to it with `addToPrincipalPolicy`. */
  get taskRole(): iam.IRole {
    return this.#hatch('TaskRoleRef', () =>
      iam.Role.fromRoleArn(this, 'TaskRoleRef', this.#required(Ids.taskRole).getAtt('Arn').toString(), {
        mutable: true,
      }),
    );
  }

  /** The execution role (pulls the image, writes the logs, reads the secrets at task start). */
  get executionRole(): iam.IRole {
    return this.#hatch('ExecutionRoleRef', () =>
      iam.Role.fromRoleArn(
        this,
        'ExecutionRoleRef',
        this.#required(Ids.executionRole).getAtt('Arn').toString(),
        {
          mutable: true,
        },
      ),
    );
  }

  /** The log group of the tasks (their logs and the EMF metrics). */
  get logGroup(): logs.ILogGroup {
    return this.#hatch('LogGroupRef', () =>
      logs.LogGroup.fromLogGroupName(this, 'LogGroupRef', this.#required(Ids.logGroup).ref),
    );
  }

  /** The ECS service's name (`Fn::GetAtt Name`). */
  get serviceName(): string {
    return this.#required(Ids.service).getAtt('Name').toString();
  }

  /** The ECS service's ARN. */
  get serviceArn(): string {
    return this.#required(Ids.service).ref;
  }

  /** The L1 of the ECS service (`desiredCount`, deployment settings through overrides). */
  get service(): import('aws-cdk-lib').CfnResource {
    return this.#required(Ids.service);
  }

  /** The L1 of the task definition. */
  get taskDefinition(): import('aws-cdk-lib').CfnResource {
    return this.#required(Ids.taskDefinition);
  }

  private get label(): string {
    return `RocketMQPoller(${this.node.path})`;
  }

  #compile(functions: readonly FunctionEntry[]): CompiledRocketMQ {
    try {
      return compileRocketMQResources({
        stage: CDK_STAGE,
        custom: this.#custom,
        functions: functions.map(({ key, mapping }) => ({
          key,
          ...this.#functionArns(mapping.target),
          timeoutSeconds: mapping.timeoutSeconds,
          events: [{ rocketmq: mapping.event }],
        })),
      });
    } catch (error) {
      if (!(error instanceof RocketMQPluginError)) throw error;
      throw new RocketMQPluginError(
        cdkProblems(
          error.problems,
          this.label,
          functions.map(({ key, mapping }) => ({ key, label: mapping.label })),
        ),
        { cause: error },
      );
    }
  }

  /** The function's unqualified ARN and, for an alias or a version, the qualified one the poller invokes. */
  #functionArns(target: lambda.IFunction): { arn: CfnString; invokeArn?: CfnString } {
    const qualified = target as lambda.IFunction & { readonly lambda?: lambda.IFunction };
    if (qualified.lambda !== undefined && qualified.lambda !== target) {
      return {
        arn: this.#tokens.hold(qualified.lambda.functionArn),
        invokeArn: this.#tokens.hold(target.functionArn),
      };
    }
    return { arn: this.#tokens.hold(target.functionArn) };
  }

  /** A key for the compiler: an identifier, unique among the poller's functions. */
  #functionKey(target: lambda.IFunction): string {
    const base = Names.uniqueId(target).replace(/[^A-Za-z0-9]/g, '') || 'Function';
    let key = base;
    for (let n = 2; this.#functions.some((f) => f.key === key); n++) key = `${base}${n}`;
    return key;
  }

  #customInput(
    props: RocketMQPollerProps,
    securityGroups: readonly ec2.ISecurityGroup[],
  ): Record<string, unknown> {
    const {
      vpc,
      vpcSubnets,
      securityGroups: _groups,
      assignPublicIp,
      cluster,
      acl,
      tls,
      alarms,
      nameServers,
      ...rest
    } = props;
    const hold = (value: string) => this.#tokens.hold(value);
    const custom: Record<string, unknown> = {
      ...rest,
      nameServers: typeof nameServers === 'string' ? hold(nameServers) : nameServers.map(hold),
      vpc: {
        subnetIds: this.#tokens.holdAll(vpc.selectSubnets(vpcSubnets).subnetIds),
        securityGroupIds: securityGroups.map((group) => hold(group.securityGroupId)),
        ...(assignPublicIp === undefined ? {} : { assignPublicIp }),
      },
    };
    if (typeof props.image === 'string') custom.image = hold(props.image);
    else if (props.image !== undefined && 'pullThroughCache' in props.image) {
      // A token in credentialArn stays a token; prefix and upstream must be known at synth (checked).
      custom.image = this.#tokens.holdTree(props.image, `${this.label}.image`);
    }
    if (cluster !== undefined) custom.cluster = hold(cluster.clusterName);
    if (acl !== undefined) custom.acl = this.#aclInput(acl);
    if (tls !== undefined) custom.tls = typeof tls === 'boolean' ? tls : this.#tlsInput(tls);
    if (alarms !== undefined) {
      custom.alarms =
        typeof alarms === 'boolean'
          ? alarms
          : {
              ...(alarms.topics === undefined
                ? {}
                : { topicArn: alarms.topics.map((t) => hold(t.topicArn)) }),
              ...(alarms.messageAge === undefined
                ? {}
                : { messageAgeSeconds: alarms.messageAge.toSeconds({ integral: false }) }),
            };
    }
    return custom;
  }

  #aclInput(acl: RocketMQPollerAcl): Record<string, unknown> {
    const kms = acl.kmsKey === undefined ? {} : { kmsKeyArn: this.#tokens.hold(acl.kmsKey.keyArn) };
    if ('secret' in acl) return { secretArn: this.#tokens.hold(acl.secret.secretArn), ...kms };
    return {
      accessKeyParameter: this.#parameterName(acl.accessKeyParameter, 'acl.accessKeyParameter'),
      secretKeyParameter: this.#parameterName(acl.secretKeyParameter, 'acl.secretKeyParameter'),
      ...kms,
    };
  }

  #tlsInput(tls: RocketMQPollerTls): Record<string, unknown> {
    const out: Record<string, unknown> = { ...tls };
    for (const key of ['caSecret', 'certSecret', 'keySecret', 'keyPassphraseSecret'] as const) {
      const source = tls[key];
      if (source === undefined) continue;
      if (typeof source === 'string') out[key] = this.#tokens.hold(source);
      else if ('secretArn' in source) out[key] = this.#tokens.hold(source.secretArn);
      else out[key] = this.#parameterName(source, `tls.${key}`);
    }
    return out;
  }

  /** An SSM parameter by name: known at synth, as the poller's ECS secret names it. */
  #parameterName(parameter: ssm.IParameter | string, prop: string): string {
    const name = typeof parameter === 'string' ? parameter : parameter.parameterName;
    if (Token.isUnresolved(name)) {
      throw new RocketMQPluginError([
        `${this.label}.${prop}: the parameter's name is not known at synth; import the SecureString parameter by name (ssm.StringParameter.fromSecureStringParameterAttributes(this, id, { parameterName: '/rocketmq/...' }))`,
      ]);
    }
    return name;
  }

  #required(compiledId: string): import('aws-cdk-lib').CfnResource {
    const resource = this.#rendered.get(compiledId);
    if (resource !== undefined) return resource;
    throw new RocketMQPluginError([
      this.#functions.length === 0
        ? `${this.label}: has no ${compiledId} before a RocketMQEventSource is added (fn.addEventSource(...) first)`
        : `${this.label}: the stack's mappings produce no ${compiledId} (every mapping disabled, or turned off by a prop)`,
    ]);
  }

  #hatch<T>(id: string, make: () => T): T {
    if (!this.#hatches.has(id)) this.#hatches.set(id, make());
    return this.#hatches.get(id) as T;
  }
}
