/**
 * The poller's run config (the `rocketmq-lambda run` contract, `src/config`) generated from the
 * `rocketmq` events, as an `Fn::Sub` whose variables are the values only known at deploy time (function
 * ARNs, the table name, failure destinations given as intrinsics). The task definition passes it to the
 * container in the environment variable {@link POLLER_CONFIG_ENV}.
 */
import { TLS_SECRET_KEYS } from '../config/tls-material-sources.js';
import { type CfnIntrinsic, type CfnString, escapeSubText, isCfnIntrinsic } from './cfn-intrinsic.js';
import { RocketMQPluginError } from './plugin-error.js';
import type { RocketMQCustomOptions } from './rocketmq-custom-schema.js';
import type { RocketMQEventOptions } from './rocketmq-event-schema.js';

/** The environment variable that carries the config JSON into the poller container. */
export const POLLER_CONFIG_ENV = 'ROCKETMQ_LAMBDA_CONFIG';

/**
 * One enabled mapping to put in the config.
 */
export interface PollerMapping {
  /** The function's key in serverless.yml. */
  readonly functionKey: string;
  /** The ARN the poller invokes (the function's, or its alias's). */
  readonly functionArn: CfnString;
  readonly event: RocketMQEventOptions;
  /** The function's timeout (ms): how long the poller lets one invoke run. Absent: the poller's 15 min. */
  readonly functionTimeoutMs?: number | undefined;
}

/**
 * The run config's `tls` settings the plugin passes through (file paths are inside the image): the
 * settings form of `custom.rocketmq.tls`, less its `*Secret` keys (ECS secrets instead).
 */
export type PollerTlsSettings = Exclude<RocketMQCustomOptions['tls'], boolean | undefined>;

/**
 * What the whole config needs beyond the mappings.
 */
export interface PollerConfigShared {
  readonly nameServers: string | readonly string[] | CfnIntrinsic;
  readonly tls: boolean | PollerTlsSettings;
  readonly offsetsTable: CfnString;
  readonly shutdownTimeoutMs: number;
}

/**
 * The environment value: `{ 'Fn::Sub': [json, variables] }`. Literal text in the JSON has `${` escaped.
 *
 * @example
 * ```ts
 * const value: PollerConfigSub = { 'Fn::Sub': ['{"mappings":[{"function":"${Function0}"}]}', { Function0: { 'Fn::GetAtt': ['F', 'Arn'] } }] };
 * ```
 */
export interface PollerConfigSub {
  readonly 'Fn::Sub': readonly [string, Readonly<Record<string, CfnString>>];
}

/**
 * Builds the run config of `mappings` as an `Fn::Sub`. Only keys the events set are written, so the
 * poller's own defaults apply to the rest; seconds become the config's milliseconds where it wants them.
 */
export function pollerConfigSub(
  shared: PollerConfigShared,
  mappings: readonly PollerMapping[],
): PollerConfigSub {
  const variables: Record<string, CfnString> = {};
  const text = (value: CfnString, variable: string): string => {
    if (!isCfnIntrinsic(value)) return escapeSubText(value);
    variables[variable] = value;
    return `\${${variable}}`;
  };
  const nameServer = isCfnIntrinsic(shared.nameServers)
    ? text(shared.nameServers, 'NameServers')
    : typeof shared.nameServers === 'string'
      ? escapeSubText(shared.nameServers)
      : shared.nameServers.map(escapeSubText);
  const document = {
    nameServer,
    ...tlsEntry(shared.tls),
    shutdownTimeoutMs: shared.shutdownTimeoutMs,
    offsets: { store: 'dynamodb', table: text(shared.offsetsTable, 'OffsetsTable') },
    // Embedded Metric Format lines on stdout: the awslogs driver ships them to the service's log group,
    // where CloudWatch extracts the metrics the scaling policy, alarms and dashboard read.
    metrics: { emf: {} },
    mappings: mappings.map((mapping, index) => mappingEntry(mapping, index, text)),
  };
  return { 'Fn::Sub': [JSON.stringify(document), variables] };
}

function tlsEntry(tls: boolean | PollerTlsSettings): { tls?: true | Record<string, unknown> } {
  if (tls === false) return {};
  if (tls === true) return { tls: true };
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tls)) {
    // A `*Secret` key reaches the poller as an environment variable (poller-tls-secrets.ts), not as a key.
    if (value !== undefined && !TLS_SECRET_KEYS.includes(key))
      settings[key] = typeof value === 'string' ? escapeSubText(value) : value;
  }
  return { tls: Object.keys(settings).length === 0 ? true : settings };
}

function mappingEntry(
  mapping: PollerMapping,
  index: number,
  text: (value: CfnString, variable: string) => string,
): Record<string, unknown> {
  const e = mapping.event;
  const entry: Record<string, unknown> = {
    topic: e.topic,
    consumerGroup: e.consumerGroup,
    function: text(mapping.functionArn, `Function${index}`),
  };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) entry[key] = typeof value === 'string' ? escapeSubText(value) : value;
  };
  set('functionTimeoutMs', mapping.functionTimeoutMs);
  set('filter', typeof e.filter === 'object' ? { sql: escapeSubText(e.filter.sql) } : e.filter);
  // Patterns travel as JSON text, escaped for Fn::Sub like every other literal (a `${` in a pattern is text).
  if (e.filters !== undefined) {
    entry.filters = e.filters.map((pattern) =>
      escapeSubText(typeof pattern === 'string' ? pattern : JSON.stringify(pattern)),
    );
  }
  set('batchSize', e.batchSize);
  set(
    'maximumBatchingWindowMs',
    e.maximumBatchingWindow === undefined ? undefined : e.maximumBatchingWindow * 1000,
  );
  set('maxConcurrency', e.maxConcurrency);
  set('orderly', e.orderly);
  set('orderlyFailure', e.orderlyFailure);
  set('maxReconsumeTimes', e.maxReconsumeTimes);
  set('messageModel', e.messageModel);
  set('consumeMode', e.consumeMode);
  set('allocateStrategy', e.allocateStrategy);
  set('allocateVirtualNodes', e.allocateVirtualNodes);
  set('startingPosition', e.startingPosition);
  set('startingPositionTimestamp', e.startingPositionTimestamp);
  set('bisectBatchOnError', e.bisectBatchOnError);
  set('messageTrace', e.messageTrace);
  set('maxRecordAgeSeconds', e.maxRecordAge);
  if (e.onFailure !== undefined) entry.onFailure = text(e.onFailure, `OnFailure${index}`);
  return entry;
}

/**
 * The config text the container sees, given a value for every variable (tests and docs: what
 * CloudFormation's `Fn::Sub` would produce).
 *
 * @example
 * ```ts
 * const json = renderPollerConfig(sub, { OffsetsTable: 'offsets', Function0: 'arn:aws:lambda:eu-west-1:123456789012:function:f' });
 * JSON.parse(json).offsets.table; // => 'offsets'
 * ```
 */
export function renderPollerConfig(sub: PollerConfigSub, values: Readonly<Record<string, string>>): string {
  const [template, variables] = sub['Fn::Sub'];
  return template.replace(/\$\{(!?)([^}]*)\}/g, (whole, bang: string, name: string) => {
    if (bang === '!') return `\${${name}}`;
    if (!(name in variables))
      throw new RocketMQPluginError([`(Fn::Sub): ${whole} is not a variable of the template`]);
    const value = values[name];
    if (value === undefined) throw new RocketMQPluginError([`(Fn::Sub): no value given for ${name}`]);
    return JSON.stringify(value).slice(1, -1);
  });
}
