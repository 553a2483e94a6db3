import { describe, expect, it } from 'vitest';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import { lambdaFunctionArn, parseLambdaFunctionRef } from '../../../src/invoke/lambda-function-ref.js';

describe('parseLambdaFunctionRef', () => {
  it.each([
    ['orders', { functionName: 'orders', qualifier: undefined, name: 'orders' }],
    ['orders:live', { functionName: 'orders', qualifier: 'live', name: 'orders' }],
    ['orders:$LATEST', { functionName: 'orders', qualifier: '$LATEST', name: 'orders' }],
    [
      '123456789012:function:orders:3',
      {
        functionName: '123456789012:function:orders',
        qualifier: '3',
        name: 'orders',
        accountId: '123456789012',
      },
    ],
    [
      'arn:aws:lambda:eu-west-1:123456789012:function:orders',
      {
        functionName: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
        qualifier: undefined,
        name: 'orders',
        region: 'eu-west-1',
        partition: 'aws',
        accountId: '123456789012',
      },
    ],
    [
      'arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:orders:live',
      { region: 'us-gov-west-1', partition: 'aws-us-gov', qualifier: 'live' },
    ],
  ])('parses %s', (ref, expected) => {
    expect(parseLambdaFunctionRef(ref)).toMatchObject({ ref, ...expected });
  });

  it.each(['', 'a b', 'orders:live:extra', 'arn:aws:lambda:eu-west-1:123:function:x', `${'x'.repeat(65)}`])(
    'rejects %j with a fatal InvokeError',
    (ref) => {
      expect(() => parseLambdaFunctionRef(ref)).toThrow(InvokeError);
      try {
        parseLambdaFunctionRef(ref);
      } catch (error) {
        expect(error).toMatchObject({ fatal: true, functionRef: ref });
      }
    },
  );

  it('builds the ARN for failure records', () => {
    expect(lambdaFunctionArn(parseLambdaFunctionRef('orders:live'), 'eu-west-1')).toBe(
      'arn:aws:lambda:eu-west-1:*:function:orders:live',
    );
    const full = 'arn:aws:lambda:us-east-1:123456789012:function:orders:7';
    expect(lambdaFunctionArn(parseLambdaFunctionRef(full), 'eu-west-1')).toBe(full);
  });
});
