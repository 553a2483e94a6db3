/**
 * `filters` of a `rocketmq` event: refused with the serverless.yml path of the bad part, and carried into
 * the poller's run config as JSON text (escaped for `Fn::Sub`), where the poller's own parser accepts it.
 */
import { describe, expect, it } from 'vitest';
import {
  type CompileRocketMQInput,
  compileRocketMQResources,
  RocketMQPluginError,
} from '../../../src/serverless/index.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';
import { checkPollerConfig } from './config-check.js';

const CUSTOM = {
  nameServers: '10.0.0.10:9876',
  image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0',
  vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] },
};

function oneEvent(event: Record<string, unknown>): CompileRocketMQInput {
  return {
    custom: CUSTOM,
    stage: 'prod',
    functions: [
      {
        key: 'orders',
        logicalId: 'OrdersLambdaFunction',
        events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn', ...event } }],
      },
    ],
  };
}

describe('rocketmq event filters', () => {
  it('refuses a bad pattern with the path of its bad part', () => {
    const problems = problemsThrownBy(
      () =>
        compileRocketMQResources(
          oneEvent({ filters: [{ tags: ['a'] }, '{"body": {"status": [{"numeric": [">>", 1]}]}}'] }),
        ),
      RocketMQPluginError,
    );
    expect(problems).toEqual([
      "functions.orders.events[0].rocketmq.filters[1].body.status[0].numeric: expected an operator ('<', '<=', '=', '>=', '>') followed by a number",
    ]);
  });

  it('refuses a pattern of the wrong type with the schema line', () => {
    expect(
      problemsThrownBy(() => compileRocketMQResources(oneEvent({ filters: [true] })), RocketMQPluginError),
    ).toEqual([
      'functions.orders.events[0].rocketmq.filters[0]: must be a filter pattern: a JSON string or an object, got true',
    ]);
  });

  it('writes the patterns as JSON text into the run config, which the poller parses back', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a pattern's text that Fn::Sub must leave as it is.
    const filters = [{ body: { status: ['paid'] } }, '{"properties": {"region": [{"prefix": "${eu"}]}}'];
    const { pollerConfig } = compileRocketMQResources(oneEvent({ filter: 'TagA', filters }));
    if (pollerConfig === undefined) throw new Error('no poller config');
    const { config, unexpected, raw } = checkPollerConfig(pollerConfig);
    expect(unexpected).toEqual([]);
    const [mapping] = (raw as { mappings: { filters: unknown[] }[] }).mappings;
    expect(mapping?.filters).toEqual(['{"body":{"status":["paid"]}}', filters[1]]);
    expect(config?.mappings[0]?.filters?.map((f) => (typeof f === 'string' ? JSON.parse(f) : f))).toEqual([
      { body: { status: ['paid'] } },
      { properties: { region: [{ prefix: '${eu' }] } },
    ]);
    expect(config?.mappings[0]?.filter).toEqual({ type: 'TAG', expression: 'TagA' });
  });
});
