import type { Context } from 'aws-lambda';
import type { RocketMQEvent } from '../../../src/handler/types.js';
import { buildEvent } from '../../../src/invoke/event-builder.js';
import { consumed } from '../invoke/consumed-message.js';

/** A real event (built by the poller's event builder) of records with ids `id-0`.. and the given bodies. */
export function eventOf(
  bodies: readonly (string | Buffer)[],
  consumerGroup = 'orders-consumer',
): RocketMQEvent {
  return buildEvent(
    consumerGroup,
    bodies.map((body, i) =>
      consumed({
        msgId: `id-${i}`,
        queueOffset: 100 + i,
        body: typeof body === 'string' ? Buffer.from(body) : body,
        properties: { UNIQ_KEY: `id-${i}`, TAGS: 'created', KEYS: `order-${i}`, tenant: 'acme' },
      }),
    ),
  );
}

/** A Lambda context as the Node.js runtime provides it (the full `aws-lambda` type, as middy wants it). */
export function lambdaContext(awsRequestId = 'req-1'): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'orders',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
    memoryLimitInMB: '128',
    awsRequestId,
    logGroupName: '/aws/lambda/orders',
    logStreamName: '2024/01/01/[$LATEST]abc',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The ids of a response's failures, in order. */
export function failedIds(response: unknown): string[] {
  const { batchItemFailures } = response as { batchItemFailures: { itemIdentifier: string }[] };
  return batchItemFailures.map((failure) => failure.itemIdentifier);
}
