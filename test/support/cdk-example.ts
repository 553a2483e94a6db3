/**
 * The CDK example of infra/cdk (the Orders mapping of docs/deploying.md) synthesized in process, for the
 * tests that check it: cdk-nag and the comparison of the three faces (test/unit/cdk), cfn-lint and a
 * CreateStack on moto (test/integration/deploy/cdk-deploy.test.ts).
 */
import { App, DefaultStackSynthesizer, type Environment } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import {
  EXAMPLE_NETWORK,
  RocketMQOrdersStack,
  type RocketMQOrdersStackProps,
} from '../../infra/cdk/rocketmq-orders-stack.js';

/** The account and region of the docs' example. */
export const EXAMPLE_ENV: Required<Pick<Environment, 'account' | 'region'>> = {
  account: '111122223333',
  region: 'eu-west-1',
};

/**
 * The example stack, synthesized; `overrides` replace the example's network (moto's account, a secret it
 * holds). `bootstrapless` leaves out the BootstrapVersion parameter and its rule, which only a
 * bootstrapped account (`cdk bootstrap`) answers: moto has none.
 *
 * @example
 * ```ts
 * const { stack, template } = synthesizeExample();
 * template.resourceCountIs('AWS::ECS::Service', 1);
 * ```
 */
export function synthesizeExample(
  options: {
    readonly env?: Required<Pick<Environment, 'account' | 'region'>>;
    readonly overrides?: Partial<Omit<RocketMQOrdersStackProps, keyof import('aws-cdk-lib').StackProps>>;
    readonly bootstrapless?: boolean;
  } = {},
): { readonly stack: RocketMQOrdersStack; readonly template: Template } {
  const app = new App();
  const stack = new RocketMQOrdersStack(app, 'RocketMQOrders', {
    env: options.env ?? EXAMPLE_ENV,
    ...EXAMPLE_NETWORK,
    ...options.overrides,
    ...(options.bootstrapless === true
      ? { synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }) }
      : {}),
  });
  return { stack, template: Template.fromStack(stack) };
}
