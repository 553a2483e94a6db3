/**
 * `rocketmq-lambda/cdk`: RocketMQ event sources for the AWS CDK (aws-cdk-lib and constructs are peer
 * dependencies). A {@link RocketMQPoller} per stack runs the mappings; each function gets its own with
 * `fn.addEventSource(new RocketMQEventSource({ poller, topic, consumerGroup, ... }))`.
 *
 * ```ts
 * import { RocketMQEventSource, RocketMQPoller } from 'rocketmq-lambda/cdk';
 *
 * const poller = new RocketMQPoller(this, 'Poller', { nameServers: '10.0.0.10:9876', vpc });
 * orders.addEventSource(new RocketMQEventSource({ poller, topic: 'Orders', consumerGroup: 'orders-fn' }));
 * ```
 *
 * The resources are the Serverless plugin's (one compiler for both): docs/deploying.md.
 */
export { RocketMQLogicalIds } from '../serverless/logical-ids.js';
export { RocketMQPluginError } from '../serverless/plugin-error.js';
export { RocketMQEventSource, type RocketMQEventSourceProps } from './rocketmq-event-source.js';
export {
  RocketMQPoller,
  type RocketMQPollerAcl,
  type RocketMQPollerAlarms,
  type RocketMQPollerImage,
  type RocketMQPollerMapping,
  type RocketMQPollerProps,
  type RocketMQPollerTls,
  type RocketMQSecretSource,
} from './rocketmq-poller.js';
