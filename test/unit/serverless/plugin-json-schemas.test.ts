import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { rocketmqCustomJsonSchema, rocketmqEventJsonSchema } from '../../../src/serverless/index.js';
import { fixtureInput } from './fixture-input.js';

/** AJV as the framework (osls 4.3.1) configures it for serverless.yml. */
function frameworkAjv(): Ajv {
  return new Ajv({
    allErrors: true,
    coerceTypes: 'array',
    verbose: true,
    strict: true,
    strictRequired: false,
  });
}

describe('the JSON Schemas registered with the framework', () => {
  it('compile under the framework AJV options (strict mode) and accept every fixture event', () => {
    const validateEvent = frameworkAjv().compile(rocketmqEventJsonSchema());
    const validateCustom = frameworkAjv().compile(rocketmqCustomJsonSchema());
    const input = fixtureInput('all-options');
    const events = input.functions.flatMap((fn) =>
      fn.events.flatMap((entry) =>
        typeof entry === 'object' && entry !== null && 'rocketmq' in entry ? [entry.rocketmq] : [],
      ),
    );
    expect(events).toHaveLength(3);
    for (const event of events) expect(validateEvent(event), JSON.stringify(validateEvent.errors)).toBe(true);
    expect(validateCustom(input.custom), JSON.stringify(validateCustom.errors)).toBe(true);
  });

  it('are closed: an unknown key is an additionalProperties error naming it', () => {
    const validate = frameworkAjv().compile(rocketmqEventJsonSchema());
    expect(validate({ topic: 'Orders', consumerGroup: 'g', batchsize: 5 })).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({
        keyword: 'additionalProperties',
        params: { additionalProperty: 'batchsize' },
      }),
    );
    const validateCustom = frameworkAjv().compile(rocketmqCustomJsonSchema());
    expect(
      validateCustom({ nameServers: 'ns:9876', image: 'i', vpc: { subnetIds: ['s'], subnets: [] } }),
    ).toBe(false);
    expect(validateCustom.errors).toContainEqual(
      expect.objectContaining({ keyword: 'additionalProperties', params: { additionalProperty: 'subnets' } }),
    );
  });

  it('check ranges and enums as the compiler does', () => {
    const validate = frameworkAjv().compile(rocketmqEventJsonSchema());
    expect(validate({ topic: 'Orders', consumerGroup: 'g', batchSize: 10_001 })).toBe(false);
    expect(validate({ topic: 'Orders', consumerGroup: 'g', startingPosition: 'EARLIEST' })).toBe(false);
    expect(validate({ topic: 'Orders' })).toBe(false);
    expect(validate({ topic: 'Orders', consumerGroup: 'g', onFailure: { Ref: 'Topic' } })).toBe(true);
  });
});
