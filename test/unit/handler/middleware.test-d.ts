/** Type tests, checked by vitest's typecheck (`*.test-d.ts`): the middleware's handler types. */
import middy from '@middy/core';
import { describe, expectTypeOf, it } from 'vitest';
import { rocketmqBatchProcessor } from '../../../src/handler/middleware.js';
import type { RocketMQEvent } from '../../../src/handler/types.js';

describe('rocketmqBatchProcessor with @middy/core', () => {
  it('is typed for RocketMQ events', () => {
    const handler = middy().use(rocketmqBatchProcessor({ recordHandler: async () => undefined }));
    expectTypeOf(handler).parameter(0).toEqualTypeOf<RocketMQEvent>();
  });
});
