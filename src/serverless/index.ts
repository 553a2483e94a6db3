/**
 * `rocketmq-lambda/serverless`: the Serverless Framework plugin (the default export, as the framework
 * loads plugins) and its pure compiler.
 *
 * ```yaml
 * plugins:
 *   - rocketmq-lambda/serverless
 * functions:
 *   orders:
 *     handler: src/orders.handler
 *     events:
 *       - rocketmq: { topic: Orders, consumerGroup: orders-fn, batchSize: 50 }
 * custom:
 *   rocketmq:
 *     nameServers: "10.0.0.10:9876"
 *     vpc: { subnetIds: [subnet-0a1b2c3d], securityGroupIds: [sg-0a1b2c3d] }
 * ```
 *
 * Deploying (image, network, secrets, scaling, every key): docs/deploying.md.
 */
import { RocketMQServerlessPlugin } from './rocketmq-plugin.js';

export { LAG_METRIC } from '../metrics/lag-metric.js';
export type {
  CfnIntrinsic,
  CfnListIntrinsic,
  CfnOutput,
  CfnResource,
  CfnString,
  CfnStringList,
} from './cfn-intrinsic.js';
export { CFN_SHORT_FORMS, CFN_YAML_TAG_NAMES, cfnYamlTags } from './cfn-yaml-tags.js';
export {
  type CompiledRocketMQ,
  type CompileRocketMQInput,
  compileRocketMQResources,
  type RocketMQFunctionInput,
} from './compile-rocketmq-resources.js';
export { POLLER_CONTAINER_NAME, RocketMQLogicalIds, RocketMQOutputIds } from './logical-ids.js';
export { RocketMQPluginError } from './plugin-error.js';
export { rocketmqCustomJsonSchema, rocketmqEventJsonSchema } from './plugin-json-schemas.js';
export { POLLER_CONFIG_ENV, type PollerConfigSub, renderPollerConfig } from './poller-config-template.js';
export { BOOTSTRAP_IMAGE_PARAM } from './poller-image-deploy.js';
export { POLLER_METRICS } from './poller-metrics.js';
export { POLLER_HEALTH_COMMAND } from './poller-service.js';
export { PUBLISHED_IMAGE_REPOSITORIES, packageVersion, publishedImage } from './published-image.js';
export {
  CUSTOM_DEFAULTS,
  type RocketMQCustomOptions,
  rocketmqCustomSchema,
} from './rocketmq-custom-schema.js';
export { type RocketMQEventOptions, rocketmqEventSchema } from './rocketmq-event-schema.js';
export {
  DEV_STATE_EXCLUDE_PATTERN,
  RocketMQServerlessPlugin,
  type ServerlessInstance,
} from './rocketmq-plugin.js';
export {
  type CfnTemplateDocument,
  parseStackFileText,
  readStackFile,
  renderTemplate,
  STANDALONE_OUTPUTS,
  type StackFile,
  type StandaloneTemplate,
  stackFileSchema,
  standaloneTemplate,
} from './standalone-template.js';

/**
 * The plugin class, as the framework expects a plugin module's default export.
 *
 * @example
 * ```ts
 * import RocketMQPlugin from 'rocketmq-lambda/serverless';
 * ```
 */
export default RocketMQServerlessPlugin;
